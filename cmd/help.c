/* help.c - per-command help: the global options that apply, examples and table names; `xpstat help CMD`. */
#include "help.h"

#include <stdio.h>
#include <string.h>

/* What `xpstat CMD --help` adds to the command's own options. Kept beside the
 * command table so that the docs suite can hold the man pages to it. */
struct cmd_help {
	const char *name;
	const char *globals;    /* the global options that apply, by name */
	const char *tables;     /* the names --table and the JSON document use */
	const char *examples;
};

#define LOADS "format output host run threads color wide csv-raw max-input-bytes quiet"
#define STEPS LOADS " step-marker compat"

static const struct cmd_help helps[] = {
	{"info", LOADS " table", "hosts planes devices analyses lines",
	 "xpstat info logs/\n"
	 "xpstat info --format json run/host.xplane.pb\n"},
	{"runs", "format output table color wide csv-raw quiet", "runs run_hosts",
	 "xpstat runs logs/\n"
	 "xpstat runs --format csv --table run_hosts logs/\n"},
	{"overview", STEPS " table charts", "step_time top_ops run_environment recommendation",
	 "xpstat overview logs/\n"
	 "xpstat overview --run 2024_01_02_10_11_12 --host worker-0 logs/\n"
	 "xpstat overview --format csv --table top_ops logs/\n"},
	{"steps", STEPS " charts", "steps",
	 "xpstat steps logs/\n"
	 "xpstat steps --step-marker '^train_step$' trace.json.gz\n"
	 "xpstat steps --format csv -o steps.csv logs/\n"
	 "xpstat steps --charts always logs/ | less -R\n"},
	{"pod", STEPS " table", "hosts steps",
	 "xpstat pod logs/plugins/profile/RUN\n"
	 "xpstat pod --format json logs/\n"},
	{"input-pipeline", STEPS " table", "step_stats steps host_breakdown input_ops recommendation",
	 "xpstat input-pipeline logs/\n"
	 "xpstat input-pipeline --format csv --table input_ops logs/\n"},
	{"tf-data", LOADS " table", "bottleneck_analysis input_pipelines slowest_call calls",
	 "xpstat tf-data logs/\n"
	 "xpstat tf-data --format json logs/\n"},
	{"tf-stats", LOADS " compat table", "tf_stats hlo_ops operators",
	 "xpstat tf-stats logs/\n"
	 "xpstat tf-stats --device-only --top 10 logs/\n"},
	{"kernel-stats", LOADS " compat", "kernels",
	 "xpstat kernel-stats logs/\n"
	 "xpstat kernel-stats --op 'MatMul|Conv' --sort avg logs/\n"
	 "xpstat kernel-stats --format csv -o kernels.csv logs/\n"},
	{"memory", LOADS " compat table", "allocators breakdown timeline devices",
	 "xpstat memory logs/\n"
	 "xpstat memory --breakdown --allocator GPU_0_bfc logs/\n"
	 "xpstat memory --timeline --format csv --table timeline logs/\n"},
	{"report", STEPS " table charts", "the tables of every other command, named COMMAND.TABLE",
	 "xpstat report logs/\n"
	 "xpstat report --format json -o baseline.json logs/\n"
	 "xpstat report --format csv -o report-dir logs/\n"
	 "xpstat report --format html -o report.html logs/\n"
	 "xpstat report --host-index 3 --format json -o 3.json.zst RUN/\n"},
	{"check", STEPS " table", "checks",
	 "xpstat check --max-step-time 120ms logs/\n"
	 "xpstat check --baseline baseline.json --max-regression 5% logs/\n"
	 "xpstat check --max-op-self-time 'MatMul=10ms' --format junit -o gate.xml logs/\n"
	 "xpstat check --baseline b.json -f markdown logs/ >> \"$GITHUB_STEP_SUMMARY\"\n"},
	{"compare", STEPS " table", "step_time ops kernels comparability",
	 "xpstat compare baseline.json logs/\n"
	 "xpstat compare --format csv --table ops old/ new/\n"
	 "xpstat compare --format html -o compare.html baseline.json logs/\n"},
	{"trace", "output host run threads max-input-bytes quiet step-marker compat", "",
	 "xpstat trace --steps 12 -o step12.json.gz logs/\n"
	 "xpstat trace --window 1.5s:1.6s --plane '^/device:GPU:0$' -o gpu0.json.zst run/host.xplane.pb\n"
	 "xpstat trace --steps 10:12 --line 'Stream' --min-duration 10us -o kernels.json logs/\n"},
	{"combine", "format output csv-raw quiet compat max-input-bytes", "",
	 "xpstat combine --format json -o run.json r/*.json.zst\n"
	 "xpstat combine --format csv -o run-csv r/*.json.zst\n"},
};

static const struct cmd_help *find_help(const char *name)
{
	for (size_t i = 0; i < sizeof helps / sizeof helps[0]; i++)
		if (!strcmp(helps[i].name, name))
			return &helps[i];
	return NULL;
}

/* Is word a whole word of the space-separated list? */
static bool in_list(const char *list, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

/* Help is prose: it wraps at 80 columns so that it reads in any terminal. */
#define HELP_WIDTH 80
#define OPT_INDENT 29


void xp_print_wrapped(FILE *f, const char *text, size_t col, size_t indent)
{
	const char *p = text;
	while (*p) {
		size_t w = strcspn(p, " ");
		if (col > indent && col + 1 + w > HELP_WIDTH) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, w, f);
		col += w;
		p += w;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

void xp_print_opts(FILE *f, const struct xp_opt *o, const char *only)
{
	for (; o && o->name; o++) {
		if (only && !in_list(only, o->name))
			continue;
		char left[64];
		snprintf(left, sizeof left, "--%s%s%s", o->name, o->arg_name ? " " : "", o->arg_name ? o->arg_name : "");
		int n = fprintf(f, "  %-26s ", left);
		xp_print_wrapped(f, o->help, n > 0 ? (size_t)n : OPT_INDENT, OPT_INDENT);
	}
}

static void print_indented(FILE *f, const char *lines)
{
	for (const char *p = lines; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		fprintf(f, "  %.*s\n", (int)n, p);
		p += n + (nl != NULL);
	}
}

void xp_print_cmd_help(FILE *f, const struct xp_cmd *c, const struct xp_opt *globals)
{
	const struct cmd_help *h = find_help(c->name);
	char summary[512];
	snprintf(summary, sizeof summary, "%s.", c->summary);
	fprintf(f, "Usage: xpstat %s [OPTIONS] %s\n\n", c->name, c->args);
	xp_print_wrapped(f, summary, 0, 0);
	if (c->opts && c->opts->name) {
		fputs("\nOptions:\n", f);
		xp_print_opts(f, c->opts, NULL);
	}
	fputs("\nGlobal options:\n", f);
	xp_print_opts(f, globals, h ? h->globals : NULL);
	xp_print_opts(f, globals, "help version");
	if (h) {
		if (*h->tables) { /* trace writes events, not tables */
			fputs("\nTables:", f);
			xp_print_wrapped(f, h->tables, 7, 2);
		}
		fputs("\nExamples:\n", f);
		print_indented(f, h->examples);
	}
	fprintf(f, "\nSee 'man xpstat-%s'.\n", c->name);
}
