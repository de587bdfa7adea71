/* measure.c - run a command, print its wall time and peak RSS (wait4), for the benchmark scripts. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

/* Usage: measure OUTFILE CMD ARGS... ; stdout of CMD goes to OUTFILE ("-" = /dev/null).
 * Prints "wall_s=<seconds> maxrss_kb=<kb> status=<exit status> user_s=<seconds> sys_s=<seconds>". */
int main(int argc, char **argv)
{
	if (argc < 3) {
		fputs("usage: measure OUTFILE CMD [ARGS...]\n", stderr);
		return 2;
	}
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	pid_t pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		int fd = open(argv[1][0] == '-' && !argv[1][1] ? "/dev/null" : argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
			_exit(127);
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) < 0)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &b);
	double wall = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	/* CPU time too: on a loaded machine the wall time says more about the neighbours than the command. */
	printf("wall_s=%.3f maxrss_kb=%ld status=%d user_s=%.3f sys_s=%.3f\n", wall, ru.ru_maxrss,
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
	       (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6);
	return 0;
}
