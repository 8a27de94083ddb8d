/*
 * spank_hetsched.c — the hetsched SPANK plugin (plugstack.conf:
 * `required /path/spank_hetsched.so`).
 *
 * For now it only announces itself in every context it is loaded in
 * (slurmd, slurmstepd, sbatch/salloc, srun, prolog/epilog), so tests can
 * prove where it loads. Submit-time hints and job reports (doc/protocol.md)
 * are issue 6 and will be added here.
 */
#include <slurm/spank.h>

SPANK_PLUGIN(hetsched, 1);

static const char *context_name(spank_context_t ctx)
{
	switch (ctx) {
	case S_CTX_LOCAL: return "local (srun)";
	case S_CTX_REMOTE: return "remote (slurmstepd)";
	case S_CTX_ALLOCATOR: return "allocator (sbatch/salloc)";
	case S_CTX_SLURMD: return "slurmd";
	case S_CTX_JOB_SCRIPT: return "job script (prolog/epilog)";
	default: return "unknown";
	}
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();

	(void)sp;
	(void)ac;
	(void)av;
	/* Daemons log at info level (their log file); in user commands the
	 * line shows only with -v, so it never clutters job submission. */
	if (ctx == S_CTX_LOCAL || ctx == S_CTX_ALLOCATOR)
		slurm_verbose("spank/hetsched: loaded in %s context", context_name(ctx));
	else
		slurm_info("spank/hetsched: loaded in %s context", context_name(ctx));
	return ESPANK_SUCCESS;
}
