// SPDX-License-Identifier: MIT
/*
 * gmprof-bench: runs a command several times and prints its median wall
 * time and its peak resident memory (from wait4), one line:
 *
 *   gmprof-bench [-r RUNS] [-i FILE] -- COMMAND ARGS...  ->  "<median seconds> <max RSS KiB>"
 *
 * -i FILE: the command's standard input (opened anew for every run).
 * Standard output of the command goes to /dev/null.  Exit 2 when the
 * command fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int runs = 5, i = 1;
	const char *input = NULL;
	for (;;) {
		if (i + 1 < argc && strcmp(argv[i], "-r") == 0)
			runs = atoi(argv[i + 1]);
		else if (i + 1 < argc && strcmp(argv[i], "-i") == 0)
			input = argv[i + 1];
		else
			break;
		i += 2;
	}
	if (i >= argc || strcmp(argv[i], "--") != 0 || i + 1 >= argc || runs < 1 || runs > 100) {
		fprintf(stderr, "usage: gmprof-bench [-r RUNS] [-i FILE] -- COMMAND ARGS...\n");
		return 2;
	}
	char **cmd = argv + i + 1;
	double t[100];
	long maxrss = 0;
	for (int r = 0; r < runs; r++) {
		double t0 = now();
		pid_t pid = fork();
		if (pid < 0) {
			perror("gmprof-bench: fork");
			return 2;
		}
		if (pid == 0) {
			int fd = open("/dev/null", O_WRONLY);
			if (fd >= 0)
				dup2(fd, STDOUT_FILENO);
			if (input) {
				int in = open(input, O_RDONLY);
				if (in < 0 || dup2(in, STDIN_FILENO) < 0)
					_exit(127);
			}
			execvp(cmd[0], cmd);
			fprintf(stderr, "gmprof-bench: cannot run '%s': %s\n", cmd[0], strerror(errno));
			_exit(127);
		}
		int status;
		struct rusage ru;
		if (wait4(pid, &status, 0, &ru) < 0) {
			perror("gmprof-bench: wait4");
			return 2;
		}
		t[r] = now() - t0;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			fprintf(stderr, "gmprof-bench: '%s' failed (status %d)\n", cmd[0], status);
			return 2;
		}
		if (ru.ru_maxrss > maxrss)
			maxrss = ru.ru_maxrss;
	}
	qsort(t, (size_t)runs, sizeof(t[0]), cmp_double);
	printf("%.4f %ld\n", t[runs / 2], maxrss);
	return 0;
}
