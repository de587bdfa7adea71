/* main.c - global options, the command table, help text and the mapping to exit statuses. */
#include "cmd.h"
#include "help.h"
#include "config.h"
#include "formats/core/work.h"
#include "formats/core/suggest.h"
#include "formats/core/xalloc.h"
#include "formats/out/out.h"

#include <getopt.h>
#include <locale.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* When you add a command: add it here, give it cmd/cmd_<name>.c, a man page
 * man/xpstat-<name>.1.scd, a JSON Schema schemas/<name>.schema.json and a
 * golden test; the docs suite checks that they agree. */
static const struct xp_cmd *const commands[] = {
	&xp_cmd_info,
	&xp_cmd_runs,
	&xp_cmd_overview,
	&xp_cmd_steps,
	&xp_cmd_pod,
	&xp_cmd_input_pipeline,
	&xp_cmd_tf_data,
	&xp_cmd_tf_stats,
	&xp_cmd_kernel_stats,
	&xp_cmd_memory,
	&xp_cmd_report,
	&xp_cmd_check,
	&xp_cmd_compare,
	&xp_cmd_trace,
	&xp_cmd_combine,
};
#define N_COMMANDS (sizeof commands / sizeof *commands)

enum {
	G_FORMAT = 1000, G_OUTPUT, G_HOST, G_RUN, G_THREADS, G_COLOR, G_QUIET, G_CSV_RAW, G_TABLE, G_MAX_INPUT,
	G_STEP_MARKER, G_COMPAT, G_WIDE, G_CHARTS, G_HELP, G_VERSION
};

/* --format's help, made from the writer registry (format_help_init): each format and the commands it is
 * only for. */
static char format_help[256];

static void format_help_init(void)
{
	size_t n = (size_t)snprintf(format_help, sizeof format_help, "output format:");
	for (size_t i = 0; xp_writer_at(i) && n < sizeof format_help; i++) {
		const struct xp_writer *w = xp_writer_at(i);
		n += (size_t)snprintf(format_help + n, sizeof format_help - n, "%s %s%s%s%s", i ? "," : "", w->name,
				      i ? "" : " (default)", w->only ? " for " : "", w->only ? w->only : "");
	}
	if (n < sizeof format_help)
		snprintf(format_help + n, sizeof format_help - n, "; also -f");
}

static const struct xp_opt global_opts[] = {
	{"format", 1, G_FORMAT, "FMT", format_help},
	{"output", 1, G_OUTPUT, "FILE", "write to FILE (atomically) instead of standard output; also -o"},
	{"host", 1, G_HOST, "NAME", "only the host NAME (':' and '_' are the same)"},
	{"run", 1, G_RUN, "NAME", "the run NAME of a logdir instead of the newest"},
	{"table", 1, G_TABLE, "NAME", "the table NAME: CSV writes it (default: the main table), text shows it alone, JSON keeps every table"},
	{"threads", 1, G_THREADS, "N", "decode with N threads (default and 0: all cores); also -j"},
	{"color", 1, G_COLOR, "WHEN", "colour in text output: auto (default), always or never"},
	{"csv-raw", 0, G_CSV_RAW, NULL, "CSV: do not neutralize text cells that look like formulas"},
	{"max-input-bytes", 1, G_MAX_INPUT, "N", "refuse inputs that decompress to more than N bytes (default: physical memory)"},
	{"step-marker", 1, G_STEP_MARKER, "REGEX", "every host event whose name matches REGEX is one step (captures without step markers)"},
	{"compat", 1, G_COMPAT, "MODE", "xpstat (default) or xprof: step breakdown as current xprof computes it"},
	{"wide", 0, G_WIDE, NULL, "text: do not fit the terminal's width (COLUMNS) nor cut long tables"},
	{"charts", 1, G_CHARTS, "WHEN", "text charts (steps, overview): auto (default: on a terminal), always or never"},
	{"quiet", 0, G_QUIET, NULL, "no progress messages; also -q"},
	{"help", 0, G_HELP, NULL, "show help and exit; also -h"},
	{"version", 0, G_VERSION, NULL, "show the version and exit; also -V"},
	{NULL, 0, 0, NULL, NULL},
};

static const struct xp_cmd *find_command(const char *name)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (!strcmp(commands[i]->name, name))
			return commands[i];
	return NULL;
}

