# Simulation against measurement (g5 compare): two panels sharing a log-2
# size axis. Top: time against size, log-log, measured points over the
# simulated line. Bottom: sim / measured, linear, dashed line at 1.
# g5 defines before this template: datafile, outfile, term, title,
# geomean_err and max_err (percent, NaN: unknown), x_lo, x_hi, ratio_lo,
# ratio_hi, and the arrays tick_at (bytes) and tick_label ("4K", "1M").
# Data columns: 1 size (bytes), 2 measured (us), 3 simulated (us),
# 4 simulated / measured; NaN where a value cannot be drawn.
if (term eq "svg") {
	set terminal svg size 900,700 dynamic noenhanced font "sans,11" background "white"
} else {
	set terminal pngcairo size 900,700 noenhanced font "sans,10" background "white"
}
set output outfile
set datafile missing "NaN"
set grid
set logscale x 2
set xrange [x_lo:x_hi]
set xtics ()
set mxtics default

known(v) = v == v
# (no backslash continuations in this file: g5's tests check that its
# scripts hold no backslash at all)
errors = ""
if (known(geomean_err)) errors = sprintf(" (error: geomean %.1f%%", geomean_err)
if (known(geomean_err) && known(max_err)) errors = errors.sprintf(", max %.1f%%", max_err)
if (known(geomean_err)) errors = errors.")"

# Both panels have the same left and right edges, so the x axes line up;
# the key sits in the gap between the figure's title and the top panel.
set multiplot title title
set lmargin at screen 0.11
set rmargin at screen 0.97

set tmargin at screen 0.87
set bmargin at screen 0.40
do for [i=1:|tick_at|] { set xtics add ("" tick_at[i]) }
set logscale y 10
set ylabel "time (us)"
set key at screen 0.54, screen 0.905 center center horizontal reverse Left samplen 2 width 2
plot datafile using 1:3 title "simulated".errors with linespoints lt 2 lw 2 pt 6 ps 1.1, datafile using 1:2 title "measured" with points lt 1 pt 7 ps 0.9

set tmargin at screen 0.37
set bmargin at screen 0.09
set xtics ()
do for [i=1:|tick_at|] { set xtics add (tick_label[i] tick_at[i]) }
unset logscale y
set yrange [ratio_lo:ratio_hi]
set ylabel "simulated / measured"
set xlabel "size (bytes; K = 1024)"
unset key
plot 1 with lines dt 2 lw 1.5 lc "gray40", datafile using 1:4 with linespoints lt 2 lw 1.5 pt 7 ps 0.7

unset multiplot
