# Three panels against size (the seed study's figures): latency, bus
# bandwidth, and speedup over the baseline algorithm; log-x in bytes.
# g5 defines before this template: datafile, outfile, term, title, xlabel,
# algos (space-separated, one data block each), baseline, xlog, xbytes.
# Data columns: 1 size (bytes), 2 latency (us), 3 busbw (GB/s), 4 speedup.
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
set logscale x 2
set format x "%.0b%BB"
set xtics 4
set xlabel xlabel
set multiplot layout 1,3 title title

set title "latency"
set ylabel "latency (us)"
set logscale y 10
plot for [i=1:words(algos)] datafile index (i-1) using 1:2 title word(algos, i) pt 7 ps 0.6 lw 1.5

set title "bus bandwidth"
set ylabel "busbw (GB/s)"
unset logscale y
plot for [i=1:words(algos)] datafile index (i-1) using 1:3 title word(algos, i) pt 7 ps 0.6 lw 1.5

set title "speedup vs ".baseline
set ylabel "baseline latency / latency"
plot for [i=1:words(algos)] datafile index (i-1) using 1:4 title word(algos, i) pt 7 ps 0.6 lw 1.5, \
     1 notitle with lines dt 2 lc "gray"

unset multiplot
