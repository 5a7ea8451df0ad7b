# What every figure of g5 run and g5 plot shares (plot.c puts it before
# plots/size.gp or plots/param.gp): the terminal, the key and the colours.
# g5 defines before it: term, npanels (2, or 3 with a speedup panel) and
# outfile, the figure's file unless one is given (g5 gives a temporary name
# with gnuplot -e; run by hand, the script redraws its figure in place).
# One key for the whole figure, in a row under the panels: it covers no data.
# Colours: dark enough to read on white and apart in hue (no yellow); each
# algorithm also has its own point shape, so lines stay apart in grey.
if (term eq "svg") {
	set terminal svg size 500*npanels,500 dynamic noenhanced font "sans,11" background "white"
} else {
	set terminal pngcairo size 500*npanels,500 noenhanced font "sans,10" background "white"
}
set output outfile
set datafile missing "NaN"
set key at screen 0.5, screen 0.015 center bottom vertical box maxrows 1 reverse Left samplen 2.5 width 1
set bmargin 6.5
set grid
set style data linespoints
set linetype 1 lc rgb "#6a3d9a" pt 7 ps 0.7 lw 1.6
set linetype 2 lc rgb "#1b9e77" pt 5 ps 0.7 lw 1.6
set linetype 3 lc rgb "#1f78b4" pt 9 ps 0.9 lw 1.6
set linetype 4 lc rgb "#d95f02" pt 11 ps 0.9 lw 1.6
set linetype 5 lc rgb "#e7298a" pt 13 ps 0.9 lw 1.6
set linetype 6 lc rgb "#666666" pt 6 ps 0.8 lw 1.6
set linetype 7 lc rgb "#a6761d" pt 4 ps 0.8 lw 1.6
set linetype 8 lc rgb "#000000" pt 8 ps 0.8 lw 1.6
set linetype cycle 8
