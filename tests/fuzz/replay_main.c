/* SPDX-License-Identifier: GPL-2.0-or-later */
/* replay_main.c — a main() for the libFuzzer targets without libFuzzer:
 * feeds every file of the corpus folders given on the command line to
 * LLVMFuzzerTestOneInput, one after another, so `make check` builds every
 * fuzz target with the ordinary compiler (they cannot rot) and replays
 * every corpus through the target's own property checks (which abort on a
 * violation). Prints one TAP line for the whole corpus. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads FILE whole; NULL on error. The caller frees. */
static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
		*len = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* Replays every regular file of DIR; returns the count, or -1 when DIR or
 * one of its files cannot be read. */
static int replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[4096];
		size_t len = 0;
		uint8_t *buf;
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (!(buf = read_file(path, &len))) {
			fprintf(stderr, "# cannot read %s\n", path);
			closedir(d);
			return -1;
		}
		LLVMFuzzerTestOneInput(buf, len);
		free(buf);
		n++;
	}
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	int total = 0;
	printf("1..1\n");
	for (int i = 1; i < argc; i++) {
		int n = replay_dir(argv[i]);
		if (n <= 0) {
			printf("not ok 1 - corpus %s: %s\n", argv[i], n < 0 ? "unreadable" : "empty");
			return 1;
		}
		total += n;
	}
	printf("ok 1 - %s: %d corpus files replayed without a crash or a failed property\n",
	       argc > 0 ? argv[0] : "replay", total);
	return 0;
}
