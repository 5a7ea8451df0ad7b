#!/bin/sh
# The measurements behind docs/validation.md, in one call on the two-H200
# host, in this order (each phase in order of importance; a phase is skipped
# when the time budget, BUDGET seconds (default 540), would be overrun):
#   1. AllReduce ring, executor and NCCL, float and bfloat16, one process
#      (single) and one process per GPU (mpi), interleaved: three repeats,
#      the order of executor and NCCL alternating  -> remeasure.csv; before
#      each, g5x --probe: empty launch and flag round trip -> probe.csv
#   2. NCCL's own choices: NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT,TUNING,
#      one launch per size, every collective, both modes -> nccl-debug.log
#   3. NCCL forced to each protocol (NCCL_PROTO=LL, LL128, Simple):
#      AllReduce in both modes, AllGather, ReduceScatter, Broadcast in
#      single mode -> proto.csv
#   4. every committed schedule in both modes, NCCL once per collective and
#      mode -> results.csv
# Logs of every run: build.log (environment, topology, build), timing.log.
# At most 8 files under $OUT (the device tool's limit).
#   OUT=/tmp/out sh gpu/run-validation.sh
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/g5x-validation}
BUDGET=${BUDGET:-540}
mkdir -p "$OUT"
. gpu/host-env.sh
S=gpu/schedules
X=gpu/build/g5x
XM=gpu/build/g5x-mpi
start=$(date +%s)
left() { echo $((BUDGET - ($(date +%s) - start))); }
# run LOG SECONDS_NEEDED MODE ARGS...: g5x (MODE single) or g5x-mpi under
# mpirun (MODE mpi), under a timeout, if time remains
run() {
	log=$1 need=$2 mode=$3
	shift 3
	if [ "$(left)" -lt "$need" ]; then
		echo "# SKIPPED (time): $mode $*" >>"$OUT/$log"
		return 0
	fi
	echo "# \$ [$mode NCCL_PROTO=${NCCL_PROTO:-}] $*" >>"$OUT/$log"
	if [ "$mode" = single ]; then
		timeout 120 $X "$@" >>"$OUT/$log" 2>&1
	else
		xs="-x NCCL_NVLS_ENABLE -x NCCL_DEBUG"
		[ -n "${NCCL_DEBUG_SUBSYS:-}" ] && xs="$xs -x NCCL_DEBUG_SUBSYS"
		[ -n "${NCCL_PROTO:-}" ] && xs="$xs -x NCCL_PROTO"
		timeout 120 mpirun -np 2 $xs $XM "$@" >>"$OUT/$log" 2>&1
	fi
	rc=$?
	[ $rc -eq 0 ] || echo "# FAILED ($rc): $mode $*" >>"$OUT/$log"
	return 0
}

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
modes=single
[ -x "$XM" ] && modes="single mpi"

# 1. the interleaved re-measure, each repeat and mode with the probe first
# (empty launch, flag round trip) -> probe.csv, with the ceilings once
AR=$S/allreduce-ring-n2-k1.g5s
run timing.log 20 single --baseline --no-executor -b 4K -e 4K --csv "$OUT/probe.csv" $AR
for rep in 1 2 3; do
	for mode in $modes; do
		run timing.log 10 $mode --probe --no-executor -b 4K -e 4K --csv "$OUT/probe.csv" $AR
		if [ $((rep % 2)) = 1 ]; then
			run timing.log 20 $mode -d float,bfloat16 -f 2 --csv "$OUT/remeasure.csv" $AR
			run timing.log 20 $mode --no-executor --nccl -d float,bfloat16 -f 2 \
				--csv "$OUT/remeasure.csv" $AR
		else
			run timing.log 20 $mode --no-executor --nccl -d float,bfloat16 -f 2 \
				--csv "$OUT/remeasure.csv" $AR
			run timing.log 20 $mode -d float,bfloat16 -f 2 --csv "$OUT/remeasure.csv" $AR
		fi
	done
done

# 2. what NCCL chose: channels, algorithm, protocol per size
ONE="allreduce-ring-n2-k1 allgather-ring-n2-k1 reducescatter-ring-n2-k1 alltoall-pairwise-n2-k1
broadcast-chain-n2-k1 reduce-chain-n2-k1 p2p-direct-n2-k1"
export NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING
for mode in $modes; do
	for f in $ONE; do
		run nccl-debug.log 15 $mode --no-executor --nccl -c 0 -w 0 -n 1 -f 2 $S/$f.g5s
	done
done
export NCCL_DEBUG=WARN
unset NCCL_DEBUG_SUBSYS

# 3. NCCL forced to each protocol
for p in LL LL128 Simple; do
	export NCCL_PROTO=$p
	for mode in $modes; do
		run timing.log 25 $mode --no-executor --nccl -f 2 --csv "$OUT/proto.csv" $AR
	done
	for f in allgather-ring-n2-k1 reducescatter-ring-n2-k1 broadcast-chain-n2-k1; do
		run timing.log 20 single --no-executor --nccl -f 2 --csv "$OUT/proto.csv" $S/$f.g5s
	done
done
unset NCCL_PROTO

# 4. every committed schedule, both modes; NCCL once per collective and mode
for mode in $modes; do
	for c in allreduce allgather reducescatter alltoall broadcast reduce p2p allgatherv; do
		first=1
		for f in $S/$c-*.g5s; do
			if [ $first = 1 ]; then
				run timing.log 20 $mode --nccl --csv "$OUT/results.csv" "$f"
				first=0
			else
				run timing.log 15 $mode --csv "$OUT/results.csv" "$f"
			fi
		done
	done
done

echo "done in $(( $(date +%s) - start )) s"
grep -h "FAILED\|SKIPPED" "$OUT"/*.log | head -20
cat "$OUT/probe.csv"
for f in remeasure proto results; do
	[ -f "$OUT/$f.csv" ] && echo "$f.csv: $(($(wc -l <"$OUT/$f.csv") - 1)) rows," \
		"$(awk -F, 'NR > 1 && $14 != 0' "$OUT/$f.csv" | wc -l) with wrong elements"
done
grep -c "Bytes -> Algo" "$OUT/nccl-debug.log"
grep -m 8 "Bytes -> Algo\|coll channels" "$OUT/nccl-debug.log"
awk -F, '$2 == "allreduce" && $5 == 4096 && $8 == 0 {print $1, $7, $15, $11}' "$OUT/remeasure.csv"
