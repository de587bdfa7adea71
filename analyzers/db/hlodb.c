/* hlodb.c - the HLO modules of one host, decoded from the Hlo Proto stats of /host:metadata, and event resolution. */
#include "hlodb.h"
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

static void note_bad(struct xp_hlo_db *db, const char *name, int64_t id, const char *why)
{
	if (!db->n_bad++)
		snprintf(db->first_bad, sizeof db->first_bad, "program %" PRId64 " (%.80s): %s", id, name, why);
}

/* Every event metadata entry of a /host:metadata plane that carries a Hlo Proto stat. */
static void read_plane(const struct xp_capture *c, const struct xp_plane *p, struct xp_hlo_db *db)
{
	uint32_t sid = xp_plane_stat_id(c, p, "Hlo Proto");
	if (!sid)
		return;
	for (uint32_t e = 1; e < p->n_emeta; e++) {
		struct xp_value v;
		if (!xp_view_find(c, xp_meta_stats(p, e), sid, &v))
			continue;
		const char *name = xp_str(c, p->emeta[e].name);
		if (v.kind != XP_STAT_BYTES) {
			note_bad(db, name, p->emeta[e].id, "the Hlo Proto stat is not bytes");
			continue;
		}
		char why[160];
		struct xp_hlo_module *m = xp_hlo_decode((const uint8_t *)v.s, v.len, p->emeta[e].id, why, sizeof why);
		if (!m) {
			note_bad(db, name, p->emeta[e].id, why);
			continue;
		}
		db->mods = xrealloc(db->mods, (db->n + 1) * sizeof *db->mods);
		db->mods[db->n++] = m;
	}
}

struct xp_hlo_db *xp_hlo_db_build(const struct xp_capture *c, const struct xp_host *h)
{
	struct xp_hlo_db *db = xcalloc(1, sizeof *db);
	for (uint32_t i = 0; i < h->n_planes; i++)
		if (!strcmp(xp_str(c, h->planes[i].base_name), "/host:metadata"))
			read_plane(c, &h->planes[i], db);
	if (db->n > 1)
		qsort(db->mods, db->n, sizeof *db->mods, cmp_program);
	return db;
}

void xp_hlo_db_free(struct xp_hlo_db *db)
{
	if (!db)
		return;
	for (size_t i = 0; i < db->n; i++)
		xp_hlo_module_free(db->mods[i]);
	free(db->mods);
	free(db);
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
