/* out_junit.c - the JUnit XML writer, for `check`: one testcase per check, so that CI systems show the gate. */
#include "out.h"
#include "formats/core/xperr.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/*
 * Document (xpstat-check(1) repeats it):
 *   <?xml version="1.0" encoding="UTF-8"?>
 *   <testsuites name="xpstat check" tests= failures= errors= skipped=>
 *     <testsuite name="xpstat check" tests= failures= errors= skipped=>
 *       <properties><property name="SUMMARY KEY" value="RAW VALUE"/>...</properties>
 *       <testcase classname="xpstat.check" name="CHECK[ SUBJECT]">
 *         <failure type="fail" message="WHY">value/limit/baseline</failure>   (status fail)
 *         <error type="error" message="WHY">...</error>                          (status error)
 *         <skipped message="WHY"/>                                              (status skip)
 *         <system-out>WHY; value, limit, baseline</system-out>
 *       </testcase> ...
 *       <system-out>VERDICT and diagnostics</system-out>
 *     </testsuite>
 *   </testsuites>
 * No times or host names: the same result gives the same bytes. Every
 * string is escaped: & < > " ' as entities, tab, LF and CR as character
 * references inside attributes, each byte that is not valid UTF-8 and each
 * character XML 1.0 cannot carry (other C0 controls, U+FFFE, U+FFFF) as
 * U+FFFD.
 */

static void put_escaped(FILE *f, const char *s, bool attr)
{
	char *clean = xp_utf8_sanitize(s ? s : "");
	const unsigned char *p = (const unsigned char *)clean;
	size_t n = strlen(clean), i = 0;
	while (i < n) {
		uint32_t cp;
		size_t len = xp_utf8_decode(p + i, n - i, &cp);
		if (!len) {     /* cannot happen after sanitizing; be safe */
			fputs("\xef\xbf\xbd", f);
			i++;
			continue;
		}
		switch (cp) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		case '\t': fputs(attr ? "&#9;" : "\t", f); break;
		case '\n': fputs(attr ? "&#10;" : "\n", f); break;
		case '\r': fputs("&#13;", f); break;
		default:
			if (cp < 0x20 || cp == 0xfffe || cp == 0xffff)
				fputs("\xef\xbf\xbd", f);
			else
				fwrite(p + i, 1, len, f);
		}
		i += len;
	}
	free(clean);
}

static long col_of(const struct xp_table *t, const char *key)
{
	for (size_t c = 0; c < t->n_cols; c++)
		if (!strcmp(t->cols[c].key, key))
			return (long)c;
	return -1;
}

static const char *text_at(const struct xp_table *t, size_t row, long c)
{
	const struct xp_cell *x = c < 0 ? NULL : xp_table_cell(t, row, (size_t)c);
	return x && x->type == XP_T_STR && x->v.s ? x->v.s : "";
}

/* A summary value as raw text, as JSON would hold it. */
static void value_text(const struct xp_kv *kv, char *buf, size_t n)
{
	const struct xp_cell *c = &kv->value;
	buf[0] = 0;
	switch (c->type) {
	case XP_T_STR: snprintf(buf, n, "%s", c->v.s ? c->v.s : ""); break;
	case XP_T_INT:
	case XP_T_BYTES:
	case XP_T_ID: snprintf(buf, n, "%" PRId64, c->v.i); break;
	case XP_T_UINT: snprintf(buf, n, "%" PRIu64, c->v.u); break;
	case XP_T_BOOL: snprintf(buf, n, "%s", c->v.b ? "true" : "false"); break;
	case XP_T_DUR: xp_format_dur_exact(c->v.i, kv->unit, buf, n); break;
	case XP_T_F64:
	case XP_T_PCT:
	case XP_T_FRAC: xp_format_f64(c->v.d, buf, n); break;
	case XP_T_NULL: break;
	}
}

struct jcols {
	long check, subject, status, value, limit, baseline, message;
};

