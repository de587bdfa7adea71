/* out_report.c - writing a report (several results) as text, as one JSON document, or as a directory of CSV files. */
#include "out_report.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/*
 * Text: the report's verdict, the table "verdicts" (each analysis and its
 * verdict), then each analysis under a "== COMMAND ==" heading, as its own
 * command prints it less its verdict line.
 * JSON: {"schema_version": 1, "command": "report", "verdict": ...,
 * "inputs": [...], "reports": {"<key>": <the analysis' own document>, ...}}
 * with keys in report order; each nested document is exactly what
 * `xpstat COMMAND --format json` writes, so its schema applies to it.
 * CSV: one file DIR/<key>-<table>.csv per table, each written atomically.
 */

static void oom(void)
{
	fputs("xpstat: out of memory\n", stderr);
	abort();
}

static cJSON *ok(cJSON *item)
{
	if (!item)
		oom();
	return item;
}

static void jadd(cJSON *obj, const char *key, cJSON *item)
{
	char *clean = xp_utf8_sanitize(key);
	if (!cJSON_AddItemToObject(obj, clean, item))
		oom();
	free(clean);
}

static cJSON *jstr(const char *s)
{
	char *clean = xp_utf8_sanitize(s ? s : "");
	cJSON *item = ok(cJSON_CreateString(clean));
	free(clean);
	return item;
}

/* Each analysis' document is built on its own thread (they are independent), then nested in order. */
struct builder {
	const struct xp_report *rep;
	cJSON **docs;
	size_t next;
	pthread_mutex_t lock;
};

static void *build_docs(void *arg)
{
	struct builder *b = arg;
	for (;;) {
		pthread_mutex_lock(&b->lock);
		size_t i = b->next++;
		pthread_mutex_unlock(&b->lock);
		if (i >= b->rep->n)
			return NULL;
		b->docs[i] = ok(xp_json_document(b->rep->sec[i].r));
	}
}

static cJSON **build_all(const struct xp_report *rep, int threads)
{
	struct builder b = {.rep = rep, .docs = calloc(rep->n ? rep->n : 1, sizeof(cJSON *))};
	if (!b.docs)
		oom();
	size_t want = threads > 1 ? (size_t)threads : 1, helpers = 0;
	if (want > rep->n)
		want = rep->n ? rep->n : 1;
	pthread_t *tid = calloc(want, sizeof *tid);
	if (!tid)
		oom();
	pthread_mutex_init(&b.lock, NULL);
	for (size_t t = 1; t < want; t++)
		if (!pthread_create(&tid[helpers], NULL, build_docs, &b))
			helpers++;
	build_docs(&b);
	for (size_t t = 0; t < helpers; t++)
		pthread_join(tid[t], NULL);
	pthread_mutex_destroy(&b.lock);
	free(tid);
	return b.docs;
}

int xp_report_write_json(const struct xp_report *rep, const char *verdict, char *const *inputs, size_t n_inputs,
			 int threads, FILE *f)
{
	cJSON *doc = ok(cJSON_CreateObject()), *in = ok(cJSON_CreateArray()), *reports = ok(cJSON_CreateObject());
	char num[16];
	snprintf(num, sizeof num, "%d", XP_SCHEMA_VERSION);
	jadd(doc, "schema_version", ok(cJSON_CreateRaw(num)));
	jadd(doc, "command", jstr("report"));
	jadd(doc, "verdict", jstr(verdict));
	for (size_t i = 0; i < n_inputs; i++)
		if (!cJSON_AddItemToArray(in, jstr(inputs[i])))
			oom();
	jadd(doc, "inputs", in);
	cJSON **docs = build_all(rep, threads);
	for (size_t i = 0; i < rep->n; i++)
		jadd(reports, rep->sec[i].key, docs[i]);
	free(docs);
	jadd(doc, "reports", reports);
	char *text = cJSON_Print(doc);
	cJSON_Delete(doc);
	if (!text)
		oom();
	fputs(text, f);
	fputc('\n', f);
	cJSON_free(text);
	return 0;
}

int xp_report_write_text(const struct xp_report *rep, const char *verdict, FILE *f, const struct xp_out_opts *o)
{
	struct xp_result *head = xp_result_new("report");
	xp_result_set_verdict(head, "%s", verdict);
	struct xp_table *t = xp_result_add_table(head, "verdicts", "Verdicts");
	size_t c_a = xp_table_col(t, "analysis", "Analysis", XP_T_STR, XP_U_NONE, 0);
	size_t c_v = xp_table_col(t, "verdict", "Verdict", XP_T_STR, XP_U_NONE, 0);
	for (size_t i = 0; i < rep->n; i++) {
		size_t row = xp_table_row(t);
		xp_set_str(t, row, c_a, rep->sec[i].command);
		xp_set_str(t, row, c_v, rep->sec[i].r->verdict ? rep->sec[i].r->verdict : "-");
	}
	int rc = xp_writer_text.write(head, f, o);
	xp_result_free(head);
	for (size_t i = 0; !rc && i < rep->n; i++) {
		struct xp_result *r = rep->sec[i].r;
		char *v = r->verdict;
		fprintf(f, "\n== %s ==\n", rep->sec[i].command);
		/* The verdict was shown above: the section starts with its summary. */
		r->verdict = NULL;
		rc = xp_writer_text.write(r, f, o);
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
		oom();
	for (size_t i = 0; i < rep->n; i++)
		for (size_t j = 0; j < rep->sec[i].r->n_tables; j++)
			if (asprintf(&v[k++], "%s-%s", rep->sec[i].key, rep->sec[i].r->tables[j]->name) < 0)
				oom();
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

int xp_report_write_csv_table(const struct xp_report *rep, const char *name, FILE *f, const struct xp_out_opts *o)
{
	size_t sec;
	const char *table;
	if (!find_table(rep, name, &sec, &table)) {
		char **names;
		size_t n = xp_report_csv_names(rep, &names);
		fprintf(stderr, "xpstat: report: no table '%s'; tables:", name);
		for (size_t i = 0; i < n; i++) {
			fprintf(stderr, "%s %s", i ? "," : "", names[i]);
			free(names[i]);
		}
		fputc('\n', stderr);
		free(names);
		return XP_EXIT_USAGE;
	}
	struct xp_out_opts oo = *o;
	oo.table = table;
	return xp_writer_csv.write(rep->sec[sec].r, f, &oo);
}

static int write_one(const struct xp_result *r, const char *table, const char *path, const struct xp_out_opts *o)
{
	struct xp_outfile of;
	if (xp_outfile_open(&of, path)) {
		fprintf(stderr, "xpstat: %s: cannot create: %s\n", path, strerror(errno));
		return XP_EXIT_USAGE;
	}
	struct xp_out_opts oo = *o;
	oo.table = table;
	int rc = xp_writer_csv.write(r, of.f, &oo);
	if (rc) {
		xp_outfile_abort(&of);
		return rc;
	}
	if (xp_outfile_commit(&of)) {
		fprintf(stderr, "xpstat: %s: cannot write: %s\n", path, strerror(errno));
		return XP_EXIT_INTERNAL;
	}
	return 0;
}

int xp_report_write_csv_dir(const struct xp_report *rep, const char *dir, const struct xp_out_opts *o)
{
	struct stat st;
	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "xpstat: %s: cannot create the directory: %s\n", dir, strerror(errno));
		return XP_EXIT_USAGE;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "xpstat: %s: not a directory (report --format csv writes one file per table into -o DIR)\n",
			dir);
		return XP_EXIT_USAGE;
	}
	int rc = 0;
	for (size_t i = 0; !rc && i < rep->n; i++) {
		const struct xp_result *r = rep->sec[i].r;
		for (size_t j = 0; !rc && j < r->n_tables; j++) {
			char *path;
			if (asprintf(&path, "%s/%s-%s.csv", dir, rep->sec[i].key, r->tables[j]->name) < 0)
				oom();
			rc = write_one(r, r->tables[j]->name, path, o);
			free(path);
		}
	}
	return rc;
}
