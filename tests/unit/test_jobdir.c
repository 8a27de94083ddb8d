/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_jobdir.c — the per-job, per-node directory of spank_hetsched
 * (src/report/jobdir.h) in a temporary base: the directories' ownership
 * and mode checks, the step join (first step loads, later ones use the
 * cache), one listener per job per node, the socket only the job's user
 * can reach (run as root: children switch to two other uids), and a
 * listener that accepts the processes of another registered step of the
 * same job but not other processes of the user. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "report/jobdir.h"
#include "report/listener.h"
#include "report/proc.h"

#define JOB_UID 65534     /* nobody: the job's user */
#define OTHER_UID 65533   /* another user on the node */

static char base[64];

static int setup(void **state)
{
	(void)state;
	snprintf(base, sizeof(base), "/tmp/hs-jobdir-%d", (int)getpid());
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd) == 0 ? 0 : -1;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void open_checks(void **state)
{
	hs_jobdir_t jd;
	hs_err_t err;
	struct stat st;
	char p[128];
	(void)state;

	char tag[HS_JOBDIR_TAG_MAX + 1];

	assert_int_equal(hs_jobdir_open(&jd, "relative/dir", 1, "n1.0", &err), -1);
	assert_int_equal(hs_jobdir_open(&jd, "/tmp/0123456789012345678901234567890123456789", 1,
					"n1.0", &err), -1);
	assert_int_equal(hs_jobdir_open(&jd, base, 1, "../n1", &err), -1);
	assert_int_equal(hs_jobdir_open(&jd, base, 1, "", &err), -1);
	/* tags: the node name when short and plain, else a hash; and a hash
	 * of the configuration path (several clusters on one host) */
	hs_jobdir_tag("v100-1", "/etc/slurm/slurm.conf", tag, sizeof(tag));
	assert_int_equal(strncmp(tag, "v100-1.", 7), 0);
	assert_int_equal(strlen(tag), 15);
	{
		char other[HS_JOBDIR_TAG_MAX + 1];

		hs_jobdir_tag("v100-1", "/tmp/c2/slurm.conf", other, sizeof(other));
		assert_string_not_equal(tag, other);
		hs_jobdir_tag("../../etc/node-with-a-much-too-long-name", NULL, other, sizeof(other));
		assert_int_equal(other[0], 'h');
		assert_null(strchr(other, '/'));
		assert_true(strlen(other) <= HS_JOBDIR_TAG_MAX);
	}
	umask(077);   /* the mode is set, not left to the umask */
	assert_int_equal(hs_jobdir_open(&jd, base, 42, "n1.0", &err), 0);
	umask(022);
	snprintf(p, sizeof(p), "%s/42.n1.0", base);
	assert_string_equal(jd.path, p);
	assert_int_equal(stat(base, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0711);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0711);
	hs_jobdir_close(&jd);
	hs_jobdir_close(&jd);   /* twice is harmless */
	/* a base others can write into is refused, not used */
	assert_int_equal(chmod(base, 0777), 0);
	assert_int_equal(hs_jobdir_open(&jd, base, 42, "n1.0", &err), -1);
	printf("# %s\n", err.msg);
	assert_int_equal(chmod(base, 0711), 0);
	/* a job directory that is a symlink is refused */
	snprintf(p, sizeof(p), "%s/43.n1.0", base);
	assert_int_equal(symlink("/etc", p), 0);
	assert_int_equal(hs_jobdir_open(&jd, base, 43, "n1.0", &err), -1);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(hs_jobdir_remove(base, 42, "n1.0", &err), 0);
	assert_int_equal(access(jd.path, F_OK), -1);
	assert_int_equal(hs_jobdir_remove(base, 42, "n1.0", &err), 0);   /* absent: fine */
}

/* The first step of the job on the node loads and caches; steps that
 * join while it runs use the cache; once every step has left, the next
 * one is first again (the cache may be an earlier incarnation's). */
