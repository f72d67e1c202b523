// SPDX-License-Identifier: GPL-2.0
/*
 * Run a command and print its wall-clock run time (CLOCK_MONOTONIC):
 *   tmrun LABEL CMD [ARGS...]   ->  "tmrun label=LABEL ns=... status=..."
 */
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	int st = 0;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: tmrun LABEL CMD [ARGS...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 2;
	}
	if (!pid) {
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid) {
		perror("waitpid");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("tmrun label=%s ns=%lld status=%d\n", argv[1],
	       (t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec),
	       WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	fflush(stdout);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
