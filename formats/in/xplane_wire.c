/* xplane_wire.c - the XSpace reader's cold wire paths: recording a fault, skipping an unknown field. */
#include "xplane_wire.h"

void xpr_fault(struct reader *r, const uint8_t *at, const char *what)
{
	pthread_mutex_lock(&r->err_lock);
	xp_err_at(r->err, XP_EXIT_BAD_INPUT, r->path, (uint64_t)(at - r->base), "corrupt XSpace: %s", what);
	pthread_mutex_unlock(&r->err_lock);
	atomic_store(&r->failed, 1);
}

void xpr_limit(struct reader *r, const char *what)
{
	pthread_mutex_lock(&r->err_lock);
	xp_err_set(r->err, XP_EXIT_INTERNAL, r->path, "%s", what);
	pthread_mutex_unlock(&r->err_lock);
	atomic_store(&r->failed, 1);
}

int xpr_skip_field(struct reader *r, const uint8_t **pp, const uint8_t *end, unsigned wt)
{
	const uint8_t *at = *pp, *body;
	uint64_t v;
	switch (wt) {
	case XP_WT_VARINT:
		return read_varint(r, pp, end, &v);
	case XP_WT_I64:
		if (end - *pp < 8)
			return fail(r, at, "truncated 64-bit field");
		*pp += 8;
		return 0;
	case XP_WT_I32:
		if (end - *pp < 4)
			return fail(r, at, "truncated 32-bit field");
		*pp += 4;
		return 0;
	case XP_WT_LEN:
		return read_len(r, pp, end, &body, &v);
	default:
		return fail(r, at, "invalid wire type");
	}
}
