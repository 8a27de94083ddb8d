/* SPDX-License-Identifier: GPL-2.0-or-later */
/* commands.h — the subcommands of the `hetsched` command. Each lives in its
 * own file (src/cli/cmd_<name>.c) and is listed once in main.c's table. */
#ifndef HS_CLI_COMMANDS_H
#define HS_CLI_COMMANDS_H

/* argv[0] is the subcommand name; returns the process exit status. */
typedef int (*hs_cmd_fn)(int argc, char **argv);

int hs_cmd_solve(int argc, char **argv);   /* cmd_solve.c */
int hs_cmd_simulate(int argc, char **argv); /* cmd_simulate.c */
int hs_cmd_status(int argc, char **argv);   /* cmd_status.c */
int hs_cmd_timeline(int argc, char **argv); /* cmd_timeline.c */
int hs_cmd_job(int argc, char **argv);      /* cmd_job.c */
int hs_cmd_learned(int argc, char **argv);  /* cmd_learned.c */
/* `hetsched learned --from-sacct` (cmd_learned_sacct.c) */
int hs_cmd_learned_sacct(int argc, char **argv);
/* The status document's path as `hetsched status` finds it (malloc'd,
 * NULL when none is configured; cmd_status.c). */
char *hs_status_default_path(void);

#endif
