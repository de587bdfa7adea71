/* pending.c - temporary files and directories being written, removed when SIGINT, SIGTERM or SIGHUP ends the program. */
#include "out.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

/*
 * The handler may run at any point of a write, on any thread, so it only
 * reads these slots (pointers stored after their strings are whole, cleared
 * before they are freed) and calls unlink, rmdir and raise, which are
 * async-signal-safe. Files are removed before directories, so a temporary
 * CSV directory is empty when its turn comes.
 */
#define N_SLOTS 256

static _Atomic(const char *) files[N_SLOTS];
static _Atomic(const char *) dirs[4];

static int put(_Atomic(const char *) *v, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++) {
		const char *none = NULL;
		if (atomic_compare_exchange_strong(&v[i], &none, path))
			return 0;
	}
	return -1;
}

static void drop(_Atomic(const char *) *v, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++) {
		const char *was = path;
		if (atomic_compare_exchange_strong(&v[i], &was, NULL))
			return;
	}
}

int xp_pending_file(const char *path)
{
	return put(files, N_SLOTS, path);
}

void xp_pending_file_done(const char *path)
{
	drop(files, N_SLOTS, path);
}

int xp_pending_dir(const char *path)
{
	return put(dirs, sizeof dirs / sizeof *dirs, path);
}

void xp_pending_dir_done(const char *path)
{
	drop(dirs, sizeof dirs / sizeof *dirs, path);
}

static void on_signal(int sig)
{
	int saved = errno;
	for (size_t i = 0; i < N_SLOTS; i++) {
		const char *p = atomic_load(&files[i]);
		if (p)
			unlink(p);
	}
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
		const char *p = atomic_load(&dirs[i]);
		if (p)
			rmdir(p);
	}
	errno = saved;
	/* SA_RESETHAND restored the default action and SA_NODEFER lets it act now: the
	 * program ends with the signal's status, as if it had not been caught. */
	raise(sig);
}

void xp_pending_on_signals(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
		struct sigaction old;
		/* A signal ignored by whoever started us (nohup) stays ignored. */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
	}
}
