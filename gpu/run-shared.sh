#!/bin/sh
# On a GPU host with fewer GPUs than ranks (one H200 will do), in one call:
# build the executor and check every committed 4- and 8-rank schedule
# (gpu/schedules/n4/, n8/; DIRS names others) with --share-gpus: every dtype, both placements,
# 4 KiB .. MAX (default 16M), so both wires (LL to 1 MiB, Simple above);
# ARGS adds options to every run (e.g. "--slice 64K" for many slices per
# channel, or "-b 64M" with MAX=256M for large sizes).
# Results only: ranks that share a GPU share its SMs and memory, so times
# say nothing of NVLink. Writes under $OUT:
#   build.log    environment and the build
#   check.log    every run's table (a schedule's #wrong per size and placement)
#   check.csv    the same rows (mode "shared")
#   summary.txt  per schedule: runs, rows, wrong elements, failures
#   OUT=/tmp/out gpu/run-shared.sh
#   OUT=/tmp/out2 MAX=256M ARGS="-b 64M -d float,bfloat16" gpu/run-shared.sh
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/g5x-shared}
MAX=${MAX:-16M}
ARGS=${ARGS:-}
DIRS=${DIRS:-gpu/schedules/n4 gpu/schedules/n8}
BUDGET=${BUDGET:-480}
mkdir -p "$OUT"
. gpu/host-env.sh
X=gpu/build/g5x
start=$(date +%s)
{
	date -u
	nvidia-smi --query-gpu=index,name,driver_version --format=csv 2>&1 ||
		nvidia-smi -L
	make -C gpu 2>&1
} >"$OUT/build.log" 2>&1
[ -x "$X" ] || { echo "build failed"; tail -30 "$OUT/build.log"; exit 1; }
: >"$OUT/summary.txt"
for d in $DIRS; do for f in "$d"/*.g5s; do
	if [ $(($(date +%s) - start)) -gt "$BUDGET" ]; then
		echo "SKIPPED (time) $f" >>"$OUT/summary.txt"
		continue
	fi
	echo "# \$ $X --share-gpus $f" >>"$OUT/check.log"
	# shellcheck disable=SC2086 # ARGS are words
	timeout 120 $X --share-gpus -d float,half,bfloat16 -b 4K -e "$MAX" -w 0 -n 1 $ARGS \
		--csv "$OUT/check.csv" "$f" >>"$OUT/check.log" 2>&1
	rc=$?
	rows=$(grep -c ",$(basename "$f")," "$OUT/check.csv" 2>/dev/null)
	bad=$(awk -F, -v s="$(basename "$f")" '$17 == s && $14 != 0 { w += $14 } END { print w + 0 }' \
		"$OUT/check.csv" 2>/dev/null)
	echo "$(basename "$f") rc=$rc rows=$rows wrong=$bad" >>"$OUT/summary.txt"
done; done
awk '{ n++; if ($2 != "rc=0" || $4 != "wrong=0") f++ } END { printf "%d schedules, %d failed or wrong\n", n, f + 0 }' \
	"$OUT/summary.txt" | tee -a "$OUT/summary.txt"
