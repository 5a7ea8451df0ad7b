#!/bin/sh
# make run: the default job. Runs study 1 of the seed study through the
# experiment runner when it is present; otherwise the same comparison as a
# table from g5 sim (AllReduce on the seed ring, five algorithms).
set -eu
g5=${1:-build/g5}
if [ -f experiments/01-allreduce.yaml ] && "$g5" run --help >/dev/null 2>&1; then
	"$g5" run experiments/01-allreduce.yaml -o results
	echo "plots: results/plots/01-allreduce-*.png (and .svg)"
	exit 0
fi
for algo in ring ring2p sendrecv hd dbtree; do
	"$g5" sim --collective allreduce --algo "$algo" --size 1KiB,64KiB,1MiB,64MiB,512MiB
done
