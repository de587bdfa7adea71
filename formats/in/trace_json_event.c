/* trace_json_event.c - lexing one traceEvents element: the keys we read found without a string compare each, ts/dur converted on the way. */
#include "trace_json_event.h"
#include "trace_json_time.h"
#include "formats/core/xalloc.h"

/* Event keys we read; anything else is validated and skipped. */
enum evkey { EK_OTHER = 0, EK_PH, EK_NAME, EK_CAT, EK_PID, EK_TID, EK_TS, EK_DUR, EK_ID, EK_ID2, EK_ARGS };

static enum evkey event_key(const uint8_t *k, size_t n)
{
	switch (n) {
	case 2:
		return !memcmp(k, "ph", 2) ? EK_PH : !memcmp(k, "ts", 2) ? EK_TS : !memcmp(k, "id", 2) ? EK_ID : EK_OTHER;
	case 3:
		return !memcmp(k, "pid", 3)   ? EK_PID
		       : !memcmp(k, "tid", 3) ? EK_TID
		       : !memcmp(k, "dur", 3) ? EK_DUR
		       : !memcmp(k, "cat", 3) ? EK_CAT
		       : !memcmp(k, "id2", 3) ? EK_ID2
					      : EK_OTHER;
	case 4:
		return !memcmp(k, "name", 4) ? EK_NAME : !memcmp(k, "args", 4) ? EK_ARGS : EK_OTHER;
	default:
		return EK_OTHER;
	}
}

/* A key spelled with escapes: compared once unescaped (the longest we read is 4 bytes). */
static enum evkey resolve_key(const struct jstr *k)
{
	if (!k->esc)
		return event_key(k->p, k->len);
	if (k->len > 32)
		return EK_OTHER;
	uint8_t tmp[32];
	return event_key(tmp, jl_unescape(k->p, k->len, tmp, NULL));
}

/* The usual keys, spelled without escapes, recognised without lexing them as
 * strings; *after is past the closing quote. EK_OTHER: take the general path. */
static inline enum evkey quick_key(const uint8_t *p, const uint8_t *end, const uint8_t **after)
{
	if (end - p < 7)
		return EK_OTHER;
#define KEY(s, k)                                                     \
	if (!memcmp(p + 1, s "\"", sizeof(s))) {                      \
		*after = p + sizeof(s) + 1;                            \
		return k;                                              \
	}
	switch (p[1]) {
	case 'p': KEY("ph", EK_PH) KEY("pid", EK_PID) break;
	case 't': KEY("ts", EK_TS) KEY("tid", EK_TID) break;
	case 'd': KEY("dur", EK_DUR) break;
	case 'n': KEY("name", EK_NAME) break;
	case 'a': KEY("args", EK_ARGS) break;
	case 'c': KEY("cat", EK_CAT) break;
	case 'i': KEY("id", EK_ID) KEY("id2", EK_ID2) break;
	default: break;
	}
#undef KEY
	return EK_OTHER;
}

/* The key of a member and the ':' after it; *pp at the key's quote, left at the value. */
static inline int member_key(const struct jlex *lx, const uint8_t **pp, enum evkey *which)
{
	const uint8_t *p = *pp, *after;
	int rc;
	if (*p != '"')
		return jl_err(lx, p, "expected a string key in an object");
	*which = quick_key(p, lx->end, &after);
	if (*which != EK_OTHER) {
		p = after;
	} else {
		struct jstr k;
		if ((rc = jl_string(lx, &p, &k)))
			return rc;
		*which = resolve_key(&k);
	}
	if ((rc = jl_skip_ws(lx, &p)))
		return rc;
	if (*p != ':')
		return jl_err(lx, p, "expected ':' after an object key");
	p++;
	rc = jl_skip_ws(lx, &p);
	*pp = p;
	return rc;
}

static struct jval *ev_field(struct ev *e, enum evkey k)
{
	switch (k) {
	case EK_PH: return &e->ph;
	case EK_NAME: return &e->name;
	case EK_CAT: return &e->cat;
	case EK_PID: return &e->pid;
	case EK_TID: return &e->tid;
	case EK_TS: return &e->ts;
	case EK_DUR: return &e->dur;
	case EK_ID: return &e->id;
	case EK_ID2: return &e->id2;
	case EK_ARGS: return &e->args;
	default: return NULL;
	}
}

