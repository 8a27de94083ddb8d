# SPDX-License-Identifier: GPL-2.0-or-later
# Round wall time and time under slurmctld locks against queue length,
# sched/hetsched vs sched/backfill, from bench/scale.sh's results.tsv
# (columns: queue sched lock_mean lock_p99 lock_max wall_mean wall_max ...
# hold_p99 in column 15: the longest single hold per round, the goal's
# measure; hetsched only, runs before MaxLockHold have none).
# gnuplot -e "dat='results.tsv'; out='scale.png'" bench/scale.gp
# (rows sorted by scheduler, then queue: a line joins consecutive rows;
# doc/results/scale-live.tsv holds runs 8-11 of doc/scale.md, scale-live-runs4-6.tsv the older runs)
set terminal pngcairo size 1100,450 font ",10"
set output out
set multiplot layout 1,2
set logscale y
set xlabel "pending jobs at the start of the window"
set offsets graph 0.03, graph 0.03, 0, 0
set key bottom right
set grid
set title "slurmctld locks: per pass (all holds) and longest single hold (ms)"
plot dat using (strcol(2) eq "hetsched" ? $1 : 1/0):15 with linespoints lw 2 lc rgb "dark-green" title "hetsched longest single hold, p99", \
     dat using (strcol(2) eq "hetsched" ? $1 : 1/0):4 with linespoints lw 2 title "hetsched p99", \
     dat using (strcol(2) eq "hetsched" ? $1 : 1/0):5 with linespoints dt 2 title "hetsched max", \
     dat using (strcol(2) eq "backfill" ? $1 : 1/0):4 with linespoints lw 2 title "backfill p99 (cycle)", \
     dat using (strcol(2) eq "backfill" ? $1 : 1/0):5 with linespoints dt 2 title "backfill max (cycle)", \
     50 with lines lc rgb "gray" title "goal: single hold p99 50 ms"
set title "round wall time (hetsched) / backfill cycle (ms)"
plot dat using (strcol(2) eq "hetsched" ? $1 : 1/0):6 with linespoints lw 2 title "hetsched mean", \
     dat using (strcol(2) eq "hetsched" ? $1 : 1/0):7 with linespoints dt 2 title "hetsched max", \
     dat using (strcol(2) eq "backfill" ? $1 : 1/0):6 with linespoints lw 2 title "backfill mean", \
     dat using (strcol(2) eq "backfill" ? $1 : 1/0):7 with linespoints dt 2 title "backfill max", \
     2000 with lines lc rgb "gray" title "goal: 2 s"
unset multiplot
