/* breakdown.c - the memory profile's breakdown at the peak: the live allocations grouped into rows (spec §5.3 steps 7-9). */
#include "profile.h"
#include "formats/core/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_str(struct mem_str a, struct mem_str b)
{
	uint32_t n = a.len < b.len ? a.len : b.len;
	int c = n ? memcmp(a.s, b.s, n) : 0;
	if (c)
		return c < 0 ? -1 : 1;
	return (a.len > b.len) - (a.len < b.len);
}

static int cmp_row(const void *x, const void *y)
{
	const struct mem_row *a = x, *b = y;
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	if (a->req != b->req)
		return a->req > b->req ? -1 : 1;
	int c = cmp_str(a->op, b->op);
	if (!c)
		c = cmp_str(a->region, b->region);
	if (!c)
		c = strcmp(a->dtype, b->dtype);
	if (!c)
		c = cmp_str(a->shape, b->shape);
	return c;
}

static struct mem_str lit(const char *s)
{
	return (struct mem_str){s, (uint32_t)strlen(s)};
}

static void row_special(struct mem_row *b, const char *op, const char *region, int64_t bytes)
{
	memset(b, 0, sizeof *b);
	b->op = lit(op);
	b->region = lit(region);
	b->shape = lit("unknown");
	snprintf(b->dtype, sizeof b->dtype, "INVALID");
	b->bytes = b->req = bytes;
	b->occ = 1;
}

size_t xp_mem_breakdown(const struct mem_host *mh, const struct mem_alc *a, struct mem_row **out)
{
	size_t n = 0;
	struct mem_row *rows = xcalloc(a->active.n + 2, sizeof *rows);
	for (size_t i = 0; i < a->active.cap; i++) {
		if (!a->active.used[i])
			continue;
		struct mem_ev e;
		xp_mem_decode(mh, xp_mem_unpack(a->active.vals[i]), &e);
		struct mem_row *b = &rows[n++];
		b->op = e.op;
		b->region = e.region;
		b->shape = e.shape;
		xp_memory_dtype_name(e.dtype, b->dtype, sizeof b->dtype);
		b->bytes = e.bytes;
		b->req = e.req;
		b->occ = 1;
	}
	/* What the live allocations of the peak step do not explain, and the stack. */
	int64_t unmapped = xp_mem_sat_sub(a->unmapped, a->unmapped_dealloc);
	if (unmapped > 0)
		row_special(&rows[n++], "unused preallocated device memory", "persist/dynamic", unmapped);
	if (a->stack > 0)
		row_special(&rows[n++], "stack", "stack", a->stack);
	qsort(rows, n, sizeof *rows, cmp_row);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && !cmp_row(&rows[k - 1], &rows[i]))
			rows[k - 1].occ++;
		else
			rows[k++] = rows[i];
	}
	*out = rows;
	return k;
}
