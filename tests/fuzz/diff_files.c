/* diff_files.c - run the XSpace differential check (walker vs protobuf-c) on whole files, with 1 and 2 threads, keeping every stat and dropping some. */
#include "xplane_diff.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int check_file(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) || st.st_size == 0) {
		fprintf(stderr, "%s: cannot read\n", path);
		if (fd >= 0)
			close(fd);
		return 1;
	}
	const uint8_t *data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (data == MAP_FAILED)
		return 1;
	char why[512];
	int rc = 0;
	for (int k = 0; k < 4 && !rc; k++) {
		int threads = 1 + k % 2;
		bool drop = k >= 2;
		rc = xp_diff_check(data, (size_t)st.st_size, threads, drop, why, sizeof why);
		if (rc)
			fprintf(stderr, "%s (%d threads%s): %s\n", path, threads, drop ? ", some stats dropped" : "", why);
	}
	munmap((void *)data, (size_t)st.st_size);
	return rc;
}

int main(int argc, char **argv)
{
	int bad = 0;
	for (int i = 1; i < argc; i++)
		bad |= check_file(argv[i]);
	if (!bad)
		printf("%d files: walker and protobuf-c agree\n", argc - 1);
	return bad;
}
