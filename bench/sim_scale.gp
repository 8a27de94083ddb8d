# SPDX-License-Identifier: GPL-2.0-or-later
# sim_scale.gp — doc/results/sim-scale.png from bench/sim_scale.sh's
# Markdown table (with --baseline): wall and CPU time, and peak RSS,
# against jobs, log-log, ours vs the baseline.
#   gnuplot -e "table='TABLE.md'; out='doc/results/sim-scale.png'" bench/sim_scale.gp
# Columns (separator "|", so column 1 is empty): 2 jobs, 3 rounds, 4 wall,
# 5 CPU, 6 RSS MB, 7-9 the baseline's; rows without numbers are skipped.
if (!exists("table")) table = 'bench/out/sim_scale/table.md'
if (!exists("out")) out = 'doc/results/sim-scale.png'
set terminal pngcairo size 1100,450 font ",10"
set output out
set datafile separator "|"
set logscale xy
set grid
set key top left
set xlabel "jobs (2,100 GPUs, max_min_fairness_perf, multi-GPU)" noenhanced
set xrange [700:140000]
set multiplot layout 1,2
set title "time"
set ylabel "seconds"
plot table using 2:7 with linespoints lw 2 pt 6 title "baseline wall", \
     table using 2:8 with linespoints lw 2 pt 4 dt 2 title "baseline CPU", \
     table using 2:4 with linespoints lw 2 pt 7 title "this branch wall", \
     table using 2:5 with linespoints lw 2 pt 5 dt 2 title "this branch CPU"
set title "peak RSS"
set ylabel "MB"
plot table using 2:9 with linespoints lw 2 pt 6 title "baseline", \
     table using 2:6 with linespoints lw 2 pt 7 title "this branch"
unset multiplot
