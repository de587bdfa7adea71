/* input.h - finding capture files under a path, and loading one into memory (mmap or decompressed). */
#ifndef XPSTAT_INPUT_H
#define XPSTAT_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "formats/model/capture.h"
#include "formats/core/xperr.h"

/* Bytes of one input file, decompressed if it was gzip or zstd (sniffed by magic). */
struct xp_buf {
	const uint8_t *data;
	uint64_t len;
	enum xp_compression comp;
	uint64_t file_bytes;
	void *map;              /* mmap of the file when not compressed */
	size_t map_len;
	uint8_t *owned;         /* decompressed buffer */
};

enum xp_compression xp_sniff(const uint8_t *p, size_t n);
const char *xp_compression_name(enum xp_compression c);
/* Decompress gzip or zstd into a malloc'd buffer, refusing output over max_out
 * bytes (a bomb) with a clear error. */
int xp_decompress(const char *path, const uint8_t *in, size_t n, enum xp_compression comp,
		  uint64_t max_out, uint8_t **out, uint64_t *out_len, struct xp_err *err);
/* Open PATH: mmap it, or decompress it when compressed. */
int xp_buf_open(const char *path, uint64_t max_bytes, struct xp_buf *b, struct xp_err *err);
/* A decompression buffer kept from one file to the next (combine reads many saved reports in turn): each
 * decompresses into memory already there, not into a new buffer doubled and copied as it fills. */
struct xp_scratch {
	uint8_t *p;
	size_t cap;
};
/* xp_buf_open, decompressing into S (B's data lives there until S's next use); S may be NULL. */
int xp_buf_open_reuse(const char *path, uint64_t max_bytes, struct xp_buf *b, struct xp_scratch *s,
		      struct xp_err *err);
void xp_scratch_free(struct xp_scratch *s);
void xp_buf_close(struct xp_buf *b);
/* About how many bytes PATH holds once decompressed (gzip's trailer, zstd's frame header; the file's size
 * when plain), without decompressing it: what progress is decided by. 0 when it cannot be opened. */
uint64_t xp_inflated_size_guess(const char *path);
/* Physical memory of the machine, the default --max-input-bytes. */
uint64_t xp_physical_memory(void);

/* A pull reader of one input's decompressed bytes, for readers that stream
 * (trace JSON) rather than hold the whole decompressed file: memory stays at a
 * few MiB whatever the size. Same sniffing, limits and error messages as
 * xp_buf_open. With threaded, gzip/zstd inflate on a helper thread ahead of
 * the caller. */
struct xp_pull;
int xp_pull_open(const char *path, uint64_t max_bytes, bool threaded, struct xp_pull **out, struct xp_err *err);
/* The same over bytes in memory (not copied; they must outlive the reader). */
int xp_pull_open_mem(const char *path, const uint8_t *data, size_t len, uint64_t max_bytes, struct xp_pull **out,
		     struct xp_err *err);
/* Up to n decompressed bytes into buf: the count, 0 at the end, -1 with err set. */
int64_t xp_pull_read(struct xp_pull *p, uint8_t *buf, size_t n, struct xp_err *err);
/* Threaded gzip/zstd only (xp_pull_can_lend): the next decompressed piece in
 * place, without a copy. The *room bytes before *data are the caller's to
 * write (to put what it kept of the last piece in front of this one). The
 * piece stays valid until xp_pull_return; returns its length, 0 at the end,
 * -1 with err set. A caller uses either this or xp_pull_read. */
bool xp_pull_can_lend(const struct xp_pull *p);
int64_t xp_pull_lend(struct xp_pull *p, uint8_t **data, size_t *room, struct xp_err *err);
/* Give back the pieces lent so far, but the last keep_last of them (0 or 1). */
void xp_pull_return(struct xp_pull *p, unsigned keep_last);
enum xp_compression xp_pull_compression(const struct xp_pull *p);
uint64_t xp_pull_file_bytes(const struct xp_pull *p);
void xp_pull_close(struct xp_pull *p);

enum xp_file_kind {
	XP_FILE_XSPACE = 1,     /* *.xplane.pb[.gz|.zst] */
	XP_FILE_TRACE_JSON = 2  /* *.trace.json[.gz], *.pt.trace.json[.gz], perfetto_trace.json.gz */
};

struct xp_input_file {
	char *path;
	char *host;             /* from the file name: "<host>.xplane.pb" -> host */
	enum xp_file_kind kind;
};

struct xp_run {
	char *name;             /* frontend run name: "<path from logdir>/<run>" or "<run>" */
	char *dir;              /* the run directory */
	size_t n_files;
	struct xp_input_file *files;
	int64_t mtime;
	int err;                /* errno when the directory could not be read (no files then) */
};

struct xp_run_list {
	size_t n;
	struct xp_run *runs;    /* sorted by name ascending (newest last) */
};

/* All runs under a logdir (any depth of .../plugins/profile/<run>/). */
int xp_list_runs(const char *logdir, struct xp_run_list *out, struct xp_err *err);
void xp_run_list_free(struct xp_run_list *l);

struct xp_input_list {
	size_t n;
	struct xp_input_file *files;
	char *run_name;         /* the run used when a logdir was given (else NULL) */
	char *run_note;         /* how that run was chosen among runs of the same name (Keras), to say; else NULL */
};

/* Resolve user paths (files, run directories, logdirs) to capture files.
 * run_name picks a run in a logdir (NULL = newest). host filters by host name
 * (':' and '_' are equivalent; NULL = all). */
int xp_resolve_inputs(char *const *paths, size_t n_paths, const char *run_name, const char *host,
		      struct xp_input_list *out, struct xp_err *err);
void xp_input_list_free(struct xp_input_list *l);
struct xp_capture;
/* After loading: hosts that share a name get their file's (then "#N"), one name per host in every
 * command, and the hosts go in natural order of their names (worker-2 before worker-10). */
void xp_hosts_name_and_sort(struct xp_capture *c);
/* Free one file's strings (a caller that drops files from a list). */
void xp_input_file_free(struct xp_input_file *f);
/* After loading, before naming: PyTorch traces of one worker in one directory ("<worker>.<ms>.pt.trace.json",
 * taken at different times) become one host named by the worker, whose events keep their absolute times
 * (spans of one worker, as the PyTorch profiler's TensorBoard plugin reads them), not one host per file;
 * then the other workers' hosts are named by their worker too. */
void xp_hosts_join_spans(struct xp_capture *c);
/* Host part of a capture file name ("a.b.c.xplane.pb.gz" -> "a.b.c"). */
char *xp_host_from_filename(const char *path);
bool xp_host_matches(const char *want, const char *have);

#endif