static int unknown_command(const char *name)
{
	const char *names[N_COMMANDS];
	for (size_t i = 0; i < N_COMMANDS; i++)
		names[i] = commands[i]->name;
	char hint[256];
	xp_did_you_mean(hint, sizeof hint, name, names, N_COMMANDS, false, 3);
	xp_eprintf("xpstat: unknown command '%s'%s\n", name, hint);
	fputs("xpstat: run 'xpstat --help' for the list of commands\n", stderr);
	return XP_EXIT_USAGE;
}

/* Names of the options known to command c (every command's when c is NULL),
 * for suggestions; returns how many went into names. */
static size_t option_names(const struct xp_cmd *c, const char **names, size_t max)
{
	size_t n = 0;
	for (const struct xp_opt *o = global_opts; o->name && n < max; o++)
		names[n++] = o->name;
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (!c || commands[i] == c)
			for (const struct xp_opt *o = commands[i]->opts; o && o->name && n < max; o++)
				names[n++] = o->name;
	return n;
}

/* "unknown option '--fromat'; did you mean '--format'?", or which command an
 * option belongs to when it is another command's. */
static int unknown_option(const struct xp_ctx *ctx, const char *arg)
{
	if (strncmp(arg, "--", 2))
		return xp_usage_error(ctx, "unknown option '%s'", arg);
	char name[128];
	snprintf(name, sizeof name, "%.*s", (int)strcspn(arg + 2, "="), arg + 2);
	for (size_t i = 0; ctx->cmd && i < N_COMMANDS; i++)
		for (const struct xp_opt *o = commands[i]->opts; o && o->name; o++)
			if (!strcmp(o->name, name))
				return xp_usage_error(ctx, "option '--%s' belongs to '%s', not '%s'", name, commands[i]->name,
						      ctx->cmd->name);
	const char *names[256];
	size_t n = option_names(ctx->cmd, names, 256);
	size_t idx[3];
	size_t got = xp_closest(name, names, n, false, idx, 3);
	char hint[256] = "";
	size_t len = 0;
	for (size_t i = 0; i < got; i++)
		len += (size_t)snprintf(hint + len, sizeof hint - len, "%s'--%s'",
					i == 0 ? "; did you mean " : (i + 1 == got ? " or " : ", "), names[idx[i]]);
	return xp_usage_error(ctx, "unknown option '--%s'%s%s", name, hint, got ? "?" : "");
}

/* An unknown long option before the command word: report it rather than
 * take its value for the command. */
static bool known_long_option(const char *arg)
{
	const char *names[256];
	size_t n = option_names(NULL, names, 256);
	size_t len = strcspn(arg + 2, "=");
	for (size_t i = 0; i < n; i++)
		if (!strncmp(names[i], arg + 2, len) && len)
			return true;
	return false;
}

static void print_main_help(FILE *f)
{
	fputs("Usage: xpstat [OPTIONS] COMMAND [COMMAND OPTIONS] PATH...\n\n"
	      "Analyses of TensorFlow/JAX profiler captures (*.xplane.pb, trace JSON), offline.\n"
	      "PATH is a capture file, a run directory (.../plugins/profile/RUN) or a logdir.\n\n"
	      "Commands:\n", f);
	for (size_t i = 0; i < N_COMMANDS; i++)
	{
		int n = fprintf(f, "  %-14s ", commands[i]->name);
		xp_print_wrapped(f, commands[i]->summary, n > 0 ? (size_t)n : 17, 17);
	}
	fputs("\nOptions (before or after the command):\n", f);
	xp_print_opts(f, global_opts, NULL);
	fputs("\nExit status: 0 success, 1 a check failed, 2 usage error, 3 unreadable or corrupt\n"
	      "input, 4 internal error.\n"
	      "Run 'xpstat help COMMAND' for a command's options, 'man xpstat' for the manual.\n", f);
}

static size_t count_opts(const struct xp_opt *o)
{
	size_t n = 0;
	while (o && o[n].name)
		n++;
	return n;
}

static bool opt_has_arg(const char *name)
{
	for (const struct xp_opt *o = global_opts; o->name; o++)
		if (!strcmp(o->name, name))
			return o->has_arg;
	for (size_t i = 0; i < N_COMMANDS; i++)
		for (const struct xp_opt *o = commands[i]->opts; o && o->name; o++)
			if (!strcmp(o->name, name))
				return o->has_arg;
	return false;
}

