/* hlodb.c - the HLO modules of one host, decoded from the Hlo Proto stats of /host:metadata, and event resolution. */
#include "hlodb.h"
#include "formats/core/hash.h"
#include "formats/core/xalloc.h"
#include "formats/model/result.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_program(const void *a, const void *b)
{
	const struct xp_hlo_module *x = *(const struct xp_hlo_module *const *)a, *y = *(const struct xp_hlo_module *const *)b;
	return x->program_id < y->program_id ? -1 : x->program_id > y->program_id;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static void note_bad(struct xp_hlo_db *db, const char *name, int64_t id, const char *why)
{
	db->bad_ids = xrealloc(db->bad_ids, (db->n_bad + 1) * sizeof *db->bad_ids);
	db->bad_ids[db->n_bad] = id;
	if (!db->n_bad++)
		snprintf(db->first_bad, sizeof db->first_bad, "program %" PRId64 " (%.80s): %.159s", id, name, why);
}

/* The program id of metadata entry E: its `program_id` stat where it has one (JAX 0.5 and later
 * number the entries 1, 2, ... and name them "jit_f(ID)"), else the entry's id, as older captures key
 * it and xprof reads it. */
static int64_t program_id_of(const struct xp_capture *c, const struct xp_plane *p, uint32_t e, uint32_t pid_sid)
{
	struct xp_value v;
	int64_t id;
	if (pid_sid && xp_view_find(c, xp_meta_stats(p, e), pid_sid, &v) && xp_value_int(&v, &id))
		return id;
	return p->emeta[e].id;
}

/* Every event metadata entry of a /host:metadata plane that carries a Hlo Proto stat. */
static void read_plane(const struct xp_capture *c, const struct xp_plane *p, struct xp_hlo_db *db)
{
	uint32_t sid = xp_plane_stat_id(c, p, "Hlo Proto");
	uint32_t pid_sid = xp_plane_stat_id(c, p, "program_id");
	if (!sid)
		return;
	for (uint32_t e = 1; e < p->n_emeta; e++) {
		struct xp_value v;
		if (!xp_view_find(c, xp_meta_stats(p, e), sid, &v))
			continue;
		const char *name = xp_str(c, p->emeta[e].name);
		int64_t program_id = program_id_of(c, p, e, pid_sid);
		if (v.kind != XP_STAT_BYTES) {
			note_bad(db, name, program_id, "the Hlo Proto stat is not bytes");
			continue;
		}
		struct xp_err why = {0};
		struct xp_hlo_module *m = xp_hlo_decode((const uint8_t *)v.s, v.len, program_id, &why);
		if (!m) {
			note_bad(db, name, program_id, why.msg);
			continue;
		}
		db->mods = xrealloc(db->mods, (db->n + 1) * sizeof *db->mods);
		db->mods[db->n++] = m;
	}
}

/* --- an `xpstat trace` export: the instructions its events name (xpstat.hlo.* args) ---------- */

static char *dup_n(const char *s, size_t n)
{
	char *d = strndup(s, n);
	if (!d)
		xp_oom();
	return d;
}

/* The export's stats of one plane, by name. */
struct exported_ids {
	uint32_t prog, module, instr, opcode, category, op_name, op_type, flops, bytes, elem_type, flops_gap, ambiguous;
};

static bool exported_ids(const struct xp_capture *c, const struct xp_plane *p, struct exported_ids *k)
{
#define ID(f, s) k->f = xp_plane_stat_id(c, p, "xpstat.hlo." s)
	ID(prog, "program_id"); ID(module, "module"); ID(instr, "instruction"); ID(opcode, "opcode");
	ID(category, "category"); ID(op_name, "op_name"); ID(op_type, "op_type"); ID(flops, "flops");
	ID(bytes, "bytes_accessed"); ID(elem_type, "elem_type"); ID(flops_gap, "flops_gap"); ID(ambiguous, "ambiguous");
#undef ID
	return k->prog && k->module && k->instr;
}

static char *event_str(const struct xp_capture *c, const struct xp_plane *p, const struct xp_line *l, uint64_t i,
		       uint32_t sid)
{
	struct xp_value v;
	if (!sid || !xp_event_find(c, p, l, i, sid, &v) || (v.kind != XP_STAT_STR && v.kind != XP_STAT_BLOBSTR))
		return dup_n("", 0);
	return dup_n(v.s, v.len);
}

static int64_t event_int(const struct xp_capture *c, const struct xp_plane *p, const struct xp_line *l, uint64_t i,
			 uint32_t sid)
{
	struct xp_value v;
	int64_t n = 0;
	if (sid && xp_event_find(c, p, l, i, sid, &v) && !xp_value_int(&v, &n))
		n = 0;
	return n;
}

static struct xp_hlo_module *module_of(struct xp_hlo_db *db, int64_t prog, const char *name)
{
	for (size_t m = 0; m < db->n; m++)
		if (db->mods[m]->program_id == prog)
			return db->mods[m];
	struct xp_hlo_module *m = xcalloc(1, sizeof *m);
	m->program_id = prog;
	m->module_id = prog;
	m->name = dup_n(name, strlen(name));
	db->mods = xrealloc(db->mods, (db->n + 1) * sizeof *db->mods);
	db->mods[db->n++] = m;
	return m;
}

static void exported_instr(const struct xp_capture *c, const struct xp_plane *p, const struct xp_line *l, uint64_t i,
			   const struct exported_ids *k, struct xp_hlo_module *m);

/* The instruction of an exported event, added to its module when it is new. */
static void exported_event(const struct xp_capture *c, const struct xp_plane *p, const struct xp_line *l, uint64_t i,
			   const struct exported_ids *k, struct xp_hlo_db *db)
{
	char *mod = event_str(c, p, l, i, k->module);
	int64_t prog = event_int(c, p, l, i, k->prog);
	struct xp_hlo_module *m = module_of(db, prog, mod);
	if (event_int(c, p, l, i, k->ambiguous)) {
		/* several programs of that name held the instruction: a second one keeps it ambiguous */
		exported_instr(c, p, l, i, k, module_of(db, INT64_MIN + (prog & INT32_MAX), mod));
	}
	free(mod);
	exported_instr(c, p, l, i, k, m);
}

static void exported_instr(const struct xp_capture *c, const struct xp_plane *p, const struct xp_line *l, uint64_t i,
			   const struct exported_ids *k, struct xp_hlo_module *m)
{
	char *name = event_str(c, p, l, i, k->instr);
	for (uint32_t j = 0; j < m->n_instrs; j++)
		if (!strcmp(m->instrs[j].name, name)) {
			free(name);
			return;
		}
	m->instrs = xrealloc(m->instrs, (m->n_instrs + 1) * sizeof *m->instrs);
	struct xp_hlo_instr *in = &m->instrs[m->n_instrs++];
	memset(in, 0, sizeof *in);
	in->id = m->n_instrs;
	in->name = name;
	in->opcode = event_str(c, p, l, i, k->opcode);
	in->category = event_str(c, p, l, i, k->category);
	in->op_name = event_str(c, p, l, i, k->op_name);
	in->op_type = event_str(c, p, l, i, k->op_type);
	in->source_file = dup_n("", 0);
	in->flops = (uint64_t)event_int(c, p, l, i, k->flops);
	in->bytes_accessed = (uint64_t)event_int(c, p, l, i, k->bytes);
	in->elem_type = (int)event_int(c, p, l, i, k->elem_type);
	in->flops_gap = (enum xp_hlo_cost_gap)event_int(c, p, l, i, k->flops_gap);
}

static const struct xp_hlo_module *sort_mod;

static int cmp_instr_name(const void *a, const void *b)
{
	return strcmp(sort_mod->instrs[*(const uint32_t *)a].name, sort_mod->instrs[*(const uint32_t *)b].name);
}

/* A trace JSON host written by `xpstat trace`: no HLO proto, but each resolved XLA event carries
 * what the proto said of its instruction. The modules are rebuilt from those. */
static void read_exported(const struct xp_capture *c, const struct xp_host *h, struct xp_hlo_db *db)
{
	for (uint32_t pi = 0; pi < h->n_planes; pi++) {
		const struct xp_plane *p = &h->planes[pi];
		struct exported_ids k;
		if (!exported_ids(c, p, &k))
			continue;
		/* the previous event's program and instruction (interned: one pointer per text) */
		int64_t last_prog = 0;
		const char *last_instr = NULL;
		for (uint32_t li = 0; li < p->n_lines; li++)
			for (uint64_t i = 0; i < p->lines[li].n_events; i++) {
				struct xp_value v, in;
				int64_t prog;
				const struct xp_line *l = &p->lines[li];
				if (!xp_event_find(c, p, l, i, k.prog, &v) || !xp_value_int(&v, &prog) ||
				    !xp_event_find(c, p, l, i, k.instr, &in))
					continue;
				if (in.kind == XP_STAT_STR && in.s == last_instr && prog == last_prog)
					continue;
				last_prog = prog;
				last_instr = in.kind == XP_STAT_STR ? in.s : NULL;
				exported_event(c, p, l, i, &k, db);
			}
	}
	for (size_t m = 0; m < db->n; m++) {
		struct xp_hlo_module *mod = db->mods[m];
		mod->by_name = xmalloc((mod->n_instrs + 1) * sizeof *mod->by_name);
		for (uint32_t j = 0; j < mod->n_instrs; j++)
			mod->by_name[j] = j;
		sort_mod = mod;
		qsort(mod->by_name, mod->n_instrs, sizeof *mod->by_name, cmp_instr_name);
	}
}

struct xp_hlo_db *xp_hlo_db_build(const struct xp_capture *c, const struct xp_host *h)
{
	struct xp_hlo_db *db = xcalloc(1, sizeof *db);
	for (uint32_t i = 0; i < h->n_planes; i++)
		if (!strcmp(xp_str(c, h->planes[i].base_name), "/host:metadata"))
			read_plane(c, &h->planes[i], db);
	if (!db->n && !db->n_bad && h->format == XP_FMT_TRACE_JSON)
		read_exported(c, h, db);
	if (db->n > 1)
		qsort(db->mods, db->n, sizeof *db->mods, cmp_program);
	if (db->n_bad > 1)
		qsort(db->bad_ids, db->n_bad, sizeof *db->bad_ids, cmp_i64);
	return db;
}

void xp_hlo_db_free(struct xp_hlo_db *db)
{
	if (!db)
		return;
	for (size_t i = 0; i < db->n; i++)
		xp_hlo_module_free(db->mods[i]);
	free(db->mods);
	free(db->bad_ids);
	free(db);
}

bool xp_hlo_db_unreadable(const struct xp_hlo_db *db, int64_t program_id)
{
	return db->n_bad && bsearch(&program_id, db->bad_ids, db->n_bad, sizeof *db->bad_ids, cmp_i64);
}

const char *xp_hlo_op_last(const char *s, size_t len, size_t *out_len)
{
	const char *start = s;
	for (size_t i = 0; i + 1 < len; i++)
		if (s[i] == ':' && s[i + 1] == ':')
			start = s + i + 2;
	*out_len = len - (size_t)(start - s);
	return start;
}

static bool same_name(const struct xp_hlo_module *m, const char *name, size_t len)
{
	return !strncmp(m->name, name, len) && !m->name[len];
}

bool xp_hlo_db_resolve(const struct xp_hlo_db *db, bool has_program_id, int64_t program_id, const char *module,
		       size_t module_len, const char *hlo_op, size_t hlo_op_len, struct xp_hlo_hit *out)
{
	size_t nlen;
	const char *name = xp_hlo_op_last(hlo_op, hlo_op_len, &nlen);
	*out = (struct xp_hlo_hit){0};
	for (size_t i = 0; i < db->n; i++) {
		const struct xp_hlo_module *m = db->mods[i];
		if (has_program_id ? m->program_id != program_id : !module || !same_name(m, module, module_len))
			continue;
		const struct xp_hlo_instr *in = xp_hlo_find(m, name, nlen);
		if (!in)
			continue;
		if (out->mod) {
			/* Events carry no program id here: several compilations of one name cannot be told apart. */
			out->ambiguous = true;
			break;
		}
		out->mod = m;
		out->in = in;
	}
	return out->mod != NULL;
}

void xp_hlo_framework_op(const struct xp_hlo_instr *in, char *buf, size_t len)
{
	if (!in->op_name[0])
		snprintf(buf, len, "%s", "");
	else
		snprintf(buf, len, "%s:%s", in->op_name, in->op_type);
}

const char *xp_hlo_db_problem(const struct xp_hlo_db *db)
{
	return db->n_bad ? db->first_bad : NULL;
}

void xp_hlo_diagnostics(struct xp_result *r, uint64_t n_bad, const char *problem, uint64_t events, uint64_t resolved,
			uint64_t ambiguous)
{
	if (n_bad)
		xp_result_diag(r, XP_SEV_WARNING, "hlo_proto_unreadable", NULL, NULL,
			       "%" PRIu64 " HLO protos of /host:metadata do not decode (%s); the XLA ops of those "
			       "programs are kept under their HLO op and module, without framework op or cost",
			       n_bad, problem ? problem : "");
	if (resolved < events && (resolved || n_bad))
		xp_result_diag(r, XP_SEV_INFO, "xla_events_unresolved", NULL, NULL,
			       "%" PRIu64 " of %" PRIu64 " XLA device events name no instruction of the capture's HLO "
			       "protos; they are kept under their HLO op and module", events - resolved, events);
	if (ambiguous)
		xp_result_diag(r, XP_SEV_INFO, "xla_program_ambiguous", NULL, NULL,
			       "%" PRIu64 " XLA device events carry no program id and their module name belongs to "
			       "several compiled programs that all hold the instruction; they are counted under the "
			       "module name, without FLOPs or bytes", ambiguous);
}