static void testcase(FILE *f, const struct xp_table *t, const struct jcols *jc, size_t row)
{
	const char *status = text_at(t, row, jc->status), *msg = text_at(t, row, jc->message);
	const char *subject = text_at(t, row, jc->subject);
	fputs("    <testcase classname=\"xpstat.check\" name=\"", f);
	put_escaped(f, text_at(t, row, jc->check), true);
	if (*subject) {
		fputc(' ', f);
		put_escaped(f, subject, true);
	}
	fputs("\">\n", f);
	const char *elem = !strcmp(status, "fail") ? "failure" : !strcmp(status, "error") ? "error" : NULL;
	if (elem) {
		fprintf(f, "      <%s type=\"%s\" message=\"", elem, status);
		put_escaped(f, msg, true);
		fputs("\">value: ", f);
		put_escaped(f, text_at(t, row, jc->value), false);
		fputs("\nlimit: ", f);
		put_escaped(f, text_at(t, row, jc->limit), false);
		fputs("\nbaseline: ", f);
		put_escaped(f, text_at(t, row, jc->baseline), false);
		fprintf(f, "</%s>\n", elem);
	} else if (!strcmp(status, "skip")) {
		fputs("      <skipped message=\"", f);
		put_escaped(f, msg, true);
		fputs("\"/>\n", f);
	}
	fputs("      <system-out>", f);
	put_escaped(f, msg, false);
	fputs(" (value ", f);
	put_escaped(f, text_at(t, row, jc->value), false);
	fputs(", limit ", f);
	put_escaped(f, text_at(t, row, jc->limit), false);
	fputs(", baseline ", f);
	put_escaped(f, text_at(t, row, jc->baseline), false);
	fputs(")</system-out>\n    </testcase>\n", f);
}

static void counts(FILE *f, size_t tests, size_t fail, size_t err, size_t skip)
{
	fprintf(f, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\"", tests, fail, err, skip);
}

static int junit_write(const struct xp_result *r, FILE *f, const struct xp_out_opts *o, struct xp_err *e)
{
	(void)o;
	const struct xp_table *t = xp_result_table(r, "checks");
	if (!t)
		return xp_err_set(e, XP_EXIT_USAGE, NULL, "--format junit is only for check"), XP_EXIT_USAGE;
	struct jcols jc = {col_of(t, "check"), col_of(t, "subject"), col_of(t, "status"), col_of(t, "value"),
			   col_of(t, "limit"), col_of(t, "baseline"), col_of(t, "message")};
	size_t fail = 0, err = 0, skip = 0;
	for (size_t row = 0; row < t->n_rows; row++) {
		const char *s = text_at(t, row, jc.status);
		fail += !strcmp(s, "fail");
		err += !strcmp(s, "error");
		skip += !strcmp(s, "skip");
	}
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"xpstat check\"", f);
	counts(f, t->n_rows, fail, err, skip);
	fputs(">\n  <testsuite name=\"xpstat check\"", f);
	counts(f, t->n_rows, fail, err, skip);
	fputs(">\n    <properties>\n", f);
	for (size_t i = 0; i < r->n_summary; i++) {
		char v[512];
		value_text(&r->summary[i], v, sizeof v);
		fputs("      <property name=\"", f);
		put_escaped(f, r->summary[i].key, true);
		fputs("\" value=\"", f);
		put_escaped(f, v, true);
		fputs("\"/>\n", f);
	}
	fputs("    </properties>\n", f);
	for (size_t row = 0; row < t->n_rows; row++)
		testcase(f, t, &jc, row);
	fputs("    <system-out>", f);
	put_escaped(f, r->verdict ? r->verdict : "", false);
	for (size_t i = 0; i < r->n_diags; i++) {
		const struct xp_diag *d = &r->diags[i];
		fprintf(f, "\n%s: ", xp_severity_name(d->severity));
		if (d->host) {
			put_escaped(f, d->host, false);
			fputs(": ", f);
		}
		put_escaped(f, d->message, false);
		if (d->hint) {
			fputs("\n  hint: ", f);
			put_escaped(f, d->hint, false);
		}
	}
	fputs("</system-out>\n  </testsuite>\n</testsuites>\n", f);
	return 0;
}

const struct xp_writer xp_writer_junit = {
	.name = "junit",
	.description = "JUnit XML, one testcase per check, for CI systems (check only)",
	.write = junit_write,
	.only = "check",
};
