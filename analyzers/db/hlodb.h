/* hlodb.h - the HLO modules of one host (its /host:metadata plane), and XLA device events resolved to their instruction. */
#ifndef XPSTAT_HLODB_H
#define XPSTAT_HLODB_H

#include "formats/in/hlo.h"
#include "formats/model/capture.h"

struct xp_hlo_db {
	size_t n;
	struct xp_hlo_module **mods;    /* ascending program id */
	uint64_t n_bad;                 /* Hlo Proto stats that did not decode */
	char first_bad[320];            /* "program N (name): why" of the first of them */
	int64_t *bad_ids;               /* their program ids, ascending once built */
};

/* The modules of host H (an empty db when it has none); never fails on bad protos (n_bad). */
struct xp_hlo_db *xp_hlo_db_build(const struct xp_capture *c, const struct xp_host *h);
void xp_hlo_db_free(struct xp_hlo_db *db);

/* What an XLA device event resolves to. */
struct xp_hlo_hit {
	const struct xp_hlo_module *mod;    /* NULL when unresolved */
	const struct xp_hlo_instr *in;
	bool ambiguous;                     /* several programs of that name hold the instruction: mod is the first */
};

/* Resolve (program id when the event has one, else its hlo_module name; the hlo_op name, whose last
 * "::" part is the instruction). Returns false when no module holds that instruction. */
bool xp_hlo_db_resolve(const struct xp_hlo_db *db, bool has_program_id, int64_t program_id, const char *module,
		       size_t module_len, const char *hlo_op, size_t hlo_op_len, struct xp_hlo_hit *out);
/* Whether the program of that id carried a Hlo Proto stat that did not decode: its events must not be
 * resolved by module name to another compilation of the same name. */
bool xp_hlo_db_unreadable(const struct xp_hlo_db *db, int64_t program_id);
/* The instruction part of an hlo_op stat ("a::b" -> "b"). */
const char *xp_hlo_op_last(const char *s, size_t len, size_t *out_len);
/* The framework op of an instruction as xprof names it: "op_name:op_type" ("" when it has no op_name). */
void xp_hlo_framework_op(const struct xp_hlo_instr *in, char *buf, size_t len);
/* A diagnostic-ready line for a host whose HLO protos did not all decode, or NULL. */
const char *xp_hlo_db_problem(const struct xp_hlo_db *db);

struct xp_result;
/* The diagnostics every analysis of XLA device ops gives: HLO protos that did not decode (one line for
 * the capture), XLA events no proto resolved, events resolved to one of several same-named programs. */
void xp_hlo_diagnostics(struct xp_result *r, uint64_t n_bad, const char *problem, uint64_t events, uint64_t resolved,
			uint64_t ambiguous);

#endif