/* Options of every command, so that an option before the command word can
 * still be told apart from a value. */
static bool takes_arg(const char *arg)
{
	if (!strncmp(arg, "--", 2)) {
		const char *name = arg + 2;
		if (strchr(name, '='))
			return false;
		/* getopt takes an unambiguous abbreviation (--form json) as the option */
		const char *names[256];
		size_t n = option_names(NULL, names, 256), len = strlen(name), hits = 0;
		bool arg_of_hit = false;
		const char *hit = NULL;
		for (size_t i = 0; i < n && len; i++) {
			if (strncmp(names[i], name, len))
				continue;
			bool has = opt_has_arg(names[i]);
			if (!strcmp(names[i], name))
				return has;
			hits += !hit || strcmp(hit, names[i]);  /* several commands share an option */
			hit = names[i];
			arg_of_hit |= has;
		}
		return hits == 1 && arg_of_hit;  /* an ambiguous one is refused by getopt */
	}
	/* short options: in a cluster (-qo FILE) the value of -o, -j or -f is the
	 * rest of the word, or the next word when nothing follows */
	for (const char *p = arg + 1; *p; p++)
		if (*p == 'o' || *p == 'j' || *p == 'f')
			return !p[1];
	return false;
}

static int find_command_index(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return i + 1 < argc ? i + 1 : -1;
		if (argv[i][0] == '-' && argv[i][1]) {
			if (takes_arg(argv[i]))
				i++;
			continue;
		}
		return i;
	}
	return -1;
}

static int all_cores(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	return cpus > 0 ? (cpus > 64 ? 64 : (int)cpus) : 1;
}

static void print_version(void)
{
	printf("xpstat %s\n", XPSTAT_VERSION);
	printf("built with %s\n", XPSTAT_DEPS);
}

/* --format: a writer of the registry that the command takes (junit only for check, html for report and
 * compare, ...). */
static int set_format(struct xp_ctx *ctx, const char *arg)
{
	const char *names[16];
	size_t n = 0;
	const struct xp_writer *w = xp_writer_find(arg);
	const char *cmd = ctx->cmd ? ctx->cmd->name : NULL;
	for (size_t i = 0; xp_writer_at(i) && n < 16; i++)
		if (!cmd || xp_writer_takes(xp_writer_at(i), cmd))
			names[n++] = xp_writer_at(i)->name;
	if (w && cmd && !xp_writer_takes(w, cmd)) {
		char list[128] = "";
		for (size_t i = 0; i < n; i++)
			snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
				 i ? (i + 1 == n ? " or " : ", ") : "", names[i]);
		return xp_usage_error(ctx, "--format %s is only for %s (use %s)", arg, w->only, list);
	}
	int i;
	if (xp_parse_choice(ctx, "--format", arg, names, n, &i))
		return XP_EXIT_USAGE;
	ctx->format = names[i];
	return 0;
}

static int set_global(struct xp_ctx *ctx, int key, const char *arg)
{
	long n;
	switch (key) {
	case G_FORMAT:
		return set_format(ctx, arg);
	case G_OUTPUT:
		ctx->output = arg;
		return 0;
	case G_HOST:
		ctx->host = arg;
		return 0;
	case G_RUN:
		ctx->run = arg;
		return 0;
	case G_TABLE:
		ctx->table = arg;
		return 0;
	case G_THREADS:
		if (!xp_parse_int(arg, 0, 1024, &n))
			return xp_usage_error(ctx, "--threads needs a number from 0 (all cores) to 1024, not '%s'", arg);
		ctx->threads = n ? (int)n : all_cores();
		return 0;
	case G_COLOR: {
		static const char *const whens[] = {"never", "always", "auto"};
		int i;
		if (xp_parse_choice(ctx, "--color", arg, whens, 3, &i))
			return XP_EXIT_USAGE;
		ctx->color = i == 2 ? -1 : i;
		return 0;
	}
	case G_CSV_RAW:
		ctx->csv_raw = true;
		return 0;
	case G_MAX_INPUT:
		if (!xp_parse_size(arg, &ctx->max_input_bytes) || !ctx->max_input_bytes)
			return xp_usage_error(ctx, "--max-input-bytes needs a size such as 512M or 8G, not '%s'", arg);
		return 0;
	case G_QUIET:
		ctx->quiet = true;
		return 0;
	case G_WIDE:
		ctx->wide = true;
		return 0;
	case G_CHARTS: {
		static const char *const whens[] = {"never", "always", "auto"};
		int i;
		if (xp_parse_choice(ctx, "--charts", arg, whens, 3, &i))
			return XP_EXIT_USAGE;
		ctx->charts = i == 2 ? -1 : i;
		return 0;
	}
	case G_STEP_MARKER:
		if (!*arg)
			return xp_usage_error(ctx, "--step-marker needs a regular expression");
		ctx->step_marker = arg;
		return 0;
	case G_COMPAT: {
		static const char *const modes[] = {"xpstat", "xprof"};
		int i;
		if (xp_parse_choice(ctx, "--compat", arg, modes, 2, &i))
			return XP_EXIT_USAGE;
		ctx->xprof_compat = i == 1;
		return 0;
	}
	}
	return XP_EXIT_INTERNAL;
}