static void join_and_cache(void **state)
{
	hs_jobdir_t a, b, c;
	hs_err_t err;
	char buf[64];
	(void)state;

	assert_int_equal(hs_jobdir_open(&a, base, 7, "n1.0", &err), 0);
	assert_int_equal(hs_jobdir_join(&a, 1, &err), 1);
	assert_int_equal(hs_jobdir_cache_read(&a, buf, sizeof(buf)), 0);
	assert_int_equal(hs_jobdir_cache_write(&a, "hs1 gpu=v100 shared=0 rc=0\n", &err), 0);
	/* b waits while a (first) loads: gives up after 0.2 s, unlocked */
	assert_int_equal(hs_jobdir_open(&b, base, 7, "n1.0", &err), 0);
	assert_int_equal(hs_jobdir_join(&b, 0.2, &err), 0);
	hs_jobdir_close(&b);
	hs_jobdir_joined(&a);
	assert_int_equal(hs_jobdir_open(&b, base, 7, "n1.0", &err), 0);
	assert_int_equal(hs_jobdir_join(&b, 1, &err), 0);
	assert_int_equal(hs_jobdir_cache_read(&b, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "hs1 gpu=v100 shared=0 rc=0\n");
	hs_jobdir_close(&a);
	/* b still runs: c joins it */
	assert_int_equal(hs_jobdir_open(&c, base, 7, "n1.0", &err), 0);
	assert_int_equal(hs_jobdir_join(&c, 1, &err), 0);
	hs_jobdir_close(&c);
	hs_jobdir_close(&b);
	/* nobody runs: first again, the stale cache is gone */
	assert_int_equal(hs_jobdir_open(&c, base, 7, "n1.0", &err), 0);
	assert_int_equal(hs_jobdir_join(&c, 1, &err), 1);
	assert_int_equal(hs_jobdir_cache_read(&c, buf, sizeof(buf)), 0);
	hs_jobdir_close(&c);
	assert_int_equal(hs_jobdir_remove(base, 7, "n1.0", &err), 0);
}

/* One listener per job per node: the first claim wins until its step
 * leaves; registrations vouch for a slurmstepd by pid and start time. */
static void claim_and_register(void **state)
{
	hs_jobdir_t a, b;
	hs_err_t err;
	char path[HS_JOBDIR_PATH_MAX];
	int fd;
	(void)state;

	assert_int_equal(hs_jobdir_open(&a, base, 8, "n1.0", &err), 0);
	assert_int_equal(hs_jobdir_open(&b, base, 8, "n1.0", &err), 0);
	assert_int_equal(hs_jobdir_claim(&a, &err), 1);
	assert_int_equal(hs_jobdir_claim(&b, &err), 0);
	assert_int_equal(hs_jobdir_wait_socket(&b, 0.05, path, sizeof(path)), -1);
	assert_int_equal(hs_jobdir_bind(&a, getuid(), getgid(), &fd, path, sizeof(path), &err), 0);
	assert_int_equal(hs_jobdir_wait_socket(&b, 0.05, path, sizeof(path)), 0);
	assert_int_equal(hs_jobdir_register(&b, 4242, 777, &err), 0);
	assert_true(hs_jobdir_is_stepd(&a, 4242, 777));
	assert_false(hs_jobdir_is_stepd(&a, 4242, 778));   /* the pid reused */
	assert_false(hs_jobdir_is_stepd(&a, 4243, 777));
	hs_jobdir_close(&b);
	assert_false(hs_jobdir_is_stepd(&a, 4242, 777));   /* unregistered */
	close(fd);
	hs_jobdir_close(&a);
	assert_int_equal(access(path, F_OK), -1);          /* the socket went with it */
	assert_int_equal(hs_jobdir_open(&b, base, 8, "n1.0", &err), 0);
	assert_int_equal(hs_jobdir_claim(&b, &err), 1);    /* free again */
	hs_jobdir_close(&b);
	assert_int_equal(hs_jobdir_remove(base, 8, "n1.0", &err), 0);
}

/* As uid, sends n datagrams to path (blocking sends, as a flooder would);
 * exits with the number the kernel refused with EACCES. */
static pid_t send_as(uid_t uid, const char *path, int n)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		int fd, refused = 0;

		if (setgid(uid) < 0 || setuid(uid) < 0)
			_exit(255);
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
		fd = socket(AF_UNIX, SOCK_DGRAM, 0);
		for (int i = 0; i < n; i++)
			if (sendto(fd, "hs1 ckpt=3", 10, MSG_DONTWAIT, (struct sockaddr *)&sa,
				   sizeof(sa)) < 0 && errno == EACCES)
				refused++;
		sleep_s(0.3);   /* alive while the listener checks the sender */
		_exit(refused > 250 ? 250 : refused);
	}
	return pid;
}

