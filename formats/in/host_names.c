/* host_names.c - one distinct name per host of a capture, and the hosts in natural order of those names. */
#include "input.h"
#include "formats/core/natcmp.h"
#include "formats/core/xalloc.h"
#include "formats/model/capture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool name_taken(const struct xp_capture *c, uint32_t self, const char *name)
{
	for (uint32_t h = 0; h < c->n_hosts; h++)
		if (h != self && !strcmp(c->hosts[h].name, name))
			return true;
	return false;
}

static void rename_host(struct xp_host *host, char *name)
{
	if (!name)
		xp_oom();
	free(host->name);
	host->name = name;
}

/* HOST named NAME to tell it from another; its first name is kept (a saved report's state records it, so
 * that combine names the hosts of several reports as one process names them all). */
static void rename_unique(struct xp_host *host, char *name)
{
	if (!host->first_name) {
		host->first_name = host->name;
		host->name = NULL;
	}
	rename_host(host, name);
}

/* Hosts whose recorded hostname is another host's too (two copies of one capture, ranks that all say
 * "localhost") are named by their file instead; names that still collide (the same file name in two
 * folders) get "#2", "#3", ... after the first. Else pod, overview and --host could not tell them apart. */
static void unique_names(struct xp_capture *c)
{
	bool *dup = calloc(c->n_hosts ? c->n_hosts : 1, sizeof *dup);
	if (!dup)
		xp_oom();
	for (uint32_t h = 0; h < c->n_hosts; h++)
		dup[h] = name_taken(c, h, c->hosts[h].name);
	for (uint32_t h = 0; h < c->n_hosts; h++)
		if (dup[h] && c->hosts[h].path)
			rename_unique(&c->hosts[h], xp_host_from_filename(c->hosts[h].path));
	free(dup);
	for (uint32_t h = 1; h < c->n_hosts; h++) {
		for (unsigned k = 2; name_taken(c, h, c->hosts[h].name); k++) {
			bool earlier = false;
			for (uint32_t g = 0; g < h && !earlier; g++)
				earlier = !strcmp(c->hosts[g].name, c->hosts[h].name);
			if (!earlier)
				break;
			size_t n = strlen(c->hosts[h].name) + 24;
			char *name = malloc(n);
			if (!name)
				xp_oom();
			snprintf(name, n, "%s#%u", c->hosts[h].name, k);
			if (!name_taken(c, h, name)) {
				rename_unique(&c->hosts[h], name);
				break;
			}
			free(name);
		}
	}
}

/* The worker of a Kineto file name "<worker>.<ms>.pt.trace.json[.gz]" (the PyTorch profiler's
 * TensorBoard plugin reads files of one worker as spans of it), with its directory: NULL if not one. */
static char *kineto_worker(const char *path)
{
	const char *suffixes[] = {".pt.trace.json", ".pt.trace.json.gz"};
	size_t n = strlen(path), k = 0;
	for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0] && !k; i++) {
		size_t m = strlen(suffixes[i]);
		if (n > m && !strcmp(path + n - m, suffixes[i]))
			k = m;
	}
	if (!k)
		return NULL;
	size_t end = n - k, dot = end;
	while (dot > 0 && path[dot - 1] >= '0' && path[dot - 1] <= '9')
		dot--;
	const char *slash = strrchr(path, '/');
	size_t start = slash ? (size_t)(slash - path) + 1 : 0;
	if (dot == end || dot < start + 2 || path[dot - 1] != '.')
		return NULL;
	return strndup(path, dot - 1);
}

/* The worker part of a "<dir>/<worker>" key. */
static const char *worker_name(const char *key)
{
	const char *slash = strrchr(key, '/');
	return slash ? slash + 1 : key;
}

void xp_hosts_join_spans(struct xp_capture *c)
{
	char **key = xcalloc(c->n_hosts ? c->n_hosts : 1, sizeof *key);
	bool *keep = xcalloc(c->n_hosts ? c->n_hosts : 1, sizeof *keep);
	bool joined = false;
	for (uint32_t h = 0; h < c->n_hosts; h++) {
		const struct xp_host *host = &c->hosts[h];
		keep[h] = true;
		if (host->format == XP_FMT_TRACE_JSON && host->json.kineto_events && host->path)
			key[h] = kineto_worker(host->path);
		for (uint32_t g = 0; g < h && key[h]; g++)
			if (keep[g] && key[g] && !strcmp(key[g], key[h]) && xp_host_absorb(&c->hosts[g], &c->hosts[h])) {
				keep[h] = false;
				joined = true;
				break;
			}
	}
	/* Once a run has spans, every worker is named by its worker alone, one naming for all its hosts. */
	for (uint32_t h = 0; h < c->n_hosts && joined; h++)
		if (keep[h] && key[h])
			rename_host(&c->hosts[h], strdup(worker_name(key[h])));
	uint32_t n = c->n_hosts;
	if (joined)
		xp_capture_keep_hosts(c, keep);
	for (uint32_t h = 0; h < n; h++)
		free(key[h]);
	free(key);
	free(keep);
}

struct ranked {
	struct xp_host host;
	uint32_t at;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	int c = xp_natcmp(x->host.name, y->host.name);
	return c ? c : (x->at > y->at) - (x->at < y->at);
}

void xp_hosts_name_and_sort(struct xp_capture *c)
{
	if (c->n_hosts < 2)
		return;
	unique_names(c);
	struct ranked *r = malloc(c->n_hosts * sizeof *r);
	if (!r)
		xp_oom();
	for (uint32_t h = 0; h < c->n_hosts; h++)
		r[h] = (struct ranked){c->hosts[h], h};
	qsort(r, c->n_hosts, sizeof *r, cmp_ranked);
	for (uint32_t h = 0; h < c->n_hosts; h++)
		c->hosts[h] = r[h].host;
	free(r);
}
