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

const struct xp_writer *const xp_writers[] = {
	&xp_writer_text,
	&xp_writer_csv,
	&xp_writer_json,
	&xp_writer_junit,
	&xp_writer_markdown,
	&xp_writer_html,
	NULL,
};

const struct xp_writer *xp_writer_at(size_t i)
{
	size_t n = sizeof(xp_writers) / sizeof(xp_writers[0]) - 1; /* less the NULL that ends it */
	return i < n ? xp_writers[i] : NULL;
}

bool xp_writer_takes(const struct xp_writer *w, const char *command)
{
	size_t n = strlen(command);

	/* ONLY reads as prose: "check, compare and report". */
	for (const char *p = w->only; p && *p; p += strspn(p, ", ")) {
		size_t len = strcspn(p, ", ");

		if (len == n && !strncmp(p, command, n) && strcmp(command, "and"))
			return true;
		p += len;
	}
	return !w->only;
}

const struct xp_writer *xp_writer_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; xp_writers[i]; i++)
		if (strcmp(xp_writers[i]->name, name) == 0)
			return xp_writers[i];
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

/* Why the first failed write of the output being written failed, as its writer said (xp_out_write_failed);
 * 0: none said. One output is written at a time, and its close or abort clears it. */
static int write_failure;

void xp_out_write_failed(int err)
{
	if (!write_failure)
		write_failure = err ? err : EIO;
}

static void outfile_clear(struct xp_outfile *of)
{
	write_failure = 0;      /* its failure, said or not, is no later output's */
	of->real = NULL;
	free(of->path);
	free(of->tmp);
	of->f = NULL;
	of->path = NULL;
	of->tmp = NULL;
}

static int to_compressor(struct xp_outfile *of);

/* Not a regular file (/dev/null, /dev/stdout, a FIFO): written in place, since a rename would replace it. */
static bool special_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

int xp_outfile_open(struct xp_outfile *of, const char *path)
{
	struct stat st;
	mode_t mask, mode;
	int fd, err;

	of->f = NULL;
	of->tmp = NULL;
	of->real = NULL;
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
	/* An existing file keeps its permissions (a 0600 report stays private); a new
	 * one looks like any file the user writes, though mkstemp makes 0600. */
	mask = umask(0);
	umask(mask);
	mode = stat(path, &st) == 0 && S_ISREG(st.st_mode) ? st.st_mode & 07777 : 0644 & ~mask;
	/* known to the signal handler before it exists: no moment when it would be left */
	if (xp_pending_file(of->tmp) != 0) {
		errno = EMFILE;
		goto fail;
	}
	fd = mkstemp(of->tmp);
	if (fd < 0) {
		xp_pending_file_done(of->tmp);
		goto fail;
	}
	if (fchmod(fd, mode) != 0 || !(of->f = fdopen(fd, "w"))) {
		err = errno;
		close(fd);
		unlink(of->tmp);
		xp_pending_file_done(of->tmp);
		errno = err;
		goto fail;
	}
	return xp_out_comp_of(path) == XP_OUT_PLAIN ? 0 : to_compressor(of);
fail:
	err = errno;
	outfile_clear(of);
	errno = err;
	return -1;
}

/* A compressed output: the writer writes through a compressor into the temporary file. */
static int to_compressor(struct xp_outfile *of)
{
	of->real = of->f;
	if ((of->f = xp_out_compressor(of->real, xp_out_comp_of(of->path))))
		return 0;
	int err = errno;
	fclose(of->real);
	unlink(of->tmp);
	xp_pending_file_done(of->tmp);
	outfile_clear(of);
	errno = err;
	return -1;
}

/* Why writes to the output failed: what its writer said, else ERR, else EIO. */
static int failure_of(int err)
{
	int said = write_failure;
	write_failure = 0;
	return said ? said : err ? err : EIO;
}

/* Close the compressing stream (its last bytes and the stream's end go to the temporary file); 0 or an
 * errno value. */
