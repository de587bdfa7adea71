/* check_csv.c - lint a CSV file: strict RFC 4180 parse, snake_case unique header, same field count in every record, UTF-8. */
#include <csv.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Report at most this many problems: one broken file should not flood the test log. */
#define MAX_REPORTS 10

struct lint {
	const char *path;
	size_t record;          /* 1-based number of the record being parsed */
	size_t fields;          /* fields seen so far in that record */
	size_t n_header;
	char **header;
	int problems;
};

__attribute__((format(printf, 2, 3)))
static void problem(struct lint *l, const char *fmt, ...)
{
	va_list ap;

	if (++l->problems > MAX_REPORTS)
		return;
	fprintf(stderr, "check_csv: %s: ", l->path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The same rule the writers follow (RFC 3629): no overlongs, surrogates or code points past U+10FFFF. */
static bool valid_utf8(const unsigned char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned c = s[i], len, k;
		unsigned long cp, min;

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			len = 2, min = 0x80, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			len = 3, min = 0x800, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			len = 4, min = 0x10000, cp = c & 0x07;
		else
			return false;
		if (n - i < len)
			return false;
		for (k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = (cp << 6) | (s[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += len;
	}
	return true;
}

static bool snake_case(const char *s, size_t n)
{
	size_t i;

	if (!n)
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

static void header_field(struct lint *l, const char *s, size_t n)
{
	char **h;
	size_t i;

	if (!snake_case(s, n))
		problem(l, "header field %zu \"%.*s\" is not snake_case ([a-z0-9_]+)", l->fields + 1, (int)n, s);
	for (i = 0; i < l->n_header; i++)
		if (strlen(l->header[i]) == n && memcmp(l->header[i], s, n) == 0)
			problem(l, "header field %zu \"%.*s\" repeats field %zu", l->fields + 1, (int)n, s, i + 1);
	h = realloc(l->header, (l->n_header + 1) * sizeof(*h));
	if (!h || !(h[l->n_header] = strndup(s, n))) {
		fputs("check_csv: out of memory\n", stderr);
		exit(1);
	}
	l->header = h;
	l->n_header++;
}

static void on_field(void *data, size_t n, void *ctx)
{
	struct lint *l = ctx;
	const char *s = data ? data : "";

	if (!valid_utf8((const unsigned char *)s, n))
		problem(l, "record %zu field %zu is not valid UTF-8", l->record, l->fields + 1);
	if (l->record == 1)
		header_field(l, s, n);
	l->fields++;
}

static void on_record(int term, void *ctx)
{
	struct lint *l = ctx;

	(void)term;
	if (l->record > 1 && l->fields != l->n_header)
		problem(l, "record %zu has %zu fields, the header has %zu", l->record, l->fields, l->n_header);
	l->record++;
	l->fields = 0;
}

static int lint_stream(struct lint *l, FILE *f)
{
	struct csv_parser p;
	char buf[65536];
	size_t n, done = 0;
	int ok = 1;

	if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0) {
		fputs("check_csv: cannot initialise libcsv\n", stderr);
		return 0;
	}
	while (ok && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
		size_t used = csv_parse(&p, buf, n, on_field, on_record, l);

		if (used != n) {
			problem(l, "not valid CSV near byte %zu: %s", done + used, csv_strerror(csv_error(&p)));
			ok = 0;
		}
		done += n;
	}
	if (ferror(f)) {
		problem(l, "read error");
		ok = 0;
	}
	if (ok && csv_fini(&p, on_field, on_record, l) != 0) {
		problem(l, "not valid CSV at the end: %s", csv_strerror(csv_error(&p)));
		ok = 0;
	}
	csv_free(&p);
	return ok;
}

int main(int argc, char **argv)
{
	struct lint l = {.record = 1};
	FILE *f;
	size_t i;

	if (argc != 2) {
		fputs("usage: check_csv FILE.csv\n", stderr);
		return 1;
	}
	l.path = argv[1];
	f = fopen(l.path, "rb");
	if (!f) {
		perror(l.path);
		return 1;
	}
	lint_stream(&l, f);
	fclose(f);
	if (l.record == 1)
		problem(&l, "no header row");
	for (i = 0; i < l.n_header; i++)
		free(l.header[i]);
	free(l.header);
	if (l.problems > MAX_REPORTS)
		fprintf(stderr, "check_csv: %s: %d more problems not shown\n", l.path, l.problems - MAX_REPORTS);
	if (l.problems)
		return 1;
	printf("check_csv: %s: ok (%zu records of %zu fields)\n", l.path, l.record - 2, l.n_header);
	return 0;
}
