# SPDX-License-Identifier: GPL-2.0-or-later
# cluster_jct.gp — per-job JCT of bench/cluster_bench.sh, backfill vs
# hetsched, as clustered bars. Usage:
#   gnuplot -e "dat='OUT/jct.dat'; out='OUT/jct.svg'" bench/cluster_jct.gp
set terminal svg size 720,360 font "sans,11"
set output out
set title "Job completion time per job (same sbatch workload)"
set ylabel "JCT (s)"
set xlabel "job (submission order)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set key top right
set grid ytics
plot dat using 2:xtic(1) title "sched/backfill", '' using 3 title "sched/hetsched"
