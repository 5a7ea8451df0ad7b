#!/bin/sh
# Calibrates configs/platforms/h200x2-nvlink.yaml from the committed
# measurements (docs/measurements/h200x2-validation/), in three fits, each
# on every other size (the rest held out) and each starting from the last:
#   1. the executor's keys on its ring AllReduce rows only (nchunks 1 and 4,
#      float and bfloat16, both modes): overhead, link.bandwidth,
#      channels.latency and channels.spread (its growth with the channels);
#   2. NCCL's keys on NCCL's AllReduce rows only (auto and forced
#      protocols, both modes): nccl.issue, nccl.issue_mpi (the host's time per
#      call; the GPU's launch cost is the executor's `overhead`),
#      the per-channel rates of LL, LL128, Simple and the setup per call of
#      LL128 and Simple (proto.*.launch; their latency per step is NCCL's
#      own, the start file says why);
#   3. the executor's keys again, now that Simple's per-transaction latency
#      (which the executor's Transfers pay too) is known.
# Under a minute.
#   G5=build/g5 sh scripts/calibrate-h200.sh
set -eu
G5=${G5:-build/g5}
M=docs/measurements/h200x2-validation
mkdir -p build
"$G5" calibrate --platform configs/platforms/h200x2-nvlink-start.yaml \
	--fit overhead,link.bandwidth,channels.latency,channels.spread \
	--where impl=g5,collective=allreduce,algo=ring -o build/h200x2-nvlink-1.yaml \
	$M/remeasure.csv $M/results.csv
"$G5" calibrate --platform build/h200x2-nvlink-1.yaml --where impl=nccl,collective=allreduce \
	--fit nccl.issue,nccl.issue_mpi,proto.ll.channel_bw,proto.ll128.launch,proto.simple.channel_bw,proto.simple.launch,proto.ll128.channel_bw \
	-o build/h200x2-nvlink-2.yaml $M/remeasure.csv $M/proto.csv $M/results.csv
"$G5" calibrate --platform build/h200x2-nvlink-2.yaml \
	--fit overhead,link.bandwidth,channels.latency,channels.spread \
	--where impl=g5,collective=allreduce,algo=ring -o configs/platforms/h200x2-nvlink.yaml \
	$M/remeasure.csv $M/results.csv
