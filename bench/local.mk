# bench — measured figures: bench/reproduce.sh regenerates doc/results.md
# (Gavel's simulation results and the simulator's speed) with
# `hetsched simulate`; see the script's header for what it runs.
EXTRA_DIST += bench/reproduce.sh bench/run_one.sh bench/report.sh bench/discussion.md
