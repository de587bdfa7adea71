/* suggest.c - "did you mean": edit distances between names, and the closest few to a mistyped one. */
#include "suggest.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Names compared past this many bytes add nothing to a suggestion but time
 * (kernel names run to thousands of bytes). */
#define CMP_MAX 256

static int fold(unsigned char c)
{
	if (c == '-' || c == ':')
		return '_';
	return tolower(c);
}

size_t xp_name_distance(const char *a, const char *b, size_t cap)
{
	size_t la = strnlen(a, CMP_MAX), lb = strnlen(b, CMP_MAX);
	if ((la > lb ? la - lb : lb - la) >= cap)
		return cap;
	/* Three rows of the optimal-string-alignment table. */
	size_t *rows = malloc(3 * (lb + 1) * sizeof *rows);
	if (!rows)
		return cap;
	size_t *pp = rows, *p = rows + lb + 1, *c = rows + 2 * (lb + 1);
	for (size_t j = 0; j <= lb; j++)
		p[j] = j;
	for (size_t i = 1; i <= la; i++) {
		c[0] = i;
		size_t row_min = c[0];
		for (size_t j = 1; j <= lb; j++) {
			int ca = fold((unsigned char)a[i - 1]), cb = fold((unsigned char)b[j - 1]);
			size_t v = p[j - 1] + (ca != cb);
			if (p[j] + 1 < v)
				v = p[j] + 1;
			if (c[j - 1] + 1 < v)
				v = c[j - 1] + 1;
			if (i > 1 && j > 1 && ca == fold((unsigned char)b[j - 2]) && fold((unsigned char)a[i - 2]) == cb &&
			    pp[j - 2] + 1 < v)
				v = pp[j - 2] + 1;
			c[j] = v;
			if (v < row_min)
				row_min = v;
		}
		if (row_min >= cap) {
			free(rows);
			return cap;
		}
		size_t *t = pp;
		pp = p;
		p = c;
		c = t;
	}
	size_t d = p[lb];
	free(rows);
	return d < cap ? d : cap;
}

static bool folded_prefix(const char *want, const char *name)
{
	size_t n = strlen(want);
	if (n < 3)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!name[i] || fold((unsigned char)want[i]) != fold((unsigned char)name[i]))
			return false;
	return true;
}

/* Does name hold want (folded) somewhere? */
static bool folded_contains(const char *want, const char *name)
{
	if (strlen(want) < 3)
		return false;
	for (const char *p = name; *p; p++)
		if (folded_prefix(want, p))
			return true;
	return false;
}

/* How far name is from want: a name that want begins counts as one edit, one
 * that holds want elsewhere (an op's last part, say) as two, a typo of a
 * path's last part as one more than the typo. */
static size_t score(const char *want, const char *name, size_t cap)
{
	if (folded_prefix(want, name))
		return 1;
	if (folded_contains(want, name))
		return 2;
	size_t d = xp_name_distance(want, name, cap);
	const char *last = strrchr(name, '/');
	if (last && last[1] && d > 2) {
		/* Op names are paths: a typo of the last part is a near miss. */
		size_t dl = xp_name_distance(want, last + 1, d) + 1;
		d = dl < d ? dl : d;
	}
	return d;
}

static size_t plausible_limit(const char *want)
{
	size_t n = strlen(want);
	return n < 6 ? 2 : n / 3 + 1;
}

size_t xp_closest(const char *want, const char *const *names, size_t n, bool any, size_t *out, size_t max_out)
{
	size_t *dist = malloc((max_out ? max_out : 1) * sizeof *dist), got = 0;
	if (!dist)
		return 0;
	size_t limit = any ? SIZE_MAX : plausible_limit(want);
	for (size_t i = 0; i < n && max_out; i++) {
		if (!names[i])
			continue;
		size_t cap = got == max_out ? dist[got - 1] : (limit == SIZE_MAX ? CMP_MAX + 1 : limit);
		size_t d = score(want, names[i], cap);
		if (d >= cap && !(limit == SIZE_MAX && got < max_out))
			continue;
		bool seen = false;
		for (size_t j = 0; j < got && !seen; j++)
			seen = !strcmp(names[out[j]], names[i]);
		if (seen)
			continue;
		size_t k = got < max_out ? got++ : got - 1;
		while (k > 0 && dist[k - 1] > d) {
			dist[k] = dist[k - 1];
			out[k] = out[k - 1];
			k--;
		}
		dist[k] = d;
		out[k] = i;
	}
	free(dist);
	return got;
}

void xp_did_you_mean(char *buf, size_t size, const char *want, const char *const *names, size_t n, bool any,
		     size_t max_out)
{
	size_t idx[8];
	if (max_out > 8)
		max_out = 8;
	size_t got = xp_closest(want, names, n, any, idx, max_out);
	buf[0] = 0;
	if (!got)
		return;
	if (max_out == 1) {
		/* One suggestion is asked for: name all that are equally close
		 * rather than pick one of them by list order. */
		size_t best = score(want, names[idx[0]], SIZE_MAX);
		got = xp_closest(want, names, n, any, idx, 3);
		while (got > 1 && score(want, names[idx[got - 1]], SIZE_MAX) > best)
			got--;
	}
	size_t u = 0;
	for (size_t i = 0; i < got; i++) {
		bool seen = false;
		for (size_t j = 0; j < u && !seen; j++)
			seen = !strcmp(names[idx[j]], names[idx[i]]);
		if (!seen)
			idx[u++] = idx[i];
	}
	got = u;
	size_t len = (size_t)snprintf(buf, size, "; did you mean ");
	for (size_t i = 0; i < got && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s'%s'", i == 0 ? "" : (i + 1 == got ? " or " : ", "),
					names[idx[i]]);
	if (len < size)
		snprintf(buf + len, size - len, "?");
}