static int end_compressor(struct xp_outfile *of)
{
	errno = 0;
	int err = fclose(of->f) ? failure_of(errno) : 0;
	of->f = of->real;
	of->real = NULL;
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
		err = failure_of(errno);
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
	err = of->real ? end_compressor(of) : 0;
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
	if (of->tmp)
		xp_pending_file_done(of->tmp);
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
	if (of->tmp) {
		unlink(of->tmp);
		xp_pending_file_done(of->tmp);
	}
	outfile_clear(of);
	errno = err;
}

/* --- atomic -o DIR --- */

static void outdir_clear(struct xp_outdir *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->files[i]);
	free(d->files);
	free(d->path);
	free(d->tmp);
	memset(d, 0, sizeof *d);
}

static char *join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *p = malloc(a + b + 2);

	if (!p)
		return NULL;
	memcpy(p, dir, a);
	p[a] = '/';
	memcpy(p + a + 1, name, b + 1);
	return p;
}

int xp_outdir_open(struct xp_outdir *d, const char *path)
{
	size_t len = strlen(path);
	int err;

	memset(d, 0, sizeof *d);
	/* "out/" names the directory out: the temporary one goes next to it. */
	while (len > 1 && path[len - 1] == '/')
		len--;
	if (!(d->path = strndup(path, len)) || !(d->tmp = tmp_template(d->path)))
		goto fail;
	if (xp_pending_dir(d->tmp) != 0) {
		errno = EMFILE;
		goto fail;
	}
	if (!mkdtemp(d->tmp)) {
		xp_pending_dir_done(d->tmp);
		goto fail;
	}
	return 0;
fail:
	err = errno ? errno : ENOMEM;
	outdir_clear(d);
	errno = err;
	return -1;
}

/* NAME is known to the signal handler before its file is renamed into the
 * temporary directory, so that no moment leaves the directory unremovable. */
int xp_outdir_file(struct xp_outdir *d, const char *name, struct xp_outfile *of)
{
	char **v = realloc(d->files, (d->n + 1) * sizeof *v);
	char *p = join(d->tmp, name);

	if (v)
		d->files = v;
	if (!v || !p || xp_pending_file(p) != 0) {
		free(p);
		return errno = ENOMEM, -1;
	}
	d->files[d->n++] = p;
	return xp_outfile_open(of, p);
}

/* Into an existing DIR one by one: its other files stay. */
static int move_files(struct xp_outdir *d)
{
	for (size_t i = 0; i < d->n; i++) {
		char *to = join(d->path, strrchr(d->files[i], '/') + 1);

		if (!to || rename(d->files[i], to) != 0) {
			int err = to ? errno : ENOMEM;
			free(to);
			return errno = err, -1;
		}
		free(to);
	}
	return 0;
}

int xp_outdir_commit(struct xp_outdir *d)
{
	mode_t mask = umask(0);
	struct stat st;
	int rc = 0, err = 0;

	umask(mask);
	if (chmod(d->tmp, 0777 & ~mask) != 0) {
		rc = -1;
	} else if (rename(d->tmp, d->path) != 0) {
		/* rename replaces only an empty directory */
		if ((errno == ENOTEMPTY || errno == EEXIST) && stat(d->path, &st) == 0 && S_ISDIR(st.st_mode))
			rc = move_files(d);
		else
			rc = -1;
	} else {
		/* the files are in place: nothing of ours to remove any more */
		for (size_t i = 0; i < d->n; i++)
			xp_pending_file_done(d->files[i]);
		xp_pending_dir_done(d->tmp);
		sync_dir_of(d->path);
		outdir_clear(d);
		return 0;
	}
	err = errno;
	xp_outdir_abort(d);
	errno = err;
	return rc;
}

