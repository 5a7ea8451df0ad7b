#!/bin/sh
# The validation report's numbers, from the committed measurements and the
# committed platform, without a GPU (docs/validation.md): `g5 compare` of
#   executor     the executor's rows (every committed schedule, both modes)
#   nccl         NCCL's rows of the same harness (auto and forced protocols)
#   nccl-tests   the nccl-tests logs of the two-H200 host (another harness)
# Writes results/validation/GROUP/compare.csv, the figures of the
# single-process, out-of-place, float curves, and results/validation/summary.md
# (a table per group, then the errors by group of curves).
#   G5=build/g5 sh scripts/validate.sh
set -eu
G5=${G5:-build/g5}
P=${PLATFORM:-configs/platforms/h200x2-nvlink.yaml}
M=docs/measurements/h200x2-validation
O=results/validation
mkdir -p "$O"
S=$O/summary.md.tmp
: >"$S"

# group NAME WHERE FILES...: table, compare.csv, figures
group() {
	name=$1 where=$2
	shift 2
	echo "## $name" >>"$S"
	echo >>"$S"
	"$G5" compare --summary --platform "$P" --where "$where" -o "$O/$name" --no-plots "$@" >>"$S"
	rm -f "$O/$name"/*.png "$O/$name"/*.svg "$O/$name"/*.gp "$O/$name"/*.dat
	"$G5" compare --platform "$P" --where "$where,mode=single,inplace=0,dtype=fp32" \
		-o "$O/$name/figures" "$@" >/dev/null
	echo >>"$S"
}
group executor impl=g5 $M/results.csv $M/remeasure.csv
group nccl impl=nccl $M/results.csv $M/remeasure.csv $M/proto.csv
group nccl-tests impl=nccl tests/measured/data/all_reduce_float_g2.txt \
	tests/measured/data/all_reduce_bfloat16_g2.txt tests/measured/data/all_reduce_float_mpi_np2.txt

# errors over the points of groups of curves: exp(mean |ln r|) - 1 and the max
echo "## By group of curves" >>"$S"
echo >>"$S"
echo "| data | curves | points | geomean_err % | max_err % |" >>"$S"
echo "|---|---|---|---|---|" >>"$S"
agg() {
	awk -F, -v label="$2" -v want="$3" '
	NR > 1 {
		key = $3 " " $4 " " $5
		ok = 0
		if (want == "allreduce-ring") ok = ($4 == "allreduce" && $5 == "ring")
		else if (want == "allreduce-other") ok = ($4 == "allreduce" && $5 != "ring")
		else if (want == "allreduce") ok = ($4 == "allreduce")
		else if (want == "other") ok = ($4 != "allreduce")
		if (!ok) next
		e = log($18); if (e < 0) e = -e
		s += e; n++; if (e > m) m = e
	}
	END { if (n) printf "| %s | %s | %d | %.1f | %.1f |\n", label, want, n, 100 * (exp(s / n) - 1), 100 * (exp(m) - 1) }
	' "$1" >>"$S"
}
agg $O/executor/compare.csv "executor (fitted: ring AllReduce, every other size)" allreduce-ring
agg $O/executor/compare.csv "executor, not fitted" allreduce-other
agg $O/executor/compare.csv "executor, not fitted" other
agg $O/nccl/compare.csv "NCCL in g5x (fitted: AllReduce, every other size)" allreduce
agg $O/nccl/compare.csv "NCCL in g5x, not fitted" other
agg $O/nccl-tests/compare.csv "nccl-tests logs, not fitted" allreduce
mv "$S" $O/summary.md
cat $O/summary.md | tail -8
