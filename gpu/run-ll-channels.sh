#!/bin/sh
# The LL wire with one channel per 8 KiB (the default since this run),
# against Simple and NCCL, every collective's schedules, 4 KiB..4 MiB by
# x4, both modes, float, out of place and in place: where LL stops paying,
# per collective. Rows to llch.csv, tables to llch.log.
#   OUT=/tmp/out sh gpu/run-ll-channels.sh
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/g5x-llch}
mkdir -p "$OUT"
. gpu/host-env.sh
S=gpu/schedules
L=$OUT/llch.log
C=$OUT/llch.csv
make -C gpu >"$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
# run MODE ARGS...: one g5x run (host-env.sh), logged
run() {
	g5x_run "$L" "$C" "$@"
}
start=$(date +%s)
for mode in single mpi; do
	for f in allreduce-ring allreduce-direct allgather-ring reducescatter-ring alltoall-pairwise broadcast-chain reduce-chain p2p-direct; do
		g=$S/$f-n2-k1.g5s
		run $mode --proto ll -b 4K -e 4M $g
		run $mode --proto simple --nccl -b 4K -e 4M $g
	done
done
echo "done in $(( $(date +%s) - start )) s"
grep -h FAILED "$L" | head
awk -F, 'FNR > 1 && $14 != 0' "$C" | wc -l
