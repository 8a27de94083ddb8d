/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_statefile.c — hs_file_write_atomic and hs_file_read_small
 * (src/sched/statefile.h) against files planted in a directory other users
 * can write (a StatusFile or MetricsFile directory): a FIFO at the
 * temporary name or at the file itself must not block the caller (the
 * sched plugin's agent thread), and a planted symlink is never followed.
 * Each call runs under alarm(): a blocked call fails the test with
 * SIGALRM instead of hanging the suite. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sched/statefile.h"

#define ALARM_S 5   /* far above a write of a few bytes, even under valgrind */

static void rm_rf(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void file_is(const char *path, const char *want)
{
	char buf[256] = "";
	int fd = open(path, O_RDONLY | O_NOFOLLOW);
	ssize_t n;
	struct stat st;

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n >= 0);
	buf[n] = '\0';
	assert_string_equal(buf, want);
}

/* A FIFO at "<path>.tmp.<pid>": opened for writing without O_NONBLOCK the
 * open waits for a reader that never comes. The write must succeed (the
 * stale name is removed and created anew, exclusively) without blocking. */
static void fifo_at_tmp_name(void **state)
{
	char dir[] = "/tmp/hs-statefile-fifo-XXXXXX", path[512], tmp[600];
	hs_err_t err;
	(void)state;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/status.json", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	assert_int_equal(mkfifo(tmp, 0666), 0);
	alarm(ALARM_S);
	int rc = hs_file_write_atomic(path, "{\"ok\":1}", 8, 0644, &err);
	alarm(0);
	if (rc)
		print_message("# write: %s\n", err.msg);
	assert_int_equal(rc, 0);
	file_is(path, "{\"ok\":1}");
	assert_int_equal(access(tmp, F_OK), -1);   /* the FIFO is gone */
	rm_rf(dir);
}

/* A symlink at the temporary name (to a file the caller may write) is
 * removed, not followed: its target is unchanged. */
static void symlink_at_tmp_name(void **state)
{
	char dir[] = "/tmp/hs-statefile-link-XXXXXX", path[512], tmp[600], target[600];
	hs_err_t err;
	(void)state;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/metrics.txt", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	snprintf(target, sizeof(target), "%s/victim", dir);
	assert_int_equal(hs_file_write_atomic(target, "victim", 6, 0600, &err), 0);
	assert_int_equal(symlink(target, tmp), 0);
	alarm(ALARM_S);
	assert_int_equal(hs_file_write_atomic(path, "new", 3, 0644, &err), 0);
	alarm(0);
	file_is(path, "new");
	file_is(target, "victim");
	rm_rf(dir);
}

/* A FIFO where the file itself should be: reading it must fail at once
 * (not a regular file) rather than wait for a writer. */
static void fifo_read(void **state)
{
	char dir[] = "/tmp/hs-statefile-rfifo-XXXXXX", path[512];
	char *out = NULL;
	size_t len = 0;
	hs_err_t err;
	(void)state;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/state.json", dir);
	assert_int_equal(mkfifo(path, 0666), 0);
	alarm(ALARM_S);
	assert_int_equal(hs_file_read_small(path, 1024, &out, &len, &err), -1);
	alarm(0);
	assert_null(out);
	rm_rf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fifo_at_tmp_name),
		cmocka_unit_test(symlink_at_tmp_name),
		cmocka_unit_test(fifo_read),
	};
	/* SIGALRM's default action ends the process: a blocked call is a
	 * failed test, not a hung one */
	signal(SIGALRM, SIG_DFL);
	return cmocka_run_group_tests_name("statefile", tests, NULL, NULL);
}
