/* SPDX-License-Identifier: GPL-2.0-or-later */
/* train.c — a training loop in C that reports every mini-batch to hetsched
 * and checkpoints when the scheduler asks (doc/protocol.md (d)).
 *
 *   cc -o train train.c -lhetsched-report
 *   sbatch --gres=gpu:1 --hs-steps=5000 --hs-ckpt --requeue --wrap "./train 5000"
 *
 * The "mini-batch" here sleeps 10 ms; replace it with real work. The
 * checkpoint is the step counter in $HS_CKPT_DIR/train.ckpt, written
 * atomically (temporary file + fsync + rename).
 */
#include <errno.h>
#include <fcntl.h>
#include <hetsched/report.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static unsigned long long load(const char *dir)
{
	char path[4096];
	unsigned long long step = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/train.ckpt", dir);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%llu", &step) != 1)
			step = 0;
		fclose(f);
	}
	return step;
}

static int save(const char *dir, unsigned long long step)
{
	char path[4096], tmp[4200], buf[32];
	int fd, n = snprintf(buf, sizeof(buf), "%llu\n", step);

	mkdir(dir, 0700);  /* one level; the parent exists or mkdir -p it */
	snprintf(path, sizeof(path), "%s/train.ckpt", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	if (write(fd, buf, (size_t)n) != n || fsync(fd) < 0) {
		close(fd);
		return -1;
	}
	close(fd);
	return rename(tmp, path);
}

int main(int argc, char **argv)
{
	const char *dir = hs_report_ckpt_dir();   /* NULL: not opted in */
	unsigned long long total = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000;
	unsigned long long step = dir ? load(dir) : 0;
	struct timespec minibatch = { 0, 10 * 1000 * 1000 };

	printf("train: start at step %llu of %llu on %s\n", step, total,
	       hs_report_gpu_type() ? hs_report_gpu_type() : "(unknown GPU)");
	hs_report_ckpt_watch();
	while (step < total) {
		nanosleep(&minibatch, NULL);             /* one mini-batch */
		step++;
		hs_report_step(step);                    /* microseconds, never blocks */
		if (hs_report_ckpt_requested() && dir) {
			if (save(dir, step) == 0) {
				hs_report_checkpoint(step);  /* acknowledge */
				printf("train: checkpoint at step %llu\n", step);
				fflush(stdout);
				hs_report_ckpt_hold();       /* requeued during the hold */
			}
		}
	}
	hs_report_flush();
	printf("train: done at step %llu\n", step);
	return 0;
}