static struct option *build_longopts(const struct xp_cmd *c)
{
	size_t ng = count_opts(global_opts), nc = c ? count_opts(c->opts) : 0;
	struct option *lo = xcalloc(ng + nc + 1, sizeof *lo);
	for (size_t i = 0; i < ng; i++)
		lo[i] = (struct option){global_opts[i].name, global_opts[i].has_arg, NULL, global_opts[i].key};
	for (size_t i = 0; i < nc; i++)
		lo[ng + i] = (struct option){c->opts[i].name, c->opts[i].has_arg, NULL, c->opts[i].key};
	return lo;
}

static int short_key(int ch)
{
	switch (ch) {
	case 'o': return G_OUTPUT;
	case 'j': return G_THREADS;
	case 'f': return G_FORMAT;
	case 'q': return G_QUIET;
	case 'h': return G_HELP;
	case 'V': return G_VERSION;
	}
	return ch;
}

/* What getopt refused, named from the argument itself: getopt's optopt is
 * the refused option's key (not a character) when a long option that takes
 * no value was given one, and ARG is the whole word for long options only. */
static int bad_option(const struct xp_ctx *ctx, const char *arg)
{
	if (!strncmp(arg, "--", 2)) {
		const char *eq = strchr(arg, '=');
		if (eq && known_long_option(arg))
			return xp_usage_error(ctx, "option '%.*s' takes no value", (int)(eq - arg), arg);
		return unknown_option(ctx, arg);
	}
	char shortopt[3] = {'-', (char)optopt, 0};
	return unknown_option(ctx, optopt > ' ' && optopt < 127 ? shortopt : arg);
}

/* Returns -1 to continue, else an exit status. */
static int parse_options(struct xp_ctx *ctx, int argc, char **argv)
{
	struct option *lo = build_longopts(ctx->cmd);
	int ch, rc = -1;
	bool help = false;
	opterr = 0;
	optind = 1;
	while (rc < 0 && (ch = getopt_long(argc, argv, ":o:j:f:qhV", lo, NULL)) != -1) {
		int key = short_key(ch);
		if (ch == ':') {
			rc = xp_usage_error(ctx, "option '%s' needs a value", argv[optind - 1]);
		} else if (ch == '?') {
			rc = bad_option(ctx, argv[optind - 1]);
		} else if (key == G_HELP) {
			help = true;
		} else if (key == G_VERSION) {
			print_version();
			rc = 0;
		} else if (key >= G_FORMAT && key < G_HELP) {
			int r = set_global(ctx, key, optarg);
			if (r)
				rc = r;
		} else if (ctx->cmd && ctx->cmd->set_opt) {
			int r = ctx->cmd->set_opt(ctx, key, optarg);
			if (r)
				rc = r;
		}
	}
	free(lo);
	if (rc >= 0)
		return rc;
	if (help) {
		if (ctx->cmd)
			xp_print_cmd_help(stdout, ctx->cmd, global_opts);
		else
			print_main_help(stdout);
		return 0;
	}
	return -1;
}

static int check_stdout(void);

