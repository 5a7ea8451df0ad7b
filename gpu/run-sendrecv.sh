#!/bin/sh
# What makes the executor's Send/Recv slower than its Transfer, and what
# back-to-back launches hide (docs/validation.md, "What the model still
# misses"), in one call on the two-H200 host:
#   1. ReduceScatter and AllGather, Transfer (ring) against Send/Recv
#      (sendrecv): the same ops, only the PAXI kind differs; 16 MiB..1 GiB,
#      by default, then with one channel, 8 and 32 channels, 256 KiB slices,
#      one staging slot, and CUDA-event timing;
#   2. launches back to back against one at a time: P2P, Broadcast chain and
#      AllReduce ring, 4 KiB..1 MiB, -n 20 against -n 1 (each launch timed
#      alone), both modes.
# Every run appends to sendrecv.csv (the columns say the channels, slice and
# timer); the command lines and any failure go to sendrecv.log.
#   OUT=/tmp/out sh gpu/run-sendrecv.sh
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/g5x-sendrecv}
mkdir -p "$OUT"
. gpu/host-env.sh
S=gpu/schedules
X=gpu/build/g5x
L=$OUT/sendrecv.log
C=$OUT/sendrecv.csv
make -C gpu >"$OUT/build.log" 2>&1
[ -x "$X" ] || { echo "build failed"; tail -30 "$OUT/build.log"; exit 1; }
# run MODE ARGS...: one g5x run (host-env.sh), logged
run() {
	g5x_run "$L" "$C" "$@"
}
start=$(date +%s)
for f in reducescatter-ring reducescatter-sendrecv allgather-ring allgather-sendrecv; do
	g=$S/$f-n2-k1.g5s
	run single -b 16M -e 1G $g
	run single -b 16M -e 256M --channels 1 $g
	run single -b 16M -e 256M --channels 8 $g
	run single -b 16M -e 256M --channels 32 $g
	run single -b 16M -e 256M --slice 256K $g
	run single -b 16M -e 256M --slots 1 $g
	run single -b 16M -e 256M --timer events $g
done
for mode in single mpi; do
	for f in p2p-direct broadcast-chain allreduce-ring; do
		g=$S/$f-n2-k1.g5s
		run $mode -b 4K -e 1M $g
		run $mode -b 4K -e 1M -w 5 -n 1 $g
		run $mode -b 4K -e 1M -n 1 --timer events $g
	done
done
echo "done in $(( $(date +%s) - start )) s"
grep -h "FAILED" "$L" | head -20
echo "$(($(wc -l <"$C") - 1)) rows, $(awk -F, 'NR > 1 && $14 != 0' "$C" | wc -l) with wrong elements"
head -1 "$C"