/* A string of one plain ASCII character at p: "X". */
static inline bool one_char_string(const uint8_t *p, const uint8_t *end)
{
	return end - p >= 3 && p[0] == '"' && p[2] == '"' && p[1] >= 0x20 && p[1] < 0x80 && p[1] != '"' && p[1] != '\\';
}

static inline struct jarg *next_arg(struct tj_args *a, size_t n)
{
	if (n >= a->cap) {
		a->cap = a->cap ? a->cap * 2 : 16;
		a->v = xrealloc(a->v, a->cap * sizeof *a->v);
	}
	return &a->v[n];
}

/* The members of "args" (an object) into a. *pp at '{'. */
static int lex_args(const struct jlex *lx, const uint8_t **pp, struct tj_args *a, struct ev *e)
{
	const uint8_t *start = *pp, *p = start + 1;
	bool more = true;
	int rc;
	e->na = 0;
	if ((rc = jl_skip_ws(lx, &p)))
		return rc;
	if (*p == '}')
		more = false;
	while (more) {
		/* lexed in place: a copy of a just-written jarg would stall on store forwarding */
		struct jarg *m = next_arg(a, e->na);
		if ((rc = jl_member_key(lx, &p, &m->key)) || (rc = jl_member_value(lx, &p, 2, &m->val)))
			return rc;
		e->na++;
		if ((rc = jl_next(lx, &p, '}', "expected ',' or '}' in an object", &more)))
			return rc;
	}
	p++;
	e->args.type = JV_OBJ;
	e->args.p = start;
	e->args.len = (size_t)(p - start);
	*pp = p;
	return J_OK;
}

/* The value of a member whose key is which; *pp at its first byte. */
static inline int member_value(const struct jlex *lx, const uint8_t **pp, enum evkey which, struct tj_args *a,
			       struct ev *e)
{
	const uint8_t *p = *pp;
	int rc = J_OK;
	if (which == EK_PH && one_char_string(p, lx->end)) {
		/* "X": the usual one-letter phase, without the string lexer */
		e->ph = (struct jval){.type = JV_STR, .p = p + 1, .len = 1};
		p += 3;
	} else if (which == EK_TS || which == EK_DUR) {
		bool *done = which == EK_TS ? &e->ts_done : &e->dur_done;
		struct jval *dst = which == EK_TS ? &e->ts : &e->dur;
		__int128 *ps = which == EK_TS ? &e->ts_ps : &e->dur_ps;
		if ((*done = tj_lex_time(p, lx->end, dst, ps)))
			p += dst->len;
		else
			rc = jl_value(lx, &p, 1, dst);
	} else if (which == EK_ARGS && *p == '{') {
		rc = lex_args(lx, &p, a, e);
	} else {
		struct jval tmp, *dst = ev_field(e, which);
		rc = jl_member_value(lx, &p, 1, dst ? dst : &tmp);
		if (which == EK_ARGS)
			e->na = 0;
	}
	*pp = p;
	return rc;
}

static inline void ev_reset(struct ev *e, const uint8_t *at)
{
	e->members = e->na = 0;
	e->ts_done = e->dur_done = false;
	e->ph.type = e->name.type = e->cat.type = e->pid.type = e->tid.type = JV_NONE;
	e->ts.type = e->dur.type = e->id.type = e->id2.type = e->args.type = JV_NONE;
	e->at = at;
}

int tj_lex_event(const struct jlex *lx, const uint8_t **pp, struct tj_args *a, struct ev *e)
{
	const uint8_t *p = *pp;
	bool more = true;
	int rc;
	ev_reset(e, p);
	if (*p != '{')
		return jl_err(lx, p, "a traceEvents element is not an object");
	p++;
	if ((rc = jl_skip_ws(lx, &p)))
		return rc;
	if (*p == '}')
		more = false;
	while (more) {
		enum evkey which = EK_OTHER;
		if ((rc = member_key(lx, &p, &which)))
			return rc;
		e->members++;
		if ((rc = member_value(lx, &p, which, a, e)) ||
		    (rc = jl_next(lx, &p, '}', "expected ',' or '}' in an object", &more)))
			return rc;
	}
	e->av = a->v; /* now that lex_args cannot move them any more */
	*pp = p + 1;
	return J_OK;
}
