#!/bin/sh
# On the GPU host, in one call: build the executor, check every committed
# 2-rank schedule in every dtype, and time executor and NCCL from 4 KiB to
# 1 GiB in both modes (one process driving both GPUs; one process per GPU
# under mpirun). Writes at most 8 files under $OUT (the device tool's
# limit):
#   build.log    environment, GPU topology, the build
#   check.log    correctness of every schedule x dtype x size x placement
#   check.csv    the same as CSV
#   timing.log   single-process timing, executor and NCCL, and the ceilings
#   mpi.log      one-process-per-GPU timing
#   results.csv  every timed row (impl g5 or nccl; baseline-ce/-sm rows)
# Phases run in order of importance and are skipped when the time budget
# (BUDGET seconds, default 500) would be overrun.
#   OUT=/tmp/out gpu/run-device.sh
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/g5x-out}
BUDGET=${BUDGET:-500}
mkdir -p "$OUT"
. gpu/host-env.sh
S=gpu/schedules
X=gpu/build/g5x
XM=gpu/build/g5x-mpi
start=$(date +%s)
# run LOG SECONDS_NEEDED CMD...: gpu/host-env.sh's budget_run, 90 s each
RUN_TIMEOUT=90
run() { budget_run "$@"; }

{
	date -u
	nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem --format=csv
	nvidia-smi topo -m
	command -v nvcc; nvcc --version | tail -2
	command -v mpicc mpirun && mpirun --version 2>&1 | head -1
	ls -l /usr/include/nccl.h /usr/lib/x86_64-linux-gnu/libnccl* 2>&1
	make -C gpu 2>&1
} >"$OUT/build.log" 2>&1
[ -x "$X" ] || { echo "build failed"; tail -30 "$OUT/build.log"; exit 1; }

# 1. ceilings and the reference AllReduce (executor and NCCL, float)
run timing.log 20 $X --baseline --no-executor -b 4K -e 4K $S/allreduce-ring-n2-k1.g5s
run timing.log 30 $X --nccl -b 4K -e 1G --csv "$OUT/results.csv" $S/allreduce-ring-n2-k1.g5s

# 2. correctness: every schedule, every dtype, 4 KiB .. 64 MiB, both placements
for f in $S/*.g5s; do
	run check.log 20 $X -d float,half,bfloat16 -b 4K -e 64M -w 0 -n 1 \
		--csv "$OUT/check.csv" "$f"
done

# 3. one process per GPU (MPI, CUDA IPC): the reference AllReduce with NCCL
if [ -x "$XM" ]; then
	for f in allreduce-ring-n2-k1 allgather-ring-n2-k1 reducescatter-ring-n2-k1; do
		run mpi.log 30 mpirun -np 2 $XM --nccl -b 4K -e 1G --csv "$OUT/results.csv" $S/$f.g5s
	done
	for f in allreduce-hd-n2-k1 alltoall-pairwise-n2-k1 broadcast-chain-n2-k1 p2p-direct-n2-k1; do
		run mpi.log 30 mpirun -np 2 $XM -b 4K -e 1G --csv "$OUT/results.csv" $S/$f.g5s
	done
else
	echo "# no mpicc: g5x-mpi not built" >>"$OUT/mpi.log"
fi

# 4. every other schedule, float; NCCL once per collective; bf16 AllReduce; events timer
for c in allgather reducescatter alltoall broadcast reduce p2p allgatherv; do
	first=1
	for f in $S/$c-*.g5s; do
		if [ $first = 1 ]; then
			run timing.log 30 $X --nccl -b 4K -e 1G --csv "$OUT/results.csv" "$f"
			first=0
		else
			run timing.log 25 $X -b 4K -e 1G --csv "$OUT/results.csv" "$f"
		fi
	done
done
for f in $S/allreduce-*.g5s; do
	[ "$f" = $S/allreduce-ring-n2-k1.g5s ] && continue
	run timing.log 25 $X -b 4K -e 1G --csv "$OUT/results.csv" "$f"
done
run timing.log 30 $X --nccl -d bfloat16 -b 4K -e 1G --csv "$OUT/results.csv" $S/allreduce-ring-n2-k1.g5s
run timing.log 30 $X --nccl --timer events -b 4K -e 1G --csv "$OUT/results.csv" $S/allreduce-ring-n2-k1.g5s

echo "done in $(( $(date +%s) - start )) s"
grep -h "FAILED\|SKIPPED" "$OUT"/*.log | head -20
echo "== wrong (non-zero rows of check.csv) =="
awk -F, 'NR > 1 && $14 != 0' "$OUT/check.csv" | head -20
echo "== allreduce ring =="
grep -A 14 "g5x g5: collective allreduce algo ring ranks 2 nchunks 1" "$OUT/timing.log" | head -30
