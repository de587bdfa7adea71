/* test_json_lex.c - the JSON lexer on its own: values as spans, escapes, windows that end mid-value, errors with their offsets. */
#include "check.h"
#include "formats/in/json_lex.h"

/* --- helpers ------------------------------------------------------------------- */

static struct xp_err err;

/* A window over text whose first byte is stream byte off0; eof: no text after it. */
static struct jlex window(const char *text, size_t len, bool eof, uint64_t off0)
{
	memset(&err, 0, sizeof err);
	return (struct jlex){.base = (const uint8_t *)text, .end = (const uint8_t *)text + len, .off0 = off0,
			     .eof = eof, .path = "t.json", .err = &err};
}

/* jl_value over the whole text; *used: the bytes it consumed (0 unless J_OK). */
static int lex(const char *text, bool eof, struct jval *v, size_t *used)
{
	struct jlex lx = window(text, strlen(text), eof, 0);
	const uint8_t *p = lx.base;
	memset(v, 0, sizeof *v);
	int rc = jl_value(&lx, &p, 0, v);
	*used = (size_t)(p - lx.base);
	return rc;
}

/* The value must lex whole, as type, its span being want (string contents, or all the text). */
static void lexes_as(const char *text, uint8_t type, const char *want, bool is_int, bool esc)
{
	struct jval v;
	size_t used;
	if (!CHECK_INT(lex(text, true, &v, &used), J_OK)) {
		fprintf(stderr, "  text: %s: %s\n", text, err.msg);
		return;
	}
	CHECK_INT(used, strlen(text));
	CHECK_INT(v.type, type);
	CHECK_SLICE((const char *)v.p, v.len, want);
	CHECK_INT(v.is_int, is_int);
	CHECK_INT(v.esc, esc);
}

/* The text must fail with msg (after "malformed trace JSON: ") at byte off of a window at 1000. */
static void fails_at(const char *text, const char *msg, uint64_t off)
{
	struct jlex lx = window(text, strlen(text), true, 1000);
	const uint8_t *p = lx.base;
	struct jval v;
	char want[300];
	snprintf(want, sizeof want, "malformed trace JSON: %s", msg);
	if (!CHECK_INT(jl_value(&lx, &p, 0, &v), J_ERR)) {
		fprintf(stderr, "  text: %s\n", text);
		return;
	}
	CHECK_INT(err.status, XP_EXIT_BAD_INPUT);
	CHECK(err.has_offset);
	CHECK_INT(err.offset, 1000 + off);
	CHECK_STR(err.msg, want);
	CHECK_STR(err.path, "t.json");
}

/* --- tests --------------------------------------------------------------------- */

static void values_as_spans(void)
{
	lexes_as("\"abc\"", JV_STR, "abc", false, false);
	lexes_as("\"\"", JV_STR, "", false, false);
	lexes_as("\"a\\\"b\"", JV_STR, "a\\\"b", false, true);
	lexes_as("\"caf\xc3\xa9 \xf0\x9f\x98\x80\"", JV_STR, "caf\xc3\xa9 \xf0\x9f\x98\x80", false, false);
	lexes_as("0", JV_NUM, "0", true, false);
	lexes_as("-42", JV_NUM, "-42", true, false);
	lexes_as("1234567890123456789012345", JV_NUM, "1234567890123456789012345", true, false);
	lexes_as("-12.5e+3", JV_NUM, "-12.5e+3", false, false);
	lexes_as("0.25", JV_NUM, "0.25", false, false);
	lexes_as("7E-2", JV_NUM, "7E-2", false, false);
	lexes_as("true", JV_TRUE, "true", false, false);
	lexes_as("false", JV_FALSE, "false", false, false);
	lexes_as("null", JV_NULL, "null", false, false);
	lexes_as("[]", JV_ARR, "[]", false, false);
	lexes_as("[ 1 , \"x\" , [ {} ] ]", JV_ARR, "[ 1 , \"x\" , [ {} ] ]", false, false);
	lexes_as("{\"a\": {\"b\": [true, null]}, \"c\": -0.5}", JV_OBJ, "{\"a\": {\"b\": [true, null]}, \"c\": -0.5}",
		 false, false);
}

