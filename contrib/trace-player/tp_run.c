/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tp_run.c — fork/exec with a stdout pipe, and shell quoting; see
 * tp_run.h. */
#include "tp_run.h"

#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int tp_run(char *const argv[], char *out, size_t size)
{
	int fds[2], status;
	size_t used = 0;
	pid_t pid;

	if (pipe(fds) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	for (;;) {
		char buf[4096];
		ssize_t n = read(fds[0], buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (out && used + 1 < size) {
			size_t k = (size_t)n < size - 1 - used ? (size_t)n : size - 1 - used;

			memcpy(out + used, buf, k);
			used += k;
		}
	}
	close(fds[0]);
	if (out && size)
		out[used] = '\0';
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int tp_shell_quote(char *buf, size_t size, const char *arg)
{
	size_t pos = strlen(buf);

	if (pos + 3 >= size)
		return -1;
	if (pos)
		buf[pos++] = ' ';
	buf[pos++] = '\'';
	for (; *arg; arg++) {
		const char *add = *arg == '\'' ? "'\\''" : NULL;
		size_t n = add ? 4 : 1;

		if (pos + n + 2 >= size)
			return -1;
		if (add)
			memcpy(buf + pos, add, n);
		else
			buf[pos] = *arg;
		pos += n;
	}
	buf[pos++] = '\'';
	buf[pos] = '\0';
	return 0;
}