void xp_outdir_abort(struct xp_outdir *d)
{
	int err = errno;

	for (size_t i = 0; i < d->n; i++) {
		unlink(d->files[i]);
		xp_pending_file_done(d->files[i]);
	}
	if (d->tmp) {
		rmdir(d->tmp);
		xp_pending_dir_done(d->tmp);
	}
	outdir_clear(d);
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

/* The LEN bytes of TEXT as a string in BUF (BUFSZ bytes); false, BUF untouched, when they do not fit. */
static bool copy_out(char *buf, size_t bufsz, const char *text, size_t len)
{
	if (len >= bufsz)
		return false;
	memcpy(buf, text, len);
	buf[len] = '\0';
	return true;
}

/*
 * The fast case of xp_format_f64: V is the double nearest a decimal X of at most six places and fifteen
 * significant digits, with 1e-4 <= |X| < 1e9 (microseconds of picoseconds, percentages such as 31.25). Then
 * "%.15g" prints X itself: V lies within half an ulp (2^-53 relative) of X, far less than half a step of the
 * fifteen-digit grid that X is on, so correct rounding to fifteen digits gives X back; X reads back as V, so
 * fifteen digits are the shortest of the three; and %g prints that decade in fixed notation without trailing
 * zeros. (double)n / 1e6 is the double nearest n / 10^6 (n < 2^53 is exact, IEEE division rounds correctly),
 * so the test below holds exactly when such an X exists. False: use printf.
 */
static bool format_micro(double v, char *buf, size_t bufsz)
{
	double a = fabs(v);
	if (!(a >= 1e-4 && a < 1e9))
		return false;
	double scaled = nearbyint(a * 1e6);
	uint64_t n = (uint64_t)scaled;
	if ((double)n / 1e6 != a)
		return false;
	char digits[24], *end = digits + sizeof digits, *p = end;
	uint64_t whole = n / 1000000, frac = n % 1000000;
	int places = 6;
	while (places && frac % 10 == 0) {
		frac /= 10;
		places--;
	}
	for (int k = 0; k < places; k++, frac /= 10)
		*--p = (char)('0' + frac % 10);
	if (places)
		*--p = '.';
	do
		*--p = (char)('0' + whole % 10);
	while (whole /= 10);
	if (v < 0)
		*--p = '-';
	return copy_out(buf, bufsz, p, (size_t)(end - p));
}

#ifdef __SIZEOF_INT128__
typedef unsigned __int128 u128;

/* 10^K for 0 <= K <= 38. */
static u128 pow10_u128(int k)
{
	static const uint64_t small[20] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
		1000000000, 10000000000u, 100000000000u, 1000000000000u, 10000000000000u, 100000000000000u,
		1000000000000000u, 10000000000000000u, 100000000000000000u, 1000000000000000000u,
		10000000000000000000u};
	return k < 20 ? small[k] : (u128)small[19] * small[k - 19];
}

/*
 * A = M * 2^-S to seventeen significant digits, truncated: returns Q, 10^16 <= Q < 10^17, with A = (Q + F) *
 * 10^-*K for a fraction 0 <= F < 1, and *STICKY = F's numerator (0 when A is Q * 10^-*K exactly). *X, the
 * decimal exponent, comes in as an estimate that may be one off. Exact in 128 bits for the range format_exact
 * takes (M * 10^K < 2^127).
 */
static uint64_t digits17(uint64_t m, int s, int *x, int *k, u128 *sticky)
{
	const u128 lo = pow10_u128(16), hi = lo * 10;
	for (;;) {
		*k = 16 - *x;
		u128 num = (u128)m * pow10_u128(*k), q = num >> s;
		if (q < lo)
			(*x)--;
		else if (q >= hi)
			(*x)++;
		else {
			*sticky = num & (((u128)1 << s) - 1);
			return (uint64_t)q;
		}
	}
}

/* The seventeen truncated digits Q17 (with STICKY, S and K17 as digits17 gives them) rounded to P digits, half
 * to even as printf rounds: Q, 10^(P-1) <= Q < 10^P, with A ~ Q * 10^-*K; *X moves up on a carry to 10^P. */
static uint64_t round_to(uint64_t q17, u128 sticky, int s, int p, int k17, int *x, int *k)
{
	uint64_t q, below, half;
	bool above, tie;
	*k = k17 - (17 - p);
	if (p == 17) {
		q = q17;
		u128 h = (u128)1 << (s - 1);
		above = sticky > h;
		tie = sticky == h;
	} else {
		uint64_t unit = (uint64_t)pow10_u128(17 - p);
		q = q17 / unit;
		below = q17 % unit;
		half = unit / 2;
		above = below > half || (below == half && sticky);
		tie = below == half && !sticky;
	}
	if (above || (tie && (q & 1)))
		q++;
	if (q == (uint64_t)pow10_u128(p)) {     /* 9.99... rounded up to 10.0 */
		q /= 10;
		(*k)--;
		(*x)++;
	}
	return q;
}

