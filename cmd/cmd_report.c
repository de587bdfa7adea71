/* cmd_report.c - `xpstat report`: every analysis from one decode and one preparation, as text, one JSON document or a CSV directory. */
#include "gate.h"

#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* "-o report.csv" that is not a directory yet: a file was meant, not the directory csv writes. */
static bool names_csv_file(const char *path)
{
	struct stat st;
	size_t n = strlen(path);
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return false;
	return n >= 4 && !strcasecmp(path + n - 4, ".csv");
}

enum { OPT_HOST_INDEX = 1, OPT_SHARD };

static const struct xp_opt report_opts[] = {
	{"host-index", 1, OPT_HOST_INDEX, "I", "only the I-th capture file of the run (from 0, by file name): one "
	 "job array task per host ($SLURM_ARRAY_TASK_ID)"},
	{"shard", 1, OPT_SHARD, "I/N", "only the capture files at positions I, I+N, I+2N, ... (from 0, by file "
	 "name): N tasks for any number of hosts"},
	{NULL, 0, 0, NULL, NULL},
};

static int report_set(struct xp_ctx *ctx, int key, const char *arg)
{
	long i, n = -1;
	const char *slash = strchr(arg, '/');
	char num[32];
	size_t len = slash ? (size_t)(slash - arg) : strlen(arg);
	bool ok = len < sizeof num;
	if (ok) {
		memcpy(num, arg, len);
		num[len] = 0;
		ok = xp_parse_int(num, 0, 1L << 30, &i);
	}
	if (key == OPT_SHARD)
		ok = ok && slash && xp_parse_int(slash + 1, 1, 1L << 30, &n) && i < n;
	else
		ok = ok && !slash;
	if (!ok)
		return xp_usage_error(ctx, key == OPT_SHARD ? "--shard needs I/N with 0 <= I < N (3/16), not '%s'"
							     : "--host-index needs a number from 0, not '%s'", arg);
	ctx->shard_i = i;
	ctx->shard_n = n;
	return 0;
}

static int report_run(struct xp_ctx *ctx)
{
	bool csv = !strcmp(ctx->format, "csv");
	if (csv && !ctx->output && !ctx->table)
		return xp_usage_error(ctx, "--format csv writes one file per table: give -o DIR (or --table "
				      "ANALYSIS-TABLE for one table on standard output)");
	if (csv && !ctx->table && ctx->output && names_csv_file(ctx->output))
		return xp_usage_error(ctx, "-o %s: --format csv writes one file per table into a directory: give -o DIR, "
				      "or --table ANALYSIS-TABLE -o %s for one table", ctx->output, ctx->output);
	struct xp_report *rep;
	uint32_t hosts = 0;
	ctx->memory_timeline = !strcmp(ctx->format, "html");
	ctx->report_state = !strcmp(ctx->format, "json");
	int rc = xp_gate_load_captures(ctx, &rep, &hosts);
	if (rc)
		return rc;
	rc = xp_gate_emit_report(ctx, rep, hosts);
	xp_report_free(rep);
	return rc;
}

const struct xp_cmd xp_cmd_report = {
	.name = "report",
	.summary = "Run every analysis in one pass: text, one JSON document (a baseline for check), a CSV directory, "
		   "an offline HTML page with charts, or Markdown",
	.args = "PATH...",
	.min_paths = 1,
	.opts = report_opts,
	.set_opt = report_set,
	.run = report_run,
	.analyses = xp_analyses,
};
