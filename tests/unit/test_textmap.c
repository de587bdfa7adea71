/* test_textmap.c - the text map (formats/core/strpool.h): texts found by their bytes, and interned texts by their id. */
#include "formats/core/strpool.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 5000  /* well past the 256-slot front, so that lookups reach the tables behind it */

static char texts[N][16], copies[N][16];

static void make_texts(void)
{
	for (int i = 0; i < N; i++) {
		snprintf(texts[i], sizeof texts[i], "op_%d", i);
		memcpy(copies[i], texts[i], sizeof texts[i]);
	}
}

/* Every interned text (text i is id i), put and looked up again (twice, the second time by its id), gives its
 * own value; a copy is found by its bytes; an id past the count is looked up by its bytes; a text never put is
 * absent. */
static void test_interned(void)
{
	make_texts();
	struct xp_textmap m = {0};
	for (int i = 0; i < N; i++)
		if (i % 2)
			xp_textmap_put_interned(&m, (uint32_t)i, N, texts[i], (uint32_t)strlen(texts[i]), (uint32_t)i);
		else
			xp_textmap_put(&m, texts[i], (uint32_t)strlen(texts[i]), (uint32_t)i);
	int wrong = 0;
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < N; i++) {
			uint32_t v = UINT32_MAX;
			bool found = xp_textmap_get_interned(&m, (uint32_t)i, N, texts[i], (uint32_t)strlen(texts[i]), &v);
			wrong += !found || v != (uint32_t)i;
		}
	CHECK_INT(wrong, 0);
	for (int i = 0; i < N; i++) {
		uint32_t v = UINT32_MAX;
		bool found = xp_textmap_get(&m, copies[i], (uint32_t)strlen(copies[i]), &v);
		wrong += !found || v != (uint32_t)i;
	}
	CHECK_INT(wrong, 0);
	uint32_t v = UINT32_MAX;
	CHECK(xp_textmap_get_interned(&m, N + 7, N, texts[3], (uint32_t)strlen(texts[3]), &v) && v == 3);
	CHECK(!xp_textmap_get_interned(&m, N, N, "op_x", 4, &v));
	CHECK(!xp_textmap_get(&m, "op_5000", 7, &v));
	xp_textmap_free(&m);
}

int main(void)
{
	static const struct test tests[] = {TEST(test_interned)};
	return RUN_TESTS("test_textmap", tests);
}
