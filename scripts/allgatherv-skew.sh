#!/bin/sh
# The skew axis of docs/allgatherv-study.md: AllGatherV at 16 MiB with one
# heavy rank holding F times what each other rank holds (heavy:F, seed 1),
# F = 1 (equal) .. 64, every algorithm on each system of the study. Prints a
# Markdown table per system: one row per F with its skew (max/mean) and each
# algorithm's latency in us; with a directory argument it also writes the
# same rows as DIR/skew-SYSTEM.dat (F, skew, then the latencies), which
# plots/allgatherv-skew.gp draws.
#   G5=build/g5 sh scripts/allgatherv-skew.sh docs/allgatherv-study > docs/allgatherv-study/skew.md
#   gnuplot plots/allgatherv-skew.gp    (docs/allgatherv-study/skew.png)
set -eu
G5=${G5:-build/g5}
dat=${1:-}
algos="ring direct rd bruck pad bcast"
for sys in cluster16-edr dgx1 cs-storm16; do
	[ -z "$dat" ] || printf '# F skew %s\n' "$algos" >"$dat/skew-$sys.dat"
	printf '\n### %s, 16 MiB, heavy:F\n\n| F | skew |' "$sys"
	for a in $algos; do printf ' %s |' "$a"; done
	printf '\n|---|---|'
	for a in $algos; do printf -- '---|'; done
	printf '\n'
	for f in 1 2 4 8 16 32 64; do
		line="|"
		row=""
		skew=""
		for a in $algos; do
			out=$("$G5" sim --platform "configs/platforms/$sys.yaml" --collective allgatherv \
				--algo "$a" --size 16MiB --counts-dist "heavy:$f" --seed 1 --json)
			lat=$(printf '%s\n' "$out" | sed -n 's/.*"latency_us": \([0-9.]*\).*/\1/p')
			skew=$(printf '%s\n' "$out" | sed -n 's/.*"skew": \([0-9.]*\).*/\1/p')
			line="$line $(printf '%.0f' "$lat") |"
			row="$row $lat"
		done
		printf '| %s | %.2f %s\n' "$f" "$skew" "$line"
		[ -z "$dat" ] || printf '%s %s%s\n' "$f" "$skew" "$row" >>"$dat/skew-$sys.dat"
	done
done