/* A value stops where it ends: what follows is the caller's. */
static void values_stop_at_their_end(void)
{
	struct jval v;
	size_t used;
	CHECK_INT(lex("12,3", true, &v, &used), J_OK);
	CHECK_INT(used, 2);
	CHECK_INT(lex("\"a\"b", true, &v, &used), J_OK);
	CHECK_INT(used, 3);
	CHECK_INT(lex("[1]]", true, &v, &used), J_OK);
	CHECK_INT(used, 3);
	CHECK_INT(lex("01", true, &v, &used), J_OK); /* the 0; a leading zero is the next value's error */
	CHECK_INT(used, 1);
}

/* A window that ends inside a value asks for more while text may follow, and fails at the end of input. */
static void window_ends_inside_a_value(void)
{
	static const char *const cut[] = {
		"\"abc", "\"ab\\", "\"ab\\u00", "\"\xc3", "\"\xe2\x82", "-", "1.", "1.5e", "1e+", "tr", "fals", "n",
		"[1, 2", "[1, ", "{\"a\"", "{\"a\":", "{\"a\": 1", "[[[", "[\"x\" ",
	};
	for (size_t i = 0; i < sizeof cut / sizeof *cut; i++) {
		struct jval v;
		size_t used;
		if (!CHECK_INT(lex(cut[i], false, &v, &used), J_MORE))
			fprintf(stderr, "  text: %s\n", cut[i]);
		if (!CHECK_INT(lex(cut[i], true, &v, &used), J_ERR))
			fprintf(stderr, "  text: %s\n", cut[i]);
	}
	/* at the end of input the error is at the end */
	fails_at("\"abc", "unexpected end of input", 4);
	fails_at("[1, 2", "unexpected end of input", 5);
	/* a complete number at the window's end may go on: only the end of input settles it */
	struct jval v;
	size_t used;
	CHECK_INT(lex("12", false, &v, &used), J_MORE);
	CHECK_INT(lex("12", true, &v, &used), J_OK);
	CHECK_INT(used, 2);
}

static void errors_name_the_byte(void)
{
	fails_at("\"a\x01\"", "unescaped control character 0x01 in a string", 2);
	fails_at("\"a\xff\"", "invalid UTF-8 in a string", 2);
	fails_at("\"\xc0\x80\"", "invalid UTF-8 in a string", 1);         /* overlong */
	fails_at("\"\xed\xa0\x80\"", "invalid UTF-8 in a string", 1);     /* a UTF-16 surrogate */
	fails_at("\"\xf4\x90\x80\x80\"", "invalid UTF-8 in a string", 1); /* past U+10FFFF */
	fails_at("\"ab\\x\"", "invalid escape sequence (backslash followed by byte 0x78)", 3);
	fails_at("\"\\u12g4\"", "invalid \\u escape", 1);
	fails_at("-a", "invalid number", 1);
	fails_at("1.x", "invalid number: no digit after '.'", 2);
	fails_at("1e+x", "invalid number: no digit in the exponent", 3);
	fails_at("trux", "invalid literal (expected true)", 0);
	fails_at("nul", "unexpected end of input", 3);
	fails_at("@", "unexpected byte 0x40 where a value should start", 0);
	fails_at("[1 2]", "expected ',' or ']' in an array", 3);
	fails_at("{\"a\":1 \"b\":2}", "expected ',' or '}' in an object", 7);
	fails_at("{\"a\" 1}", "expected ':' after an object key", 5);
	fails_at("{1:2}", "expected a string key in an object", 1);
	fails_at("[1,]", "unexpected byte 0x5d where a value should start", 3);
}

static void nesting_is_bounded(void)
{
	char deep[2 * JL_MAX_DEPTH + 8];
	size_t n = 0;
	for (int i = 0; i < JL_MAX_DEPTH; i++)
		deep[n++] = '[';
	for (int i = 0; i < JL_MAX_DEPTH; i++)
		deep[n++] = ']';
	deep[n] = 0;
	struct jval v;
	size_t used;
	CHECK_INT(lex(deep, true, &v, &used), J_OK);
	CHECK_INT(used, n);
	/* one more level is refused at the opening bracket that goes too deep */
	memmove(deep + 1, deep, n + 1);
	deep[0] = '[';
	strcat(deep, "]");
	fails_at(deep, "nesting deeper than 64 levels", JL_MAX_DEPTH);
}

