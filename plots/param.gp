# Three panels against a parameter at fixed size (rank count, nchunks or a
# swept platform key): latency, bus bandwidth, speedup over the baseline
# (left out when one algorithm was run).
# g5 defines before this template (and plots/style.gp): datafile, title,
# xlabel, algos (space-separated, one data block each), baseline, xlog,
# xbytes (x in bytes: ticks from the arrays tick_at and tick_label),
# ylog, npanels.
# Data columns: 1 parameter, 2 latency (us), 3 busbw (GB/s), 4 speedup.
if (xlog) { set logscale x 2 }
if (xbytes) {
	set xtics ()
	do for [i=1:|tick_at|] { set xtics add (tick_label[i] tick_at[i]) }
}
set xlabel xlabel
set offsets graph 0.03, graph 0.03, 0, 0
set multiplot layout 1,npanels title title

set title "latency"
set ylabel "latency (us)"
plot for [i=1:words(algos)] datafile index (i-1) using 1:2 title word(algos, i) lt i

set title "bus bandwidth"
set ylabel "busbw (GB/s)"
unset key
plot for [i=1:words(algos)] datafile index (i-1) using 1:3 title word(algos, i) lt i

if (npanels > 2) {
	set title "speedup vs ".baseline
	set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05
	set ylabel "baseline latency / latency"
	plot for [i=1:words(algos)] datafile index (i-1) using 1:4 title word(algos, i) lt i, 1 notitle with lines dt 2 lc "gray"
}

unset multiplot
