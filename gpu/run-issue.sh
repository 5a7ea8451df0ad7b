#!/bin/sh
# The host's time to issue one call, measured rather than fitted: on the
# two-H200 host, g5x --timer host (the CPU's time until the last of 20
# back-to-back launch calls has returned, per call) beside --timer wall
# (the usual per-call time) for NCCL and the executor: ring AllReduce,
# pairwise AllToAll (NCCL: grouped send/recv; in place, a device copy
# first) and P2P, 4 KiB..16 MiB by x4, both modes, three repeats
# alternating which timer goes first. Checks the model's nccl.issue and
# nccl.issue_mpi (fitted on NCCL's AllReduce times: 14.7 and 11.0 us) and
# the executor's issue (an empty launch: 7.5 and 4.7 us).
# Rows go to host.csv (timer host) and wall.csv (timer wall); the tables to
# issue.log.
#   OUT=/tmp/out sh gpu/run-issue.sh
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/g5x-issue}
mkdir -p "$OUT"
. gpu/host-env.sh
L=$OUT/issue.log
make -C gpu >"$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
modes=single
[ -x gpu/build/g5x-mpi ] && modes="single mpi"
S=gpu/schedules
for rep in 1 2 3; do
	for mode in $modes; do
		for f in $S/allreduce-ring-n2-k1.g5s $S/alltoall-pairwise-n2-k1.g5s $S/p2p-direct-n2-k1.g5s; do
			for t in host wall; do
				[ $((rep % 2)) = 0 ] && t=$([ $t = host ] && echo wall || echo host)
				g5x_run "$L" "$OUT/$t.csv" $mode --timer $t --nccl -b 4K -e 16M -f 4 -w 5 -n 20 "$f"
			done
		done
	done
done
echo "rows: $(grep -vc '^impl' "$OUT/host.csv") host, $(grep -vc '^impl' "$OUT/wall.csv") wall; failures: $(grep -c FAILED "$L")"
