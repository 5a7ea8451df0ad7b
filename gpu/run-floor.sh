#!/bin/sh
# Where the small-size floor of the executor goes (one process per GPU and
# one process), in one call on the two-H200 host: ring AllReduce on the LL
# wire, 4 KiB..16 KiB, three repeats, against
#   - threads per block: 64, 128, 512 (a block's barriers and its share of
#     lines);
#   - an experimental build whose per-op completion counter is incremented
#     without release semantics (red.relaxed.gpu instead of
#     red.release.gpu): correct for this schedule on one channel, not in
#     general; it shows what the release after remote stores costs;
# and g5x --probe (an empty launch; a flag's one-way latency) per mode.
# Rows go to one CSV per variant (probe, ll-t64, ll-t128, ll-t512,
# ll-relaxed, simple); command lines and tables to floor.log.
#   OUT=/tmp/out sh gpu/run-floor.sh
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/g5x-floor}
mkdir -p "$OUT"
. gpu/host-env.sh
L=$OUT/floor.log
AR=gpu/schedules/allreduce-ring-n2-k1.g5s
make -C gpu >"$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
mkdir -p /tmp/floor-bin
cp gpu/build/g5x gpu/build/g5x-mpi /tmp/floor-bin/
# the experimental build, in this host's copy of the tree only
sed -i 's/red.release.gpu.global.add.u64/red.relaxed.gpu.global.add.u64/' gpu/g5x_dev.cuh
touch gpu/g5x_kernels.cu
make -C gpu >>"$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
cp gpu/build/g5x /tmp/floor-bin/g5x-relaxed
cp gpu/build/g5x-mpi /tmp/floor-bin/g5x-mpi-relaxed
git checkout -q gpu/g5x_dev.cuh 2>/dev/null || sed -i 's/red.relaxed.gpu.global.add.u64/red.release.gpu.global.add.u64/' gpu/g5x_dev.cuh
B=/tmp/floor-bin
run() {
	mode=$1 bin=$2 csv=$OUT/$3.csv
	shift 3
	echo "# \$ [$mode $bin] $*" >>"$L"
	if [ "$mode" = single ]; then
		timeout 60 $B/$bin --csv "$csv" "$@" >>"$L" 2>&1
	else
		timeout 60 mpirun -np 2 -x NCCL_NVLS_ENABLE -x NCCL_DEBUG $B/$(echo $bin | sed 's/g5x/g5x-mpi/') --csv "$csv" "$@" >>"$L" 2>&1
	fi
	[ $? -eq 0 ] || echo "# FAILED: $mode $bin $*" >>"$L"
}
for rep in 1 2 3; do
	for mode in mpi single; do
		run $mode g5x probe --probe --no-executor -b 4K -e 4K $AR
		for t in 64 128 512; do
			run $mode g5x ll-t$t --proto ll --threads $t -b 4K -e 16K -f 2 $AR
		done
		run $mode g5x-relaxed ll-relaxed --proto ll --threads 512 -b 4K -e 16K -f 2 $AR
		run $mode g5x simple --proto simple --threads 512 -b 4K -e 16K -f 2 $AR
	done
done
grep -h FAILED "$L" | head
wc -l "$OUT"/*.csv
