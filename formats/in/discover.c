/* discover.c - finding capture files: single files, run directories, and logdirs holding plugins/profile/<run>/. */
#include "input.h"
#include "formats/core/natcmp.h"
#include "formats/core/suggest.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Deep enough for any real logdir, shallow enough to stop a pathological tree. */
#define XP_MAX_DEPTH 32
/* Room for the "runs: a, b" and "hosts: a, b" lists in a one-line error. */
#define XP_LIST_CHARS 320

/* ---- small helpers ---- */

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = malloc(n);
	if (p)
		memcpy(p, s, n);
	return p;
}

static char *path_join(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	bool slash = na > 0 && a[na - 1] != '/';
	char *p = malloc(na + slash + nb + 1);
	if (!p)
		return NULL;
	memcpy(p, a, na);
	if (slash)
		p[na] = '/';
	memcpy(p + na + slash, b, nb + 1);
	return p;
}

static bool ends_with(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);
	return n >= k && memcmp(s + n - k, suf, k) == 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* The path for messages: without trailing slashes (but "/" stays "/"). */
static char *display_dir(const char *path)
{
	char *d = xstrdup(path);
	if (!d)
		return NULL;
	size_t n = strlen(d);
	while (n > 1 && d[n - 1] == '/')
		d[--n] = 0;
	return d;
}

static int oom(struct xp_err *err)
{
	return xp_err_set(err, XP_EXIT_INTERNAL, NULL, "out of memory");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_strings(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Entry names of DIR except "." and "..", sorted so that every walk is deterministic. */
static int list_dir(const char *dir, char ***names, size_t *n_names)
{
	*names = NULL;
	*n_names = 0;
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	char **v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	int rc = 0;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			char **nv = realloc(v, ncap * sizeof *nv);
			if (!nv) {
				rc = -1;
				break;
			}
			v = nv;
			cap = ncap;
		}
		if (!(v[n] = xstrdup(e->d_name))) {
			rc = -1;
			break;
		}
		n++;
	}
	int saved = errno;
	closedir(d);
	if (rc) {
		free_strings(v, n);
		errno = saved ? saved : ENOMEM;
		return -1;
	}
	if (n)
		qsort(v, n, sizeof *v, cmp_str);
	*names = v;
	*n_names = n;
	return 0;
}

/* ---- file names ---- */

/* Longer suffixes first, so the first match is the longest one. */
static const char *const host_suffixes[] = {
	".xplane.pb.gz", ".xplane.pb.zst", ".xplane.pb",
	".pt.trace.json.gz", ".pt.trace.json.zst", ".pt.trace.json",
	".trace.json.gz", ".trace.json.zst", ".trace.json",
	".json.gz", ".json.zst", ".json",
	".pb.gz", ".pb.zst", ".pb", ".gz", ".zst",
};

char *xp_host_from_filename(const char *path)
{
	const char *b = base_name(path);
	size_t n = strlen(b);
	for (size_t i = 0; i < sizeof host_suffixes / sizeof host_suffixes[0]; i++) {
		size_t k = strlen(host_suffixes[i]);
		if (n > k && ends_with(b, n, host_suffixes[i]))
			return strndup(b, n - k);
	}
	return xstrdup(b);
}

bool xp_host_matches(const char *want, const char *have)
{
	/* Remote captures name files "<host>_<port>" for the address "<host>:<port>". */
	for (;; want++, have++) {
		char a = *want == ':' ? '_' : *want;
		char b = *have == ':' ? '_' : *have;
		if (a != b)
			return false;
		if (!a)
			return true;
	}
}

/* Ranks order the files of one host: XSpace before JSON, and among equals the
 * one that needs no decompression. Ranks from XP_RANK_WEAK on are generic JSON
 * names that only count inside a directory known to be a run. */
#define XP_RANK_WEAK 6

static const struct {
	const char *suffix;
	enum xp_file_kind kind;
	int rank;
} capture_suffixes[] = {
	{ ".xplane.pb", XP_FILE_XSPACE, 0 },
	{ ".xplane.pb.zst", XP_FILE_XSPACE, 1 },
	{ ".xplane.pb.gz", XP_FILE_XSPACE, 2 },
	{ ".trace.json", XP_FILE_TRACE_JSON, 3 },
	{ ".trace.json.zst", XP_FILE_TRACE_JSON, 4 },
	{ ".trace.json.gz", XP_FILE_TRACE_JSON, 5 },
	{ ".json", XP_FILE_TRACE_JSON, 6 },
	{ ".json.zst", XP_FILE_TRACE_JSON, 7 },
	{ ".json.gz", XP_FILE_TRACE_JSON, 8 },
};

