/* replay_main.c - runs a libFuzzer target on saved inputs (files, or directories walked in sorted order) without libFuzzer. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

/* Corpora are small and flat; the bound only stops a link cycle. */
#define REPLAY_MAX_DEPTH 16

static unsigned long replayed;

static int replay_file(const char *path, const struct stat *st)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	size_t n = (size_t)st->st_size;
	/* An exact-size heap copy, so that reading one byte too far is caught by ASan. */
	uint8_t *buf = malloc(n ? n : 1);
	size_t got = buf ? fread(buf, 1, n, f) : 0;
	fclose(f);
	if (!buf || got != n) {
		fprintf(stderr, "replay: %s: cannot read\n", path);
		free(buf);
		return -1;
	}
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	replayed++;
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_path(const char *path, int depth);

static int replay_dir(const char *path, int depth)
{
	DIR *d = opendir(path);
	if (!d) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	int rc = 0;
	while ((e = readdir(d)) && !rc) {
		if (e->d_name[0] == '.')
			continue;       /* ".", ".." and hidden files such as .gitkeep */
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			char **nv = realloc(names, cap * sizeof *nv);
			if (!nv) {
				rc = -1;
				break;
			}
			names = nv;
		}
		size_t len = strlen(path) + strlen(e->d_name) + 2;
		if (!(names[n] = malloc(len))) {
			rc = -1;
			break;
		}
		snprintf(names[n++], len, "%s/%s", path, e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, cmp_name);
	for (size_t i = 0; i < n; i++) {
		if (!rc)
			rc = replay_path(names[i], depth + 1);
		free(names[i]);
	}
	free(names);
	return rc;
}

static int replay_path(const char *path, int depth)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode))
		return depth < REPLAY_MAX_DEPTH ? replay_dir(path, depth) : 0;
	if (!S_ISREG(st.st_mode))
		return 0;
	return replay_file(path, &st);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	int rc = 0;
	for (int i = 1; i < argc && !rc; i++)
		rc = replay_path(argv[i], 0);
	printf("replayed %lu inputs\n", replayed);
	return rc ? 1 : 0;
}
