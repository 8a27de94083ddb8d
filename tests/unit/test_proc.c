/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_proc.c — sender checks from /proc (src/report/proc.h): a fake
 * proc tree for the parsing and ancestry rules (hostile comm names,
 * loops, symlinks), and real processes for ancestry and stop detection. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "report/proc.h"

static char root[256];

static void put_stat(pid_t pid, const char *content)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d", root, (int)pid);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/%d/stat", root, (int)pid);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/hs-test-proc-%d", (int)getpid());
	mkdir(root, 0700);
	put_stat(100, "100 (slurmstepd) S 1 100 100 0 -1");
	put_stat(200, "200 (bash) S 100 200 200 0 -1");
	put_stat(300, "300 (evil) T 1) S 200 300 300 0 -1");  /* comm with ") S " */
	put_stat(400, "400 (python) R 300 400");
	put_stat(500, "500 (other job) S 1 500");
	put_stat(600, "600 (loop) S 601 1");
	put_stat(601, "601 (loop) S 600 1");
	put_stat(700, "700 (garbage");
	put_stat(800, "800 (x) S notanumber");
	return 0;
}

static int teardown(void **state)
{
	char cmd[600];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void parse_stat(void **state)
{
	char st;
	pid_t pp;
	(void)state;

	assert_int_equal(hs_proc_stat(root, 300, &st, &pp), 0);
	assert_int_equal(st, 'S');
	assert_int_equal(pp, 200);
	assert_int_equal(hs_proc_stat(root, 400, &st, &pp), 0);
	assert_int_equal(st, 'R');
	assert_int_equal(hs_proc_stat(root, 700, &st, &pp), -1);
	assert_int_equal(hs_proc_stat(root, 800, &st, &pp), -1);
	assert_int_equal(hs_proc_stat(root, 999, &st, &pp), -1);
	assert_int_equal(hs_proc_stat(root, 0, &st, &pp), -1);
	assert_int_equal(hs_proc_stat(root, -5, &st, &pp), -1);
}

/* The text parser alone. A parent pid that does not fit in pid_t is
 * refused, not wrapped: "4294967297" read as 1 (init) made any process
 * look like a child of init, "2147483648" gave a negative pid (found by
 * tests/fuzz/fuzz_proc.c). The kernel never writes such a number; a
 * malformed line must still not yield a wrong ancestor. */
static void parse_text(void **state)
{
	static const char *bad[] = {
		"1 (a) S 2147483648 1", "1 (a) S 4294967297 1", "1 (a) S 6666666666662 1",
		"1 (a) S 99999999999999999999 1", "1 (a) S -1 1", "1 (a) S", "1 (a)S 1 1",
	};
	char st = '?';
	pid_t pp = -7;
	(void)state;

	assert_int_equal(hs_proc_stat_parse("1 (a) S 2147483647 1", &st, &pp), 0);
	assert_int_equal(st, 'S');
	assert_int_equal(pp, 2147483647);
	assert_int_equal(hs_proc_stat_parse("9 (x) T 1) R 77 9", &st, &pp), 0);
	assert_int_equal(st, 'R');
	assert_int_equal(pp, 77);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		st = '?';
		pp = -7;
		if (hs_proc_stat_parse(bad[i], &st, &pp) == 0)
			fail_msg("'%s' accepted: state %c, parent %d", bad[i], st, (int)pp);
		assert_int_equal(st, '?');   /* outputs untouched */
		assert_int_equal(pp, -7);
	}
}

/* The start time (field 22): what ties a pid to one process. */
static void parse_start(void **state)
{
	static const char *bad[] = {
		"1 (a) S 2 1", "1 (a) S 2 1 1 0 -1 4194560 100 0 0 0 1 1 0 0 20 0 1 0",
		"1 (a) S 2 1 1 0 -1 4194560 100 0 0 0 1 1 0 0 20 0 1 0 x 5",
		"1 (a) S 2 1 1 0 -1 4194560 100 0 0 0 1 1 0 0 20 0 1 0  5",
		"1 (a) S 2 1 1 0 -1 4194560 100 0 0 0 1 1 0 0 20 0 1 0 -5 1",
		"1 (a) S 2 1 1 0 -1 4194560 100 0 0 0 1 1 0 0 20 0 1 0 99999999999999999999999 1",
	};
	hs_proc_info_t in = { 0 };
	(void)state;

	assert_int_equal(hs_proc_info_parse("7 (a b) c) R 3 1 1 0 -1 4194560 100 0 0 0 1 1 0 0 "
					    "20 0 1 0 123456 1000 100 0\n", &in), 0);
	assert_int_equal(in.state, 'R');
	assert_int_equal(in.ppid, 3);
	assert_true(in.start == 123456);
	assert_int_equal(hs_proc_info_parse("7 (a) S 3 1 1 0 -1 4194560 100 0 0 0 1 1 0 0 "
					    "20 0 1 0 42", &in), 0);
	assert_true(in.start == 42);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		in.start = 7;
		if (hs_proc_info_parse(bad[i], &in) == 0)
			fail_msg("'%s' accepted: start %llu", bad[i], in.start);
		assert_true(in.start == 7);
	}
	/* a real process: started before now, and the same every time */
	{
		hs_proc_info_t a, b;

		assert_int_equal(hs_proc_info("/proc", getpid(), &a), 0);
		assert_int_equal(hs_proc_info("/proc", getpid(), &b), 0);
		assert_true(a.start == b.start && a.start > 0 && a.ppid == getppid());
	}
}

static void ancestry(void **state)
{
	char target[600], link[600];
	(void)state;

	assert_int_equal(hs_proc_descends(root, 400, 100), 1);
	assert_int_equal(hs_proc_descends(root, 100, 100), 1);
	assert_int_equal(hs_proc_descends(root, 500, 100), 0);  /* another job */
	assert_int_equal(hs_proc_descends(root, 600, 100), 0);  /* a ppid loop ends */
	assert_int_equal(hs_proc_descends(root, 999, 100), -1);
	/* a symlinked stat file is refused (O_NOFOLLOW) */
	snprintf(target, sizeof(target), "%s/200/stat", root);
	snprintf(link, sizeof(link), "%s/900", root);
	mkdir(link, 0700);
	snprintf(link, sizeof(link), "%s/900/stat", root);
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(hs_proc_descends(root, 900, 100), -1);
}

static void real_processes(void **state)
{
	pid_t child;
	int stopped = 0, status;
	(void)state;

	assert_int_equal(hs_proc_descends("/proc", getpid(), getppid()), 1);
	assert_int_equal(hs_proc_descends("/proc", getpid(), getpid()), 1);
	assert_int_equal(hs_proc_descends("/proc", getppid(), getpid()), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		pause();
		_exit(0);
	}
	assert_int_equal(hs_proc_descends("/proc", child, getpid()), 1);
	assert_int_equal(hs_proc_stopped("/proc", child), 0);
	kill(child, SIGSTOP);
	/* waitpid(WUNTRACED) returns once the child is stopped */
	assert_int_equal(waitpid(child, &status, WUNTRACED), child);
	assert_true(WIFSTOPPED(status));
	stopped = hs_proc_stopped("/proc", child);
	assert_int_equal(stopped, 1);
	kill(child, SIGCONT);
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	assert_int_equal(hs_proc_stopped("/proc", child), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_stat),
		cmocka_unit_test(parse_text),
		cmocka_unit_test(parse_start),
		cmocka_unit_test(ancestry),
		cmocka_unit_test(real_processes),
	};
	return cmocka_run_group_tests_name("proc", tests, setup, teardown);
}