/* Results of per-tool analyses that old profilers and xprof save next to the
 * captures ("<host>.<tool>.json[.gz]"): JSON, but not traces. */
static const char *const tool_names[] = {
	"overview_page", "input_pipeline", "input_pipeline_analyzer", "tensorflow_stats",
	"tf_stats", "kernel_stats", "memory_profile", "memory_viewer", "pod_viewer",
	"op_profile", "graph_viewer", "tf_data_bottleneck_analysis", "framework_op_stats",
	"hlo_stats", "roofline_model", "op_stats", "google_chart_demo", "megascale_stats",
	"inference_profile", "dcn_collective_stats", "cached_tools",
};

static bool is_tool_output(const char *stem, size_t n)
{
	for (size_t i = 0; i < sizeof tool_names / sizeof tool_names[0]; i++) {
		size_t k = strlen(tool_names[i]);
		if (ends_with(stem, n, tool_names[i]) && (n == k || stem[n - k - 1] == '.'))
			return true;
	}
	return false;
}

struct cand {
	char *name;
	char *host;
	enum xp_file_kind kind;
	int rank;
	bool perfetto;  /* JAX's perfetto_trace.json.gz: a copy of the host traces */
};

/* Is NAME (a directory entry) a capture file? Fills kind, rank and perfetto. */
static bool classify(const char *name, struct cand *c)
{
	if (name[0] == '.')
		return false;   /* .cached_tools.json and other hidden state */
	size_t n = strlen(name);
	for (size_t i = 0; i < sizeof capture_suffixes / sizeof capture_suffixes[0]; i++) {
		if (!ends_with(name, n, capture_suffixes[i].suffix))
			continue;
		size_t stem = n - strlen(capture_suffixes[i].suffix);
		if (stem == 0)
			return false;
		if (capture_suffixes[i].kind == XP_FILE_TRACE_JSON && is_tool_output(name, stem))
			return false;
		c->kind = capture_suffixes[i].kind;
		c->rank = capture_suffixes[i].rank;
		c->perfetto = stem == strlen("perfetto_trace") && !memcmp(name, "perfetto_trace", stem);
		if (c->perfetto)
			c->rank = 3;    /* as good a trace as any *.trace.json */
		return true;
	}
	return false;
}

static enum xp_file_kind kind_from_name(const char *path)
{
	return strstr(base_name(path), ".json") ? XP_FILE_TRACE_JSON : XP_FILE_XSPACE;
}

/* ---- vectors ---- */

struct fvec {
	size_t n, cap;
	struct xp_input_file *v;
};

static void free_file(struct xp_input_file *f)
{
	free(f->path);
	free(f->host);
}

static void fvec_free(struct fvec *f)
{
	for (size_t i = 0; i < f->n; i++)
		free_file(&f->v[i]);
	free(f->v);
	memset(f, 0, sizeof *f);
}

/* Append, taking ownership of path and host (freed on failure). */
static int fvec_push(struct fvec *f, char *path, char *host, enum xp_file_kind kind)
{
	if (!path || !host)
		goto fail;
	if (f->n == f->cap) {
		size_t ncap = f->cap ? f->cap * 2 : 8;
		struct xp_input_file *nv = realloc(f->v, ncap * sizeof *nv);
		if (!nv)
			goto fail;
		f->v = nv;
		f->cap = ncap;
	}
	f->v[f->n++] = (struct xp_input_file){ .path = path, .host = host, .kind = kind };
	return 0;
fail:
	free(path);
	free(host);
	return -1;
}

struct rvec {
	size_t n, cap;
	struct xp_run *v;
};

static void free_run(struct xp_run *r)
{
	for (size_t i = 0; i < r->n_files; i++)
		free_file(&r->files[i]);
	free(r->files);
	free(r->name);
	free(r->dir);
}

