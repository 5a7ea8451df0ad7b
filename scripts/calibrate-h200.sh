#!/bin/sh
# Calibrates configs/platforms/h200x2-nvlink.yaml from the committed
# measurements (docs/measurements/h200x2-validation/), in two fits:
#   1. the executor's keys on ring AllReduce only (nchunks 1 and 4, float and
#      bfloat16, both modes): overhead, overhead_mpi, link.bandwidth,
#      paxi.setup;
#   2. NCCL's keys on NCCL's AllReduce rows only (auto and forced
#      protocols, both modes): nccl.overhead, nccl.overhead_mpi,
#      proto.ll.channel_bw, proto.simple.channel_bw.
# Each fits on every other size; the rest is held out. About a minute.
#   G5=build/g5 sh scripts/calibrate-h200.sh
set -eu
G5=${G5:-build/g5}
M=docs/measurements/h200x2-validation
tmp=build/h200x2-nvlink-executor.yaml
mkdir -p build
"$G5" calibrate --platform configs/platforms/h200x2-nvlink-start.yaml \
	--where impl=g5,collective=allreduce,algo=ring -o "$tmp" \
	$M/remeasure.csv $M/results.csv
"$G5" calibrate --platform "$tmp" --where impl=nccl,collective=allreduce \
	-o configs/platforms/h200x2-nvlink.yaml $M/remeasure.csv $M/proto.csv $M/results.csv