/* The listener other_users_refused runs while it forks senders. A child
 * has no listener thread, so under valgrind the listener's block would be
 * "definitely lost" at the child's _exit (the only pointer to it may live
 * in a register of the parent's frame), and valgrind's error exit code
 * would replace the child's: a pointer here keeps it reachable. */
static hs_listener_t *volatile forked_with; /* volatile: not a dead store */

static int exit_code(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

typedef struct seen {
	pthread_mutex_t mu;
	int ckpt_pubs;
	uint64_t ckpt;
} seen_t;

static int on_publish(void *arg, const hs_listener_state_t *st, hs_publish_why_t why)
{
	seen_t *s = arg;

	pthread_mutex_lock(&s->mu);
	if (why == HS_PUB_CKPT || (why == HS_PUB_FINAL && st->has_ckpt)) {
		s->ckpt_pubs++;
		s->ckpt = st->ckpt;
	}
	pthread_mutex_unlock(&s->mu);
	return 0;
}

/* The socket only the job's user can reach (item 7 of issue 28): another
 * user's sends are refused by the kernel (EACCES), so it cannot fill the
 * queue, and the job's own acknowledgement gets through. With the
 * abstract socket used before, the same sends were queued (and read,
 * and dropped, by the listener). */
static void other_users_refused(void **state)
{
	hs_listener_cfg_t cfg;
	hs_listener_counters_t c;
	hs_jobdir_t jd;
	hs_err_t err;
	char path[HS_JOBDIR_PATH_MAX];
	struct stat st;
	seen_t s = { .mu = PTHREAD_MUTEX_INITIALIZER };
	hs_listener_t *l;
	int fd;
	(void)state;

	if (geteuid() != 0)
		skip();   /* needs root to be three users */
	assert_int_equal(hs_jobdir_open(&jd, base, 9, "n1.0", &err), 0);
	assert_int_equal(hs_jobdir_claim(&jd, &err), 1);
	assert_int_equal(hs_jobdir_bind(&jd, JOB_UID, JOB_UID, &fd, path, sizeof(path), &err), 0);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_uid, JOB_UID);
	assert_int_equal(st.st_mode & 07777, 0600);
	hs_listener_defaults(&cfg);
	cfg.fd = fd;
	cfg.uid = JOB_UID;
	cfg.ancestor = getpid();
	cfg.tick = 0.05;
	cfg.publish_interval = 0;
	cfg.publish = on_publish;
	cfg.arg = &s;
	l = hs_listener_start(&cfg, NULL, 0, &err);
	assert_non_null(l);
	forked_with = l;
	/* the other user: every send refused, nothing queued */
	assert_int_equal(exit_code(send_as(OTHER_UID, path, 200)), 200);
	/* the job's user: accepted (a descendant of this "slurmstepd") */
	assert_int_equal(exit_code(send_as(JOB_UID, path, 1)), 0);
	sleep_s(0.3);
	hs_listener_stop(l, &c, NULL);
	forked_with = NULL;
	printf("# received %lu, foreign %lu, accepted %lu\n", c.received, c.foreign, c.accepted);
	assert_int_equal(c.foreign, 0);
	assert_int_equal(c.accepted, 1);
	assert_int_equal(s.ckpt_pubs, 1);
	hs_jobdir_close(&jd);
	assert_int_equal(hs_jobdir_remove(base, 9, "n1.0", &err), 0);
	pthread_mutex_destroy(&s.mu);
}

static int stepd_ok(void *arg, pid_t pid, unsigned long long start)
{
	return hs_jobdir_is_stepd(arg, pid, start);
}

/* Runs as another step's slurmstepd: reads the socket's path from go,
 * forks a task that reports there, waits for it. */