static int rvec_push(struct rvec *rv, struct xp_run *r)
{
	if (rv->n == rv->cap) {
		size_t ncap = rv->cap ? rv->cap * 2 : 8;
		struct xp_run *nv = realloc(rv->v, ncap * sizeof *nv);
		if (!nv)
			return -1;
		rv->v = nv;
		rv->cap = ncap;
	}
	rv->v[rv->n++] = *r;
	return 0;
}

/* ---- run directories ---- */

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	int c = xp_natcmp(x->host, y->host);
	if (c)
		return c;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Capture files directly in DIR (regular files or links to them). */
static int collect_cands(const char *dir, struct cand **out, size_t *n_out)
{
	char **names;
	size_t n;
	*out = NULL;
	*n_out = 0;
	if (list_dir(dir, &names, &n))
		return -1;
	struct cand *c = calloc(n ? n : 1, sizeof *c);
	size_t k = 0;
	int rc = c ? 0 : -1;
	for (size_t i = 0; i < n && !rc; i++) {
		struct cand cd = { 0 };
		if (!classify(names[i], &cd))
			continue;
		char *full = path_join(dir, names[i]);
		if (!full) {
			rc = -1;
			break;
		}
		struct stat st;
		bool regular = stat(full, &st) == 0 && S_ISREG(st.st_mode);
		free(full);
		if (!regular)
			continue;
		cd.name = names[i];
		names[i] = NULL;
		if (!(cd.host = xp_host_from_filename(cd.name))) {
			free(cd.name);
			rc = -1;
			break;
		}
		c[k++] = cd;
	}
	free_strings(names, n);
	if (rc) {
		for (size_t i = 0; c && i < k; i++) {
			free(c[i].name);
			free(c[i].host);
		}
		free(c);
		errno = ENOMEM;
		return -1;
	}
	*out = c;
	*n_out = k;
	return 0;
}

/* The capture files of a run directory, one per host, sorted by host.
 * *strong says whether any has a name that marks a capture by itself
 * (*.xplane.pb*, *.trace.json*, perfetto_trace.json*), not just *.json;
 * generic *.json files are used only where there is nothing better, since a
 * TF/JAX run directory may hold other JSON. */
static int scan_run_dir(const char *dir, struct fvec *out, bool *strong)
{
	struct cand *c;
	size_t n;
	*strong = false;
	if (collect_cands(dir, &c, &n))
		return -1;
	bool only_perfetto = true;
	for (size_t i = 0; i < n; i++) {
		only_perfetto &= c[i].perfetto;
		*strong |= c[i].rank < XP_RANK_WEAK;
	}
	if (n)
		qsort(c, n, sizeof *c, cmp_cand);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		/* perfetto_trace.json.gz repeats what the per-host files hold. */
		bool keep = (only_perfetto || !c[i].perfetto) && !(*strong && c[i].rank >= XP_RANK_WEAK) &&
			    (i == 0 || strcmp(c[i].host, c[i - 1].host) != 0);
		if (keep && !rc)
			rc = fvec_push(out, path_join(dir, c[i].name), xstrdup(c[i].host), c[i].kind);
		free(c[i].name);
	}
	for (size_t i = 0; i < n; i++)
		free(c[i].host);
	free(c);
	if (rc)
		errno = ENOMEM;
	return rc;
}

/* ---- logdirs ---- */

/* Every run directory with captures in PROFILE (a plugins/profile directory). */
static int add_runs(const char *profile, const char *rel, struct rvec *runs)
{
	char **names;
	size_t n;
	if (list_dir(profile, &names, &n))
		return errno == ENOMEM ? -1 : 0;        /* unreadable: no runs there */
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		char *dir = path_join(profile, names[i]);
		struct stat st;
		struct fvec f = { 0 };
		bool strong;
		if (!dir) {
			rc = -1;
			break;
		}
		/* Following a link here cannot loop: run directories are not walked. */
		bool is_dir = stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
		int unreadable = 0;
		if (is_dir && scan_run_dir(dir, &f, &strong)) {
			if (errno == ENOMEM)
				rc = -1;
			else    /* kept: the newest run must not silently become an older one */
				unreadable = errno;
		}
		if (rc || !is_dir || (!f.n && !unreadable)) {
			free(dir);
			fvec_free(&f);
			continue;
		}
		struct xp_run r = {
			.name = rel ? path_join(rel, names[i]) : xstrdup(names[i]),
			.dir = dir, .n_files = f.n, .files = f.v, .mtime = (int64_t)st.st_mtime, .err = unreadable,
		};
		if (!r.name || rvec_push(runs, &r)) {
			free_run(&r);
			rc = -1;
		}
	}
	free_strings(names, n);
	return rc;
}

