#!/bin/sh
# On the GPU host: build, then check every committed 2-rank schedule in the
# multi-process mode (one process per GPU under mpirun, buffers shared by
# CUDA IPC), in float, half and bfloat16, 4 KiB .. 64 MiB, out of place and in
# place. Writes $OUT/mpi-check.log and $OUT/mpi-check.csv; ends with a count of
# schedules that ran with no wrong element.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/g5x-out}
mkdir -p "$OUT"
. gpu/host-env.sh
make -C gpu >"$OUT/mpi-build.log" 2>&1 || { tail -30 "$OUT/mpi-build.log"; exit 1; }
[ -x gpu/build/g5x-mpi ] || { echo "no g5x-mpi (no mpicc)"; exit 1; }
ok=0 bad=0
for f in gpu/schedules/*.g5s; do
	echo "# \$ mpirun -np 2 gpu/build/g5x-mpi -d float,half,bfloat16 -b 4K -e 64M -w 0 -n 1 $f" >>"$OUT/mpi-check.log"
	if timeout 120 mpirun -np 2 gpu/build/g5x-mpi -d float,half,bfloat16 -b 4K -e 64M -w 0 -n 1 \
		--csv "$OUT/mpi-check.csv" "$f" >>"$OUT/mpi-check.log" 2>&1; then
		ok=$((ok + 1))
	else
		echo "# FAILED: $f" >>"$OUT/mpi-check.log"
		bad=$((bad + 1))
	fi
done
wrong=$(awk -F, 'NR > 1 && $14 != 0 { n++ } END { print n + 0 }' "$OUT/mpi-check.csv")
echo "mpi check: $ok schedules ran, $bad failed, $wrong rows with wrong elements" | tee -a "$OUT/mpi-check.log"