static void unescaping(void)
{
	static const struct {
		const char *in, *out;
		int lone;
	} cases[] = {
		{"plain", "plain", 0},
		{"a\\\"b\\\\c\\/d", "a\"b\\c/d", 0},
		{"\\b\\f\\n\\r\\t", "\b\f\n\r\t", 0},
		{"\\u0041\\u00e9\\u20ac", "A\xc3\xa9\xe2\x82\xac", 0},
		{"\\ud83d\\ude00", "\xf0\x9f\x98\x80", 0},
		{"x\\ud800y", "x\xef\xbf\xbdy", 1},     /* a lone high surrogate */
		{"\\udc00\\ud800", "\xef\xbf\xbd\xef\xbf\xbd", 2}, /* low then high: both lone */
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		uint8_t out[64];
		uint64_t lone = 0;
		size_t n = jl_unescape((const uint8_t *)cases[i].in, strlen(cases[i].in), out, &lone);
		CHECK_SLICE((const char *)out, n, cases[i].out);
		CHECK_INT(lone, cases[i].lone);
		CHECK(n <= strlen(cases[i].in));
		/* a NULL counter counts nothing and decodes the same */
		CHECK_INT(jl_unescape((const uint8_t *)cases[i].in, strlen(cases[i].in), out, NULL), n);
	}
}

static void whitespace_and_members(void)
{
	const char *text = " \t\r\n \"key\" \n: 5 , ";
	struct jlex lx = window(text, strlen(text), false, 0);
	const uint8_t *p = lx.base;
	struct jstr k = {0};
	struct jval v;
	bool more = false;
	REQUIRE_INT(jl_skip_ws(&lx, &p), J_OK);
	CHECK_INT(p - lx.base, 5);
	REQUIRE_INT(jl_member_key(&lx, &p, &k), J_OK);
	CHECK_SLICE((const char *)k.p, k.len, "key");
	REQUIRE_INT(jl_member_value(&lx, &p, 1, &v), J_OK);
	CHECK_SLICE((const char *)v.p, v.len, "5");
	/* the ',' is taken, then the blanks after it run into the window's end */
	CHECK_INT(jl_next(&lx, &p, '}', "unused", &more), J_MORE);
	lx.eof = true;
	p = lx.base + 16;
	CHECK_INT(jl_next(&lx, &p, '}', "unused", &more), J_ERR);
	CHECK_STR(err.msg, "malformed trace JSON: unexpected end of input");
}

static void digit_helpers(void)
{
	const char *s = "12345678901234567890x";
	const uint8_t *p = (const uint8_t *)s, *end = p + strlen(s);
	CHECK_INT(jl_skip_digits(p, end) - p, 20);
	CHECK_INT(jl_skip_digits(p + 20, end) - p, 20);
	CHECK(jl_digits_value(p, 19, end) == 1234567890123456789ull);
	CHECK(jl_digits_value(p, 3, end) == 123);
	CHECK(jl_digits_value(p + 17, 3, end) == 890); /* fewer than 8 bytes left: digit by digit */
	CHECK(jl_eight_digits(0x3837363534333231ull));
	CHECK(!jl_eight_digits(0x383736353433322full)); /* '/' just below '0' */
	CHECK(!jl_eight_digits(0x3a37363534333231ull)); /* ':' just above '9' */
}

int main(void)
{
	static const struct test tests[] = {
		TEST(values_as_spans),
		TEST(values_stop_at_their_end),
		TEST(window_ends_inside_a_value),
		TEST(errors_name_the_byte),
		TEST(nesting_is_bounded),
		TEST(unescaping),
		TEST(whitespace_and_members),
		TEST(digit_helpers),
	};
	return run_tests("test_json_lex", tests, sizeof tests / sizeof *tests);
}