/* Look for DIR/plugins/profile/, then walk the subdirectories without
 * following symbolic links (a link back up would never end). */
static int walk(const char *dir, const char *rel, int depth, struct rvec *runs)
{
	if (depth > XP_MAX_DEPTH)
		return 0;
	char *profile = path_join(dir, "plugins/profile");
	if (!profile)
		return -1;
	struct stat st;
	bool has_profile = stat(profile, &st) == 0 && S_ISDIR(st.st_mode);
	int rc = has_profile ? add_runs(profile, rel, runs) : 0;
	free(profile);
	char **names;
	size_t n;
	if (rc || list_dir(dir, &names, &n))
		return rc ? rc : (errno == ENOMEM ? -1 : 0);
	for (size_t i = 0; i < n && !rc; i++) {
		if (has_profile && !strcmp(names[i], "plugins"))
			continue;
		char *child = path_join(dir, names[i]);
		if (!child) {
			rc = -1;
			break;
		}
		if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode)) {
			char *crel = rel ? path_join(rel, names[i]) : xstrdup(names[i]);
			rc = crel ? walk(child, crel, depth + 1, runs) : -1;
			free(crel);
		}
		free(child);
	}
	free_strings(names, n);
	return rc;
}

/* Newest last: the run directory name (a timestamp) decides, then mtime, then the full name. */
static int cmp_run(const void *a, const void *b)
{
	const struct xp_run *x = a, *y = b;
	int c = strcmp(base_name(x->name), base_name(y->name));
	if (c)
		return c;
	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* All runs below LOGDIR; also when LOGDIR itself is .../plugins or .../plugins/profile. */
static int find_runs(const char *logdir, struct rvec *runs)
{
	char *real = realpath(logdir, NULL);
	int rc;
	if (real && ends_with(real, strlen(real), "/plugins/profile")) {
		rc = add_runs(logdir, NULL, runs);
	} else if (real && ends_with(real, strlen(real), "/plugins")) {
		char *profile = path_join(logdir, "profile");
		rc = profile ? add_runs(profile, NULL, runs) : -1;
		free(profile);
	} else {
		rc = walk(logdir, NULL, 0, runs);
	}
	free(real);
	if (!rc && runs->n)
		qsort(runs->v, runs->n, sizeof *runs->v, cmp_run);
	return rc;
}

static void rvec_free(struct rvec *rv)
{
	for (size_t i = 0; i < rv->n; i++)
		free_run(&rv->v[i]);
	free(rv->v);
	memset(rv, 0, sizeof *rv);
}

static int no_captures(const char *dir, struct xp_err *err)
{
	char *d = display_dir(dir);
	if (!d)
		return oom(err);
	xp_err_set(err, XP_EXIT_BAD_INPUT, NULL,
		   "no profiler captures found under %s (expected %s/plugins/profile/<run>/<host>.xplane.pb)",
		   d, strcmp(d, "/") ? d : "");
	free(d);
	return -1;
}

static int stat_dir(const char *path, struct xp_err *err)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return xp_err_set(err, XP_EXIT_BAD_INPUT, path, "cannot open: %s", strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return xp_err_set(err, XP_EXIT_BAD_INPUT, path, "not a directory");
	return 0;
}

static int scan_failed(const char *dir, struct xp_err *err)
{
	if (errno == ENOMEM)
		return oom(err);
	return xp_err_set(err, XP_EXIT_BAD_INPUT, dir, "cannot read directory: %s", strerror(errno));
}

/* What a directory holds: its own capture files (a run directory) or runs
 * below it (a logdir). Captures with telling names make a run directory;
 * generic *.json files only count when there are no runs below. */
static int examine_dir(const char *dir, struct fvec *files, struct rvec *runs, struct xp_err *err)
{
	bool strong;
	if (scan_run_dir(dir, files, &strong))
		return scan_failed(dir, err);
	if (strong)
		return 0;
	if (find_runs(dir, runs))
		return oom(err);
	if (runs->n) {
		fvec_free(files);
		return 0;
	}
	return files->n ? 0 : no_captures(dir, err);
}

/* A run directory given as a logdir is listed as one run named after it. */
static int single_run(const char *dir, struct fvec *files, struct rvec *runs)
{
	char *d = display_dir(dir);
	struct stat st;
	struct xp_run r = {
		.name = d ? xstrdup(base_name(d)) : NULL, .dir = xstrdup(dir),
		.n_files = files->n, .files = files->v,
		.mtime = stat(dir, &st) == 0 ? (int64_t)st.st_mtime : 0,
	};
	free(d);
	memset(files, 0, sizeof *files);
	if (!r.name || !r.dir || rvec_push(runs, &r)) {
		free_run(&r);
		return -1;
	}
	return 0;
}

int xp_list_runs(const char *logdir, struct xp_run_list *out, struct xp_err *err)
{
	memset(out, 0, sizeof *out);
	if (stat_dir(logdir, err))
		return -1;
	struct fvec files = { 0 };
	struct rvec runs = { 0 };
	if (examine_dir(logdir, &files, &runs, err)) {
		fvec_free(&files);
		rvec_free(&runs);
		return -1;
	}
	if (files.n && single_run(logdir, &files, &runs)) {
		fvec_free(&files);
		rvec_free(&runs);
		return oom(err);
	}
	out->n = runs.n;
	out->runs = runs.v;
	return 0;
}

void xp_run_list_free(struct xp_run_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		free_run(&l->runs[i]);
	free(l->runs);
	memset(l, 0, sizeof *l);
}

/* ---- choosing a run, filtering hosts ---- */

/* "a, b, c" into buf, cut short with ", ..." when it does not fit. */
static void join_names(char *buf, size_t size, const char *const *names, size_t n)
{
	size_t len = 0;
	buf[0] = 0;
	for (size_t i = 0; i < n; i++) {
		int w = snprintf(buf + len, size - len, "%s%s", i ? ", " : "", names[i]);
		bool last = i + 1 == n;
		if (w < 0 || (size_t)w >= size - len || (!last && size - len - (size_t)w < 8)) {
			snprintf(buf + len, size - len, "%s...", i ? ", " : "");
			return;
		}
		len += (size_t)w;
	}
}

/* A run is asked for by its full name or its last part: suggest either. */
static void suggest_run(char *hint, size_t size, const char *want, const char **names, size_t n)
{
	const char **both = malloc((2 * n + 1) * sizeof *both);
	if (!both)
		return;
	for (size_t i = 0; i < n; i++) {
		both[2 * i] = names[i];
		both[2 * i + 1] = base_name(names[i]);
	}
	xp_did_you_mean(hint, size, want, both, 2 * n, false, 1);
	free(both);
}

static int run_error(const struct rvec *runs, const char *logdir, const char *want,
		     const char *what, const size_t *idx, size_t n_idx, struct xp_err *err)
{
	const char **names = malloc((n_idx ? n_idx : 1) * sizeof *names);
	char *d = display_dir(logdir);
	if (!names || !d) {
		free(names);
		free(d);
		return oom(err);
	}
	for (size_t i = 0; i < n_idx; i++)
		names[i] = runs->v[idx ? idx[i] : i].name;
	char list[XP_LIST_CHARS], hint[XP_LIST_CHARS] = "";
	join_names(list, sizeof list, names, n_idx);
	if (!idx)
		suggest_run(hint, sizeof hint, want, names, n_idx);
	xp_err_set(err, XP_EXIT_USAGE, NULL, "%s %s in %s; runs: %s%s", what, want, d, list, hint);
	free(names);
	free(d);
	return -1;
}

static bool train_run(const char *name)
{
	return !strncmp(name, "train/", 6) || strstr(name, "/train/");
}

/* "using run A of DIR; B, C have the same name (--run B for it)" into a new string. */
static char *same_name_note(const struct rvec *runs, const char *logdir, size_t first, size_t last, size_t pick)
{
	const char **others = malloc((last - first + 1) * sizeof *others);
	char *d = display_dir(logdir), *note = NULL;
	if (!others || !d) {
		free(others);
		free(d);
		return NULL;
	}
	size_t n = 0;
	for (size_t i = first; i <= last; i++)
		if (i != pick)
			others[n++] = runs->v[i].name;
	char list[XP_LIST_CHARS];
	join_names(list, sizeof list, others, n);
	if (asprintf(&note, "using run %s of %s; %s %s the same name (--run %s for %s)", runs->v[pick].name, d, list,
		     n == 1 ? "has" : "have", others[0], n == 1 ? "it" : "one of them") < 0)
		note = NULL;
	free(others);
	free(d);
	return note;
}

/* The newest run. Keras writes train/ and validation/ runs of one name, and which of them is newest is
 * chance: take train/ when it is one of them and say so in *note; else refuse and list them. */
static int pick_newest(const struct rvec *runs, const char *logdir, char **note, struct xp_err *err)
{
	size_t last = runs->n - 1, first = last;
	while (first > 0 && !strcmp(base_name(runs->v[first - 1].name), base_name(runs->v[last].name)))
		first--;
	if (first == last)
		return (int)last;
	for (size_t i = first; i <= last; i++)
		if (train_run(runs->v[i].name)) {
			if (!(*note = same_name_note(runs, logdir, first, last, i)))
				return oom(err);
			return (int)i;
		}
	size_t *idx = malloc((last - first + 1) * sizeof *idx);
	if (!idx)
		return oom(err);
	for (size_t i = first; i <= last; i++)
		idx[i - first] = i;
	run_error(runs, logdir, base_name(runs->v[last].name), "several newest runs named", idx, last - first + 1,
		  err);
	free(idx);
	return -1;
}

/* Index of the run to use: by full or last-component name, else the newest. */
static int pick_run(const struct rvec *runs, const char *logdir, const char *want, char **note, struct xp_err *err)
{
	if (!want)
		return pick_newest(runs, logdir, note, err);
	for (size_t i = 0; i < runs->n; i++)
		if (!strcmp(runs->v[i].name, want))
			return (int)i;
	size_t *hits = malloc(runs->n * sizeof *hits), n_hits = 0;
	if (!hits)
		return oom(err);
	for (size_t i = 0; i < runs->n; i++)
		if (!strcmp(base_name(runs->v[i].name), want))
			hits[n_hits++] = i;
	int r = -1;
	if (n_hits == 1)
		r = (int)hits[0];
	else if (n_hits > 1)
		run_error(runs, logdir, want, "ambiguous run", hits, n_hits, err);
	else
		run_error(runs, logdir, want, "no run", NULL, runs->n, err);
	free(hits);
	return r;
}

static int copy_files(struct fvec *dst, const struct xp_input_file *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fvec_push(dst, xstrdup(f[i].path), xstrdup(f[i].host), f[i].kind))
			return -1;
	return 0;
}