/* Whether Q * 10^-K reads back (strtod: nearest, ties to even) as the double M * 2^-S: within half the gap to
 * either neighbour, which is half as wide below a power of two. Everything scaled by 10^K * 2^S. */
static bool reads_back(uint64_t m, int s, uint64_t q, int k)
{
	u128 dec = (u128)q << s, bin = (u128)m * pow10_u128(k), gap = pow10_u128(k);
	u128 d = dec >= bin ? dec - bin : bin - dec;
	u128 twice = (dec < bin && m == (uint64_t)1 << 52) ? 4 * d : 2 * d;
	return twice < gap || (twice == gap && !(m & 1));
}

/* Q's P digits as %.Pg writes them for decimal exponent X: fixed or exponent form, trailing zeros dropped. */
static bool write_g(uint64_t q, int p, int x, bool neg, char *buf, size_t bufsz)
{
	char dig[20], out[48], *o = out;
	for (int i = p - 1; i >= 0; i--, q /= 10)
		dig[i] = (char)('0' + q % 10);
	int nd = p;
	while (nd > 1 && dig[nd - 1] == '0')
		nd--;
	if (neg)
		*o++ = '-';
	if (x < -4 || x >= p) {
		*o++ = dig[0];
		if (nd > 1) {
			*o++ = '.';
			memcpy(o, dig + 1, (size_t)nd - 1);
			o += nd - 1;
		}
		o += sprintf(o, "e%c%02d", x < 0 ? '-' : '+', x < 0 ? -x : x);
	} else if (x >= 0) {
		for (int i = 0; i <= x; i++)
			*o++ = i < nd ? dig[i] : '0';
		if (nd > x + 1) {
			*o++ = '.';
			memcpy(o, dig + x + 1, (size_t)(nd - x - 1));
			o += nd - x - 1;
		}
	} else {
		*o++ = '0';
		*o++ = '.';
		for (int i = -1; i > x; i--)
			*o++ = '0';
		memcpy(o, dig, (size_t)nd);
		o += nd;
	}
	return copy_out(buf, bufsz, out, (size_t)(o - out));
}

/*
 * The other common case: what the printf loop of xp_format_f64 prints, without printf or strtod (a
 * percentage such as 0.0008343251499859538 costs a microsecond there), for 1e-5 <= |V| < 1e14. Such a V is
 * M * 2^-S with S >= 0, and its digits and the read-back test are exact integer sums in 128 bits.
 */
static bool format_exact(double v, char *buf, size_t bufsz)
{
	double a = fabs(v);
	if (!(a >= 1e-5 && a < 1e14))
		return false;
	int e2;
	uint64_t m = (uint64_t)ldexp(frexp(a, &e2), 53);
	int s = 53 - e2, x17 = (int)floor(log10(a)), k17;
	u128 sticky;
	uint64_t q17 = digits17(m, s, &x17, &k17, &sticky);
	for (int p = 15; p <= 17; p++) {
		int x = x17, k;
		uint64_t q = round_to(q17, sticky, s, p, k17, &x, &k);
		if (p == 17 || reads_back(m, s, q, k))
			return write_g(q, p, x, v < 0, buf, bufsz);
	}
	return false;
}
#else
static bool format_exact(double v, char *buf, size_t bufsz)
{
	return false;
}
#endif

bool xp_format_f64(double v, char *buf, size_t bufsz)
{
	char tmp[64];
	int prec;

	if (!bufsz)
		return false;
	buf[0] = '\0';
	if (!isfinite(v))
		return false;
	if (v == 0) {   /* -0 too; without printf, for the many zero cells of a large table */
		if (bufsz > 1)
			memcpy(buf, "0", 2);
		return true;
	}
	if (format_micro(v, buf, bufsz) || format_exact(v, buf, bufsz))
		return true;
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