static void stepd_body(int go)
{
	char path[HS_JOBDIR_PATH_MAX] = "";
	pid_t task;
	int status;

	if (read(go, path, sizeof(path) - 1) <= 0)
		_exit(2);
	task = fork();
	if (task == 0) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		int fd = socket(AF_UNIX, SOCK_DGRAM, 0);

		/* memcpy, not snprintf: -O1 builds warn that a longer
		 * path could be truncated; one that does not fit fails. */
		if (strlen(path) >= sizeof(sa.sun_path))
			_exit(5);
		memcpy(sa.sun_path, path, strlen(path) + 1);
		if (sendto(fd, "hs1 step=11", 11, 0, (struct sockaddr *)&sa, sizeof(sa)) != 11)
			_exit(3);
		sleep_s(0.5);   /* alive while the listener checks it */
		_exit(0);
	}
	waitpid(task, &status, 0);
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 4);
}

/* A second step of the job shares the first step's listener: its
 * slurmstepd registers, and its tasks' reports are accepted; an
 * unregistered process of the same user (another job) is not. */
static void shared_listener(void **state)
{
	hs_listener_cfg_t cfg;
	hs_listener_counters_t c;
	hs_listener_state_t fin;
	hs_jobdir_t owner, second;
	hs_err_t err;
	hs_proc_info_t in;
	char path[HS_JOBDIR_PATH_MAX], path2[HS_JOBDIR_PATH_MAX];
	hs_listener_t *l;
	pid_t stepd, stranger;
	int fd, go[2], go2[2];
	(void)state;

	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(go2), 0);
	stepd = fork();
	assert_true(stepd >= 0);
	if (stepd == 0)
		stepd_body(go[0]);
	stranger = fork();
	assert_true(stranger >= 0);
	if (stranger == 0)
		stepd_body(go2[0]);
	assert_int_equal(hs_jobdir_open(&owner, base, 10, "n1.0", &err), 0);
	assert_int_equal(hs_jobdir_claim(&owner, &err), 1);
	assert_int_equal(hs_jobdir_bind(&owner, getuid(), getgid(), &fd, path, sizeof(path), &err), 0);
	hs_listener_defaults(&cfg);
	cfg.fd = fd;
	cfg.uid = getuid();
	cfg.ancestor = 0;   /* none: only registered slurmstepds count */
	cfg.ancestor_ok = stepd_ok;
	cfg.arg = &owner;
	cfg.tick = 0.05;
	l = hs_listener_start(&cfg, NULL, 0, &err);
	assert_non_null(l);
	/* the second step: claims in vain, registers its slurmstepd */
	assert_int_equal(hs_jobdir_open(&second, base, 10, "n1.0", &err), 0);
	assert_int_equal(hs_jobdir_claim(&second, &err), 0);
	assert_int_equal(hs_jobdir_wait_socket(&second, 1, path2, sizeof(path2)), 0);
	assert_string_equal(path, path2);
	assert_int_equal(hs_proc_info("/proc", stepd, &in), 0);
	assert_int_equal(hs_jobdir_register(&second, stepd, in.start, &err), 0);
	/* the registered step's task reports, then a process of the same
	 * user that belongs to no step of the job */
	assert_int_equal(write(go[1], path, strlen(path) + 1), (ssize_t)strlen(path) + 1);
	assert_int_equal(exit_code(stepd), 0);
	assert_int_equal(write(go2[1], path, strlen(path) + 1), (ssize_t)strlen(path) + 1);
	assert_int_equal(exit_code(stranger), 0);
	sleep_s(0.2);
	hs_listener_stop(l, &c, &fin);
	printf("# accepted %lu, foreign %lu\n", c.accepted, c.foreign);
	assert_int_equal(c.accepted, 1);
	assert_int_equal(c.foreign, 1);
	assert_true(fin.has_step && fin.step == 11);
	hs_jobdir_close(&second);
	hs_jobdir_close(&owner);
	assert_int_equal(hs_jobdir_remove(base, 10, "n1.0", &err), 0);
	close(go[0]);
	close(go[1]);
	close(go2[0]);
	close(go2[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(open_checks),
		cmocka_unit_test(join_and_cache),
		cmocka_unit_test(claim_and_register),
		cmocka_unit_test(other_users_refused),
		cmocka_unit_test(shared_listener),
	};
	return cmocka_run_group_tests_name("jobdir", tests, setup, teardown);
}