/* Append the captures a directory stands for; remember the run used. */
static int resolve_dir(const char *dir, const char *run_name, struct fvec *all, char **run_used, char **note,
		       struct xp_err *err)
{
	struct fvec files = { 0 };
	struct rvec runs = { 0 };
	int rc = examine_dir(dir, &files, &runs, err);
	if (!rc && files.n) {
		rc = copy_files(all, files.v, files.n) ? oom(err) : 0;
	} else if (!rc) {
		char *said = NULL;
		int i = pick_run(&runs, dir, run_name, &said, err);
		if (said && !*note)
			*note = said;
		else
			free(said);
		if (i < 0)
			rc = -1;
		else if (runs.v[i].err)
			rc = xp_err_set(err, XP_EXIT_BAD_INPUT, runs.v[i].dir, "cannot read the run directory: %s",
					strerror(runs.v[i].err));
		else if (copy_files(all, runs.v[i].files, runs.v[i].n_files))
			rc = oom(err);
		else if (!*run_used && !(*run_used = xstrdup(runs.v[i].name)))
			rc = oom(err);
	}
	fvec_free(&files);
	rvec_free(&runs);
	return rc;
}

struct keyed {
	char *key;
	size_t idx;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	if (c)
		return c;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Drop later copies of a file named twice (same realpath), keeping the order. */
static int dedupe(struct fvec *f)
{
	size_t n = f->n;
	if (n < 2)
		return 0;
	struct keyed *k = calloc(n, sizeof *k);
	bool *dup = calloc(n, sizeof *dup);
	int rc = (k && dup) ? 0 : -1;
	for (size_t i = 0; i < n && !rc; i++) {
		k[i].idx = i;
		k[i].key = realpath(f->v[i].path, NULL);
		if (!k[i].key && !(k[i].key = xstrdup(f->v[i].path)))
			rc = -1;
	}
	if (!rc) {
		qsort(k, n, sizeof *k, cmp_keyed);
		for (size_t i = 1; i < n; i++)
			if (!strcmp(k[i].key, k[i - 1].key))
				dup[k[i].idx] = true;
		size_t w = 0;
		for (size_t i = 0; i < n; i++) {
			if (dup[i])
				free_file(&f->v[i]);
			else
				f->v[w++] = f->v[i];
		}
		f->n = w;
	}
	for (size_t i = 0; k && i < n; i++)
		free(k[i].key);
	free(k);
	free(dup);
	return rc;
}

static int host_error(const struct fvec *f, const char *want, struct xp_err *err)
{
	const char **hosts = malloc((f->n ? f->n : 1) * sizeof *hosts);
	if (!hosts)
		return oom(err);
	size_t n = 0;
	for (size_t i = 0; i < f->n; i++)
		hosts[n++] = f->v[i].host;
	qsort(hosts, n, sizeof *hosts, cmp_str);
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (!u || strcmp(hosts[i], hosts[u - 1]))
			hosts[u++] = hosts[i];
	char list[XP_LIST_CHARS], hint[XP_LIST_CHARS];
	join_names(list, sizeof list, hosts, u);
	xp_did_you_mean(hint, sizeof hint, want, hosts, u, false, 1);
	xp_err_set(err, XP_EXIT_USAGE, NULL, "no host %s; hosts: %s%s", want, list, hint);
	free(hosts);
	return -1;
}

static int filter_host(struct fvec *f, const char *want, struct xp_err *err)
{
	size_t w = 0;
	for (size_t i = 0; i < f->n; i++)
		if (xp_host_matches(want, f->v[i].host))
			w++;
	if (!w)
		return host_error(f, want, err);
	w = 0;
	for (size_t i = 0; i < f->n; i++) {
		if (xp_host_matches(want, f->v[i].host))
			f->v[w++] = f->v[i];
		else
			free_file(&f->v[i]);
	}
	f->n = w;
	return 0;
}

static int resolve_path(const char *path, const char *run_name, struct fvec *all, char **run_used, char **note,
			struct xp_err *err)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return xp_err_set(err, XP_EXIT_BAD_INPUT, path, "cannot open: %s", strerror(errno));
	if (S_ISDIR(st.st_mode))
		return resolve_dir(path, run_name, all, run_used, note, err);
	/* A file named on the command line is read whatever its name: the
	 * reader sniffs compression, and the name only hints at the format. */
	if (fvec_push(all, xstrdup(path), xp_host_from_filename(path), kind_from_name(path)))
		return oom(err);
	return 0;
}

int xp_resolve_inputs(char *const *paths, size_t n_paths, const char *run_name, const char *host,
		      struct xp_input_list *out, struct xp_err *err)
{
	memset(out, 0, sizeof *out);
	if (n_paths == 0)
		return xp_err_set(err, XP_EXIT_USAGE, NULL, "no input path given");
	struct fvec all = { 0 };
	char *run_used = NULL, *note = NULL;
	int rc = 0;
	for (size_t i = 0; i < n_paths && !rc; i++)
		rc = resolve_path(paths[i], run_name, &all, &run_used, &note, err);
	if (!rc && dedupe(&all))
		rc = oom(err);
	if (!rc && host)
		rc = filter_host(&all, host, err);
	if (rc) {
		fvec_free(&all);
		free(run_used);
		free(note);
		return -1;
	}
	out->n = all.n;
	out->files = all.v;
	out->run_name = run_used;
	out->run_note = note;
	return 0;
}

void xp_input_file_free(struct xp_input_file *f)
{
	free_file(f);
}

void xp_input_list_free(struct xp_input_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		free_file(&l->files[i]);
	free(l->files);
	free(l->run_name);
	free(l->run_note);
	memset(l, 0, sizeof *l);
}
