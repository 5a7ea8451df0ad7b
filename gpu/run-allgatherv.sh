#!/bin/sh
# On the two-GPU host: AllGatherV with irregular counts (docs/allgatherv-study.md,
# "What is not done"). The two ranks' counts stand in ratios 1:1, 1:2, 1:4,
# 1:8 and 1:16 (rank 1 the heavy one); for each ratio the executor runs
# G5's ring, direct, rd, bruck, pad and bcast schedules
# (gpu/schedules/agv-ratio/allgatherv-ALGO-n2-k1-rR.g5s, written by
# `g5 schedule --collective allgatherv --counts 1,R`), and NCCL runs the
# same counts both ways NCCL users write AllGatherV: one grouped
# ncclBroadcast per rank (CSV algo nccl) and the padded ncclAllGather
# (--nccl-agv pad, CSV algo nccl-pad), all in the same harness and timer,
# 4 KiB .. 256 MiB, float, checked. Writes under $OUT:
#   build.log  environment and the build
#   agv.log    every run's table
#   agv.csv    every timed row (impl g5 or nccl), keyed by the schedule file
#              (its weights are the counts)
# Phases stop when the time budget (BUDGET seconds, default 500) would be
# overrun; the heaviest ratios run last.
#   OUT=/tmp/out gpu/run-allgatherv.sh
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/g5x-agv}
BUDGET=${BUDGET:-500}
mkdir -p "$OUT"
. gpu/host-env.sh
S=gpu/schedules/agv-ratio
X=gpu/build/g5x
start=$(date +%s)
run() { budget_run agv.log "$@"; }

{
	date -u
	nvidia-smi --query-gpu=index,name,driver_version --format=csv
	nvidia-smi topo -m
	nvcc --version | tail -2
	make -C gpu 2>&1
} >"$OUT/build.log" 2>&1
[ -x "$X" ] || { echo "build failed"; tail -30 "$OUT/build.log"; exit 1; }

for r in 1 2 4 8 16; do
	# NCCL both ways (the schedule only supplies the counts)
	run 30 $X --no-executor --nccl -b 4K -e 256M --csv "$OUT/agv.csv" $S/allgatherv-ring-n2-k1-r$r.g5s
	run 30 $X --no-executor --nccl --nccl-agv pad -b 4K -e 256M --csv "$OUT/agv.csv" \
		$S/allgatherv-ring-n2-k1-r$r.g5s
	for a in ring direct pad bcast rd bruck; do
		run 25 $X -b 4K -e 256M --csv "$OUT/agv.csv" $S/allgatherv-$a-n2-k1-r$r.g5s
	done
done
echo "done in $(( $(date +%s) - start )) s: $OUT/agv.csv"
