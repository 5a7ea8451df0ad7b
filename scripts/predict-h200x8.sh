#!/bin/sh
# G5's prediction for the eight-GPU run, before it is measured
# (docs/measurements/h200x8/prediction/README.md): every schedule the
# executor would run at N ranks (every registered algorithm of every
# collective, nchunks 1, and 4 for AllReduce ring and hd: the set of
# gpu/make-schedules.sh) and NCCL's model (algo nccl, its own protocol
# pick), both modes, 4 KiB..4 GiB by x4, each size the time of one call
# among 20 back to back (-n 20: g5x's timer), out of place. The executor's
# schedules run its wire rule (gpu/README.md): LL up to 1 MiB (256 KiB for
# Broadcast, Reduce and P2P), Simple above. Writes DIR/predictions.jsonl
# (one `g5 sim --json` line per point, with N's platform, less
# wall_s) and DIR/best.md.
#   G5=build/g5 sh scripts/predict-h200x8.sh [DIR]
set -eu
G5=${G5:-build/g5}
dir=${1:-docs/measurements/h200x8/prediction}
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$tmp/predictions.jsonl
: >"$out"
for n in 8 4; do
	plat=$tmp/h200x$n.yaml
	sh scripts/derive-h200x8.sh "$n" >"$plat"
	for coll in allreduce allgather reducescatter alltoall broadcast reduce p2p allgatherv; do
		known=$("$G5" schedule --collective "$coll" --algo '?' --ranks "$n" 2>&1 |
			sed -n "s/.*(known: \([^)]*\)).*/\1/p" | tr -d ',')
		case $coll in broadcast|reduce|p2p) ll=256KiB; simple=1MiB ;; *) ll=1MiB; simple=4MiB ;; esac
		for algo in $known; do
			for k in 1 4; do
				if [ "$k" = 4 ] && [ "$coll:$algo" != allreduce:ring ] &&
				   [ "$coll:$algo" != allreduce:hd ]; then
					continue
				fi
				for mode in single mpi; do
					if [ "$algo" = nccl ]; then
						"$G5" sim --platform "$plat" --collective "$coll" --algo nccl \
							--proto auto --mode "$mode" -n 20 --json \
							--size "4KiB..4GiB x4" >>"$out"
						continue
					fi
					"$G5" sim --platform "$plat" --collective "$coll" --algo "$algo" \
						--nchunks "$k" --proto ll --mode "$mode" -n 20 --json \
						--size "4KiB..$ll x4" >>"$out"
					"$G5" sim --platform "$plat" --collective "$coll" --algo "$algo" \
						--nchunks "$k" --proto simple --mode "$mode" -n 20 --json \
						--size "$simple..4GiB x4" >>"$out"
				done
			done
		done
	done
done
# the best of G5's schedules per (ranks, mode, collective, size), beside NCCL's
awk '
function num(k,   s) { s = $0; sub(".*\"" k "\": ", "", s); sub("[,}].*", "", s); return s + 0 }
function str(k,   s) { s = $0; sub(".*\"" k "\": \"", "", s); sub("\".*", "", s); return s }
{
	key = num("ranks") " " str("mode") " " str("collective") " " num("bytes")
	t = num("latency_us"); a = str("algo"); k = num("nchunks")
	if (a == "nccl") { nccl[key] = t; next }
	name = a (k > 1 ? " k" k : "")
	if (!(key in best) || t < best[key]) { best[key] = t; who[key] = name }
	keys[key] = 1
}
END {
	print "| ranks | mode | collective | bytes | best G5 schedule | its us | NCCL (model) us | G5 / NCCL |"
	print "|---|---|---|---|---|---|---|---|"
	for (k in keys) {
		split(k, f, " ")
		printf "| %s | %s | %s | %.0f | %s | %.2f | %.2f | %.3f |\n", f[1], f[2], f[3], f[4],
		       who[k], best[k], nccl[k], best[k] / nccl[k]
	}
}' "$out" | { read -r h; read -r s; echo "$h"; echo "$s"; sort -t'|' -k2,2n -k3,3 -k4,4 -k5,5n; } >"$tmp/best.md"
# the wall clock is not a result: left out, so that a run gives the same file
sed 's/, "wall_s": [0-9.e+-]*//' "$out" >"$dir/predictions.jsonl"
mv "$tmp/best.md" "$dir/best.md"
echo "$(wc -l <"$dir/predictions.jsonl") points in $dir/predictions.jsonl; $dir/best.md"
