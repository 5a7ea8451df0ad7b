# Three panels against a parameter at fixed size (rank count, nchunks or a
# swept platform key): latency, bus bandwidth, speedup over the baseline.
# g5 defines before this template: datafile, outfile, term, title, xlabel,
# algos (space-separated, one data block each), baseline, xlog, xbytes.
# Data columns: 1 parameter, 2 latency (us), 3 busbw (GB/s), 4 speedup.
if (term eq "svg") {
	set terminal svg size 1500,460 dynamic noenhanced font "sans,11" background "white"
} else {
	set terminal pngcairo size 1500,460 noenhanced font "sans,10" background "white"
}
set output outfile
set datafile missing "NaN"
set key top left box opaque
set grid
set style data linespoints
if (xlog) { set logscale x 2 }
if (xbytes) { set format x "%.0b%BB" }
set xlabel xlabel
set offsets graph 0.03, graph 0.03, 0, 0
set multiplot layout 1,3 title title

set title "latency"
set ylabel "latency (us)"
plot for [i=1:words(algos)] datafile index (i-1) using 1:2 title word(algos, i) pt 7 ps 0.8 lw 1.5

set title "bus bandwidth"
set ylabel "busbw (GB/s)"
plot for [i=1:words(algos)] datafile index (i-1) using 1:3 title word(algos, i) pt 7 ps 0.8 lw 1.5

set title "speedup vs ".baseline
set ylabel "baseline latency / latency"
plot for [i=1:words(algos)] datafile index (i-1) using 1:4 title word(algos, i) pt 7 ps 0.8 lw 1.5, \
     1 notitle with lines dt 2 lc "gray"

unset multiplot
