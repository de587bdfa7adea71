/* trace_json_kmap.h - a small open-addressing map from a three-part key to an index, for the trace JSON reader's staging. */
#ifndef XPSTAT_TRACE_JSON_KMAP_H
#define XPSTAT_TRACE_JSON_KMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct key3 {
	int64_t a, b;
	uint64_t c;
};

struct kmap {
	struct key3 *keys;
	uint32_t *vals;         /* index + 1; 0 = empty slot */
	size_t cap, n;
};

static inline bool key3_eq(const struct key3 *x, const struct key3 *y)
{
	return x->a == y->a && x->b == y->b && x->c == y->c;
}

uint32_t kmap_get(const struct kmap *m, const struct key3 *k); /* UINT32_MAX: absent */
void kmap_put(struct kmap *m, const struct key3 *k, uint32_t v);
void kmap_free(struct kmap *m);

#endif