/* `xpstat help [COMMAND]`. */
static int help_command(int argc, char **argv)
{
	if (argc == 0) {
		print_main_help(stdout);
		return check_stdout();
	}
	const struct xp_cmd *c = find_command(argv[0]);
	if (!c)
		return unknown_command(argv[0]);
	xp_print_cmd_help(stdout, c, global_opts);
	return check_stdout();
}

static int check_stdout(void)
{
	/* A full disk or closed pipe must not look like success. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fputs("xpstat: error writing standard output\n", stderr);
		return XP_EXIT_INTERNAL;
	}
	return 0;
}

/* The work counters on stderr when XPSTAT_WORK is set (formats/core/work.h), at exit. */
static void work_report(void)
{
	if (!getenv("XPSTAT_WORK"))
		return;
	for (int w = 0; w < XP_WORK_N; w++)
		fprintf(stderr, "xpstat-work: %s %llu\n", xp_work_name((enum xp_work)w),
			(unsigned long long)xp_work_count((enum xp_work)w));
}

/* The command's option struct for this invocation, in BUF (SIZE bytes), from its initial values: the
 * command's own, else those its one analysis declares (analysis.h). */
static void init_cmd_opts(struct xp_ctx *ctx, void *buf, size_t size)
{
	const struct xp_cmd *c = ctx->cmd;
	size_t n = c->opts_size;
	const void *init = c->opts_init;
	if (!n && c->analyses && c->analyses[0] && !c->analyses[1]) {
		n = c->analyses[0]->opts_size;
		init = c->analyses[0]->opts_init;
	}
	if (n > size)
		xp_die("internal error: the options of %s take %zu bytes, more than %zu", c->name, n, size);
	if (init)
		memcpy(buf, init, n);
	else
		memset(buf, 0, n);
	ctx->cmd_opts = buf;
}

/* Everything main does but releasing the command's options; OPTS_BUF (SIZE bytes) holds them. */
static int run_main(int argc, char **argv, struct xp_ctx *ctx, void *opts_buf, size_t size)
{
	int ci = find_command_index(argc, argv);
	if (ci > 0 && !strcmp(argv[ci], "help"))
		return help_command(argc - ci - 1, argv + ci + 1);
	if (ci > 0) {
		for (int i = 1; i < ci; i++)
			if (!strncmp(argv[i], "--", 2) && argv[i][2] && !known_long_option(argv[i]))
				return unknown_option(ctx, argv[i]);
		ctx->cmd = find_command(argv[ci]);
		if (!ctx->cmd)
			return unknown_command(argv[ci]);
		init_cmd_opts(ctx, opts_buf, size);
	}
	int rc = parse_options(ctx, argc, argv);
	if (rc >= 0)
		return rc ? rc : check_stdout();
	if (!ctx->cmd) {
		print_main_help(stderr);
		return XP_EXIT_USAGE;
	}
	/* After getopt's permutation the command word is the first operand. */
	ctx->paths = argv + optind + 1;
	ctx->n_paths = (size_t)(argc - optind - 1);
	if (ctx->n_paths < ctx->cmd->min_paths)
		return xp_usage_error(ctx, "missing %s; see 'xpstat %s --help'", ctx->cmd->args, ctx->cmd->name);
	if (!ctx->max_input_bytes)
		ctx->max_input_bytes = 0; /* resolved when loading */
	if ((rc = xp_output_not_input(ctx, ctx->paths, ctx->n_paths)))
		return rc;
	rc = ctx->cmd->run(ctx);
	int out = check_stdout();
	return rc ? rc : out;
}

int main(int argc, char **argv)
{
	setlocale(LC_ALL, "");
	setlocale(LC_NUMERIC, "C");
	/* Arrays of millions of events grow by realloc: mapped on their own, they grow by remapping pages instead
	 * of copying, and go back to the system when freed (glibc's sliding threshold would keep them in the heap). */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	atexit(work_report);
	xp_pending_on_signals();
	format_help_init();
	struct xp_ctx ctx = {.format = "text", .color = -1, .charts = -1};
	ctx.threads = all_cores();
	max_align_t opts_buf[64];
	int rc = run_main(argc, argv, &ctx, opts_buf, sizeof opts_buf);
	if (ctx.cmd_opts && ctx.cmd->opts_free)
		ctx.cmd->opts_free(ctx.cmd_opts);
	return rc;
}
