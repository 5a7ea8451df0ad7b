#!/bin/sh
# Default against tuned (docs/workload.md): the step time of the four
# pattern generators (a 7B-parameter, 32-layer model in bf16, 4096 tokens
# per rank) on a platform, with every collective on its default algorithm
# and with `g5 tune`'s profile for that platform.
#   G5=build/g5 sh scripts/workload-study.sh NAME PLATFORM RANKS GROUP [KEY=VALUE...]
# RANKS: the workload's ranks (the platform's, or fewer: its first ones);
# GROUP: the tp and moe groups' size (consecutive ranks: one node);
# KEY=VALUE: platform keys for every run (fidelity=flow). Writes
# docs/workload/study/NAME/: the workloads, tune.txt, profile.yaml,
# steps.csv (pattern, default and tuned step, communication and exposed
# communication, the gain) and steps.png (gnuplot).
set -eu
G5=${G5:-build/g5}
name=$1 plat=$2 n=$3 group=$4
shift 4
sets=""
for kv in "$@"; do sets="$sets --set $kv"; done
out=docs/workload/study/$name
mkdir -p "$out"
for pat in dp fsdp tp moe; do
	cat >"$out/$pat.yaml" <<EOW
schema_version: 1
name: $pat-$n
ranks: $n
generate: {pattern: $pat, params: 7e9, layers: 32, tokens: 4096, tflops: 400, group: $group}
EOW
done
# shellcheck disable=SC2086
"$G5" tune -p "$plat" $sets -c allreduce,allgather,reducescatter,alltoall -n "$n,$group" \
	-s "1MiB..1GiB x4" --nchunks 1,2 -o "$out/profile.yaml" >"$out/tune.txt"
# step_us, comm_us and exposed_us of a report
field() {
	sed -n 2p "$1" | awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'
}
echo "pattern,default_step_us,tuned_step_us,gain_pct,default_comm_us,tuned_comm_us,default_exposed_us,tuned_exposed_us" >"$out/steps.csv"
for pat in dp fsdp tp moe; do
	# shellcheck disable=SC2086
	"$G5" workload "$out/$pat.yaml" -p "$plat" $sets >"$out/$pat-default.txt"
	# shellcheck disable=SC2086
	"$G5" workload "$out/$pat.yaml" -p "$plat" $sets --tune "$out/profile.yaml" >"$out/$pat-tuned.txt"
	d=$(field "$out/$pat-default.txt" step_us) t=$(field "$out/$pat-tuned.txt" step_us)
	dc=$(field "$out/$pat-default.txt" comm_us) tc=$(field "$out/$pat-tuned.txt" comm_us)
	de=$(field "$out/$pat-default.txt" exposed_us) te=$(field "$out/$pat-tuned.txt" exposed_us)
	awk -v p="$pat" -v d="$d" -v t="$t" -v dc="$dc" -v tc="$tc" -v de="$de" -v te="$te" \
		'BEGIN { printf "%s,%s,%s,%.2f,%s,%s,%s,%s\n", p, d, t, 100 * (d - t) / d, dc, tc, de, te }' \
		>>"$out/steps.csv"
done
gnuplot <<EOG
set terminal pngcairo size 800,480 noenhanced
set output "$out/steps.png"
set datafile separator ","
set title "default vs tuned step time: $name ($n ranks)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel "step time (ms)"
set key top left
set yrange [0:*]
plot "$out/steps.csv" every ::1 using (\$2/1000):xtic(1) title "default", \
     "" every ::1 using (\$3/1000) title "tuned (g5 tune)"
EOG
cat "$out/steps.csv"
