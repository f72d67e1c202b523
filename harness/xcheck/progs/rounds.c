// SPDX-License-Identifier: GPL-2.0
/*
 * rounds N CMD [ARGS...] [';' CMD [ARGS...]]...
 *
 * Runs the commands one after the other, N times, each with its standard
 * output on /dev/null; stops at the first that fails, with its status. It
 * lets the cross-check record programs that take no run time argument
 * (dtc, gzip) for as many rounds as it needs samples, without a shell in
 * the recording.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int run(char **argv)
{
	int status, fd;
	pid_t pid = fork();

	if (pid < 0) {
		perror("rounds: fork");
		return 1;
	}
	if (!pid) {
		fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, 1);
		execv(argv[0], argv);
		fprintf(stderr, "rounds: cannot run %s\n", argv[0]);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("rounds: waitpid");
		return 1;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	long n;
	int i, j, rc;

	if (argc < 3 || (n = atol(argv[1])) < 1) {
		fprintf(stderr, "usage: rounds N CMD [ARGS...] [';' CMD [ARGS...]]...\n");
		return 2;
	}
	/* the commands: argv + start, each cut at its ';' */
	for (i = 2; i < argc; i++)
		if (!strcmp(argv[i], ";"))
			argv[i] = NULL;
	while (n--) {
		for (i = 2; i < argc; i = j + 1) {
			for (j = i; j < argc && argv[j]; j++)
				;
			if (j == i)
				continue;
			rc = run(argv + i);
			if (rc)
				return rc;
		}
	}
	return 0;
}
