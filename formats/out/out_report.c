/* out_report.c - writing a report (several results) as text, as one JSON document, or as a directory of CSV files. */
#include "out_report.h"
#include "formats/core/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/*
 * Text: the report's verdict, the table "verdicts" (each analysis and its
 * verdict), then each analysis under a "== COMMAND ==" heading, as its own
 * command prints it less its verdict line.
 * JSON (streamed, laid out like every other document): {"schema_version": 1, "command": "report", "verdict": ...,
 * "inputs": [...], "reports": {"<key>": <the analysis' own document>, ...}}
 * with keys in report order; each nested document is exactly what
 * `xpstat COMMAND --format json` writes, so its schema applies to it.
 * CSV: one file DIR/<key>-<table>.csv per table, each written atomically.
 */

int xp_report_write_json(const struct xp_report *rep, const char *verdict, char *const *inputs, size_t n_inputs,
			 FILE *f)
{
	putc('{', f);
	xp_json_member(f, 0, true, "schema_version");
	fprintf(f, "%d", XP_SCHEMA_VERSION);
	xp_json_member(f, 0, false, "command");
	xp_json_put_string(f, "report");
	xp_json_member(f, 0, false, "verdict");
	xp_json_put_string(f, verdict ? verdict : "");
	xp_json_member(f, 0, false, "inputs");
	putc('[', f);
	for (size_t i = 0; i < n_inputs; i++) {
		if (i)
			fputs(", ", f);
		xp_json_put_string(f, inputs[i] ? inputs[i] : "");
	}
	putc(']', f);
	if (rep->version)
		xp_json_put_provenance(f, rep);
	xp_json_member(f, 0, false, "reports");
	putc('{', f);
	for (size_t i = 0; i < rep->n; i++) {
		xp_json_member(f, 1, i == 0, rep->sec[i].key);
		xp_json_put_result(f, rep->sec[i].r, 2);
	}
	xp_json_object_end(f, 1);
	if (rep->state) {
		xp_json_member(f, 0, false, "state");
		xp_json_put_result(f, rep->state, 1);
	}
	xp_json_object_end(f, 0);
	putc('\n', f);
	return 0;
}

/* The verdicts table: one row per analysis. */
enum { VC_A, VC_V };
static const struct xp_col_def verdict_cols[] = {
	[VC_A] = {"analysis", "Analysis", XP_T_STR},
	[VC_V] = {"verdict", "Verdict", XP_T_STR},
};

int xp_report_write_text(const struct xp_report *rep, const char *verdict, FILE *f, const struct xp_out_opts *o,
			 struct xp_err *e)
{
	struct xp_result *head = xp_result_new("report");
	xp_result_set_verdict(head, "%s", verdict);
	struct xp_table *t = xp_result_add_table(head, "verdicts", "Verdicts");
	xp_table_cols(t, XP_COLS(verdict_cols));
	for (size_t i = 0; i < rep->n; i++) {
		size_t row = xp_table_row(t);
		xp_set_str(t, row, VC_A, rep->sec[i].command);
		xp_set_str(t, row, VC_V, rep->sec[i].r->verdict ? rep->sec[i].r->verdict : "-");
	}
	int rc = xp_writer_text.write(head, f, o, e);
	xp_result_free(head);
	/* A report is read section by section: each table shows its top rows;
	 * --wide shows them all, CSV and JSON always do. */
	struct xp_out_opts top = *o;
	top.provenance = NULL;  /* said once, under the report's verdict */
	if (!o->wide)
		top.max_rows = XP_TEXT_REPORT_ROWS;
	o = &top;
	for (size_t i = 0; !rc && i < rep->n; i++) {
		struct xp_result *r = rep->sec[i].r;
		char *v = r->verdict;
		fprintf(f, "\n== %s ==\n", rep->sec[i].command);
		/* The verdict was shown above: the section starts with its summary. */
		r->verdict = NULL;
		rc = xp_writer_text.write(r, f, o, e);
		r->verdict = v;
	}
	return rc;
}

size_t xp_report_csv_names(const struct xp_report *rep, char ***names)
{
	size_t n = 0, k = 0;
	for (size_t i = 0; i < rep->n; i++)
		n += rep->sec[i].r->n_tables;
	char **v = calloc(n ? n : 1, sizeof *v);
	if (!v)
		xp_oom();
	for (size_t i = 0; i < rep->n; i++)
		for (size_t j = 0; j < rep->sec[i].r->n_tables; j++)
			if (asprintf(&v[k++], "%s-%s", rep->sec[i].key, rep->sec[i].r->tables[j]->name) < 0)
				xp_oom();
	*names = v;
	return n;
}

/* The section and table of "<key>-<table>", or false. */
static bool find_table(const struct xp_report *rep, const char *name, size_t *sec, const char **table)
{
	for (size_t i = 0; i < rep->n; i++) {
		size_t kl = strlen(rep->sec[i].key);
		if (strncmp(name, rep->sec[i].key, kl) || name[kl] != '-')
			continue;
		if (xp_result_table(rep->sec[i].r, name + kl + 1)) {
			*sec = i;
			*table = name + kl + 1;
			return true;
		}
	}
	return false;
}

int xp_report_write_csv_table(const struct xp_report *rep, const char *name, FILE *f, const struct xp_out_opts *o,
			      struct xp_err *e)
{
	size_t sec;
	const char *table;
	if (!find_table(rep, name, &sec, &table)) {
		char **names, list[sizeof e->msg] = "";
		size_t n = xp_report_csv_names(rep, &names), len = 0;
		for (size_t i = 0; i < n; i++) {
			if (len < sizeof list)
				len += (size_t)snprintf(list + len, sizeof list - len, "%s %s", i ? "," : "", names[i]);
			free(names[i]);
		}
		free(names);
		return xp_err_set(e, XP_EXIT_USAGE, NULL, "report: no table '%s'; tables:%s", name, list), XP_EXIT_USAGE;
	}
	struct xp_out_opts oo = *o;
	oo.table = table;
	return xp_writer_csv.write(rep->sec[sec].r, f, &oo, e);
}

static int write_one(const struct xp_result *r, const char *table, struct xp_outdir *d, const char *name,
		     const struct xp_out_opts *o, struct xp_err *e)
{
	struct xp_outfile of;
	if (xp_outdir_file(d, name, &of))
		return xp_err_set(e, XP_EXIT_INTERNAL, d->path, "%s: cannot create: %s", name, strerror(errno)),
		       XP_EXIT_INTERNAL;
	struct xp_out_opts oo = *o;
	oo.table = table;
	int rc = xp_writer_csv.write(r, of.f, &oo, e);
	if (rc) {
		xp_outfile_abort(&of);
		return rc;
	}
	if (xp_outfile_commit(&of))
		return xp_err_set(e, XP_EXIT_INTERNAL, d->path, "%s: cannot write: %s", name, strerror(errno)),
		       XP_EXIT_INTERNAL;
	return 0;
}

/* Every table into a temporary directory renamed DIR at the end: a failure or
 * a signal half-way leaves nothing behind. */
int xp_report_write_csv_dir(const struct xp_report *rep, const char *dir, const struct xp_out_opts *o,
			    struct xp_err *e)
{
	struct stat st;
	if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
		return xp_err_set(e, XP_EXIT_INTERNAL, dir,
				  "not a directory (report --format csv writes one file per table into -o DIR)"),
		       XP_EXIT_INTERNAL;
	struct xp_outdir d;
	if (xp_outdir_open(&d, dir))
		return xp_err_set(e, XP_EXIT_INTERNAL, dir, "cannot create the directory: %s", strerror(errno)),
		       XP_EXIT_INTERNAL;
	int rc = 0;
	for (size_t i = 0; !rc && i < rep->n; i++) {
		const struct xp_result *r = rep->sec[i].r;
		for (size_t j = 0; !rc && j < r->n_tables; j++) {
			char *name;
			if (asprintf(&name, "%s-%s.csv", rep->sec[i].key, r->tables[j]->name) < 0)
				xp_oom();
			rc = write_one(r, r->tables[j]->name, &d, name, o, e);
			free(name);
		}
	}
	if (rc) {
		xp_outdir_abort(&d);
	} else if (xp_outdir_commit(&d)) {
		xp_err_set(e, XP_EXIT_INTERNAL, dir, "cannot write: %s", strerror(errno));
		rc = XP_EXIT_INTERNAL;
	}
	return rc;
}
