/* report.c - the report container: results in report order under their command's name and key. */
#include "report.h"
#include "formats/core/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *xstrdup(const char *s)
{
	char *d = strdup(s ? s : "");
	if (!d) {
		xp_oom();
	}
	return d;
}

void xp_report_key(const char *command, char *buf, size_t n)
{
	snprintf(buf, n, "%s", command);
	for (char *c = buf; *c; c++)
		if (*c == '-')
			*c = '_';
}

struct xp_report *xp_report_new(const char *source)
{
	struct xp_report *rep = xrealloc(NULL, sizeof *rep);
	memset(rep, 0, sizeof *rep);
	rep->source = xstrdup(source);
	return rep;
}

void xp_report_add(struct xp_report *rep, const char *command, struct xp_result *r)
{
	char key[64];
	xp_report_key(command, key, sizeof key);
	rep->sec = xrealloc(rep->sec, (rep->n + 1) * sizeof *rep->sec);
	rep->sec[rep->n++] = (struct xp_report_section){xstrdup(key), xstrdup(command), r};
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void xp_report_add_capture(struct xp_report *rep, const char *name, const char *run, const char *host,
			   const char *digest, const char *path, uint64_t bytes)
{
	rep->captures = xrealloc(rep->captures, (rep->n_captures + 1) * sizeof *rep->captures);
	rep->captures[rep->n_captures++] = (struct xp_report_capture){
		xstrdup(name), xstrdup(run), xstrdup(host), dup_or_null(digest), dup_or_null(path), bytes};
}

void xp_report_free(struct xp_report *rep)
{
	if (!rep)
		return;
	for (size_t i = 0; i < rep->n_captures; i++) {
		struct xp_report_capture *k = &rep->captures[i];
		free(k->name);
		free(k->run);
		free(k->host);
		free(k->digest);
		free(k->path);
		free(k->producer);
	}
	free(rep->captures);
	for (size_t i = 0; i < rep->n_inputs; i++)
		free(rep->inputs[i]);
	free(rep->inputs);
	free(rep->verdict);
	free(rep->version);
	free(rep->compat);
	xp_result_free(rep->state);
	for (size_t i = 0; i < rep->n; i++) {
		free(rep->sec[i].key);
		free(rep->sec[i].command);
		xp_result_free(rep->sec[i].r);
	}
	free(rep->sec);
	free(rep->source);
	free(rep);
}

const struct xp_result *xp_report_get(const struct xp_report *rep, const char *command)
{
	char key[64];
	xp_report_key(command, key, sizeof key);
	for (size_t i = 0; rep && i < rep->n; i++)
		if (!strcmp(rep->sec[i].key, key))
			return rep->sec[i].r;
	return NULL;
}
