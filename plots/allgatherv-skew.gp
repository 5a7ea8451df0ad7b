# docs/allgatherv-study.md's skew figure: AllGatherV at 16 MiB against the
# skew (max/mean) of one heavy rank's counts, each algorithm's latency over
# the ring's, one panel per system. Reads docs/allgatherv-study/skew-*.dat
# (scripts/allgatherv-skew.sh DIR); run from the repository root:
#   gnuplot plots/allgatherv-skew.gp
set terminal pngcairo size 1200,420 noenhanced font "sans,10" background "white"
set output "docs/allgatherv-study/skew.png"
set multiplot layout 1,3 title "AllGatherV, 16 MiB, one heavy rank: latency over the ring's"
set grid
set logscale x 2
set logscale y 2
set xlabel "skew (max/mean)"
set key top left
systems = "cluster16-edr dgx1 cs-storm16"
names = "ring direct rd bruck pad bcast"
do for [s in systems] {
	set title s
	f = sprintf("docs/allgatherv-study/skew-%s.dat", s)
	plot for [k = 1:6] f using 2:(column(k + 2) / column(3)) with linespoints title word(names, k)
}
unset multiplot
