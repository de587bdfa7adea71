/* out.c - the writer registry, atomic output files, and helpers shared by the writers. */
#include "out.h"
#include "formats/core/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct xp_writer *const writers[] = {
	&xp_writer_text,
	&xp_writer_csv,
	&xp_writer_json,
	&xp_writer_junit,
};

const struct xp_writer *xp_writer_find(const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; i < sizeof(writers) / sizeof(writers[0]); i++)
		if (strcmp(writers[i]->name, name) == 0)
			return writers[i];
	return NULL;
}

/* --- atomic -o --- */

/* "dir/.xpstat-XXXXXX" for "dir/name": same directory, so rename() is atomic. */
static char *tmp_template(const char *path)
{
	static const char tail[] = ".xpstat-XXXXXX";
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	char *t = malloc(dirlen + sizeof(tail));

	if (!t)
		return NULL;
	memcpy(t, path, dirlen);
	memcpy(t + dirlen, tail, sizeof(tail));
	return t;
}

static void outfile_clear(struct xp_outfile *of)
{
	free(of->mem);
	of->mem = NULL;
	of->real = NULL;
	free(of->path);
	free(of->tmp);
	of->f = NULL;
	of->path = NULL;
	of->tmp = NULL;
}

static int to_memory(struct xp_outfile *of);

/* Not a regular file (/dev/null, /dev/stdout, a FIFO): written in place, since a rename would replace it. */
static bool special_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

int xp_outfile_open(struct xp_outfile *of, const char *path)
{
	mode_t mask;
	int fd, err;

	of->f = NULL;
	of->tmp = NULL;
	of->real = NULL;
	of->mem = NULL;
	if (special_file(path)) {
		if (!(of->path = strdup(path)))
			return errno = ENOMEM, -1;
		if (!(of->f = fopen(path, "w"))) {
			err = errno;
			outfile_clear(of);
			errno = err;
			return -1;
		}
		return 0;
	}
	of->path = strdup(path);
	of->tmp = tmp_template(path);
	if (!of->path || !of->tmp) {
		outfile_clear(of);
		errno = ENOMEM;
		return -1;
	}
	fd = mkstemp(of->tmp);
	if (fd < 0)
		goto fail;
	/* mkstemp makes 0600; the result should look like any file the user writes. */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0644 & ~mask) != 0 || !(of->f = fdopen(fd, "w"))) {
		err = errno;
		close(fd);
		unlink(of->tmp);
		errno = err;
		goto fail;
	}
	return xp_out_comp_of(path) == XP_OUT_PLAIN ? 0 : to_memory(of);
fail:
	err = errno;
	outfile_clear(of);
	errno = err;
	return -1;
}

/* A compressed output: the writer fills memory, commit compresses it into the temporary file. */
static int to_memory(struct xp_outfile *of)
{
	of->real = of->f;
	if ((of->f = open_memstream(&of->mem, &of->mem_len)))
		return 0;
	int err = errno;
	fclose(of->real);
	unlink(of->tmp);
	outfile_clear(of);
	errno = err;
	return -1;
}

/* Close the memory stream and compress what it holds into the temporary file; 0 or an errno value. */
static int compress_memory(struct xp_outfile *of)
{
	int err = fclose(of->f) ? (errno ? errno : EIO) : 0;
	of->f = of->real;
	of->real = NULL;
	if (!err)
		err = xp_out_compress(of->f, xp_out_comp_of(of->path), of->mem, of->mem_len);
	free(of->mem);
	of->mem = NULL;
	return err;
}

/* Best effort: make the rename itself durable. */
static void sync_dir_of(const char *path)
{
	char *dir = tmp_template(path);
	char *slash;
	int fd;

	if (!dir)
		return;
	slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir ? 1 : 0] = '\0';
	else
		strcpy(dir, ".");
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

/* Flush, sync and close the temporary file; 0 or an errno value. */
static int close_tmp(FILE *f)
{
	int err = 0;

	errno = 0;
	if (fflush(f) != 0 || ferror(f))
		err = errno ? errno : EIO;
	else if (fsync(fileno(f)) != 0 && errno != EINVAL && errno != EROFS)
		err = errno;
	errno = 0;
	if (fclose(f) != 0 && !err)
		err = errno ? errno : EIO;
	return err;
}

int xp_outfile_commit(struct xp_outfile *of)
{
	int err;

	if (!of->f) {
		outfile_clear(of);
		errno = EINVAL;
		return -1;
	}
	err = of->real ? compress_memory(of) : 0;
	if (err)
		fclose(of->f);
	else
		err = close_tmp(of->f);
	of->f = NULL;
	if (!of->tmp) {
		/* A special file, written in place. */
	} else if (!err && rename(of->tmp, of->path) != 0) {
		err = errno;
	}
	if (err && of->tmp)
		unlink(of->tmp);
	else if (of->tmp)
		sync_dir_of(of->path);
	outfile_clear(of);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

void xp_outfile_abort(struct xp_outfile *of)
{
	int err = errno;

	if (of->f)
		fclose(of->f);
	if (of->real)
		fclose(of->real);
	if (of->tmp)
		unlink(of->tmp);
	outfile_clear(of);
	errno = err;
}

/* --- helpers shared by the writers --- */


char *xp_utf8_sanitize(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, o = 0;
	char *out;

	/* Each bad byte grows from 1 to 3 bytes (EF BF BD). */
	if (n > (SIZE_MAX - 1) / 3 || !(out = malloc(n * 3 + 1))) {
		xp_oom();
	}
	while (i < n) {
		uint32_t cp;
		size_t len = xp_utf8_decode(p + i, n - i, &cp);

		if (len) {
			memcpy(out + o, p + i, len);
			o += len;
			i += len;
		} else {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	out[o] = '\0';
	return out;
}

/* Replace the locale's decimal point by '.', so output never depends on LC_NUMERIC. */
void xp_c_decimal_point(char *buf)
{
	const char *dp = localeconv()->decimal_point;
	size_t dl;
	char *hit;

	if (!dp || !*dp || strcmp(dp, ".") == 0)
		return;
	hit = strstr(buf, dp);
	if (!hit)
		return;
	dl = strlen(dp);
	*hit = '.';
	memmove(hit + 1, hit + dl, strlen(hit + dl) + 1);
}

bool xp_format_f64(double v, char *buf, size_t bufsz)
{
	char tmp[64];
	int prec;

	if (!bufsz)
		return false;
	buf[0] = '\0';
	if (!isfinite(v))
		return false;
	if (v == 0) {
		snprintf(buf, bufsz, "0");
		return true;
	}
	/* The round trip is checked before xp_c_decimal_point: strtod reads the locale's form. */
	for (prec = 15; prec < 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	if (prec == 17)
		snprintf(tmp, sizeof(tmp), "%.17g", v);
	xp_c_decimal_point(tmp);
	snprintf(buf, bufsz, "%s", tmp);
	return true;
}
