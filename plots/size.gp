# Three panels against size (the seed study's figures): latency, bus
# bandwidth, and speedup over the baseline algorithm (left out when one
# algorithm was run); log-x in bytes, ticks at the sizes of tick_at
# labelled as the configs write them (tick_label: "1KiB", "64MiB").
# g5 defines before this template (and plots/style.gp): datafile, title,
# xlabel, algos (space-separated, one data block each), baseline, xlog,
# xbytes, ylog (latency on a log axis: it spans a wide range), npanels, and
# the arrays tick_at and tick_label.
# Data columns: 1 size (bytes), 2 latency (us), 3 busbw (GB/s), 4 speedup.
set logscale x 2
set xtics ()
do for [i=1:|tick_at|] { set xtics add (tick_label[i] tick_at[i]) }
set mxtics default
set xlabel xlabel
set multiplot layout 1,npanels title title

set title "latency"
set ylabel "latency (us)"
if (ylog) { set logscale y 10 }
plot for [i=1:words(algos)] datafile index (i-1) using 1:2 title word(algos, i) lt i

set title "bus bandwidth"
set ylabel "busbw (GB/s)"
unset key
unset logscale y
plot for [i=1:words(algos)] datafile index (i-1) using 1:3 title word(algos, i) lt i

if (npanels > 2) {
	set title "speedup vs ".baseline
	set offsets 0, 0, graph 0.05, graph 0.05
	set ylabel "baseline latency / latency"
	plot for [i=1:words(algos)] datafile index (i-1) using 1:4 title word(algos, i) lt i, 1 notitle with lines dt 2 lc "gray"
}

unset multiplot
