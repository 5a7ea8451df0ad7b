#!/bin/sh
# The executor's LL wire against Simple and NCCL at small sizes, in one call
# on the two-H200 host:
#   1. correctness: every committed schedule with --proto ll, 4 KiB..4 MiB
#      by x4, both modes (float), and ring AllReduce, direct AllGather and
#      P2P in half and bfloat16;
#   2. ring AllReduce, 4 KiB..4 MiB by x2, float, both modes, three repeats,
#      the order of LL, Simple and NCCL rotating per repeat;
#   3. every other collective's best schedules with LL and Simple, and NCCL,
#      4 KiB..1 MiB by x4, both modes.
# Every run appends to ll.csv; command lines, tables and any failure go to
# ll.log.
#   OUT=/tmp/out sh gpu/run-ll.sh
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/g5x-ll}
mkdir -p "$OUT"
. gpu/host-env.sh
S=gpu/schedules
X=gpu/build/g5x
L=$OUT/ll.log
C=$OUT/ll.csv
make -C gpu >"$OUT/build.log" 2>&1
[ -x "$X" ] || { echo "build failed"; tail -30 "$OUT/build.log"; exit 1; }
# run MODE ARGS...: one g5x run (host-env.sh), logged
run() {
	g5x_run "$L" "$C" "$@"
}
start=$(date +%s)
for mode in single mpi; do
	for g in $S/*.g5s; do
		run $mode --proto ll -b 4K -e 4M -w 1 -n 2 $g
	done
	for f in allreduce-ring allgather-direct p2p-direct; do
		run $mode --proto ll -d half,bfloat16 -b 4K -e 4M -w 1 -n 2 $S/$f-n2-k1.g5s
	done
done
AR=$S/allreduce-ring-n2-k1.g5s
for rep in 1 2 3; do
	for mode in single mpi; do
		case $rep in
		1) order="ll simple nccl" ;;
		2) order="simple nccl ll" ;;
		*) order="nccl ll simple" ;;
		esac
		for w in $order; do
			if [ $w = nccl ]; then
				run $mode --no-executor --nccl -b 4K -e 4M -f 2 $AR
			else
				run $mode --proto $w -b 4K -e 4M -f 2 $AR
			fi
		done
	done
done
for mode in single mpi; do
	for f in allgather-ring reducescatter-ring alltoall-pairwise broadcast-chain reduce-chain p2p-direct allreduce-direct; do
		g=$S/$f-n2-k1.g5s
		run $mode --proto ll -b 4K -e 1M $g
		run $mode --proto simple --nccl -b 4K -e 1M $g
	done
done
echo "done in $(( $(date +%s) - start )) s"
grep -h "FAILED" "$L" | head -20
grep -c . "$C"
awk -F, 'NR > 1 && $14 > 0' "$C" | head
