#!/bin/sh
# Runs the numbered studies (the seed study's 01..09, the systems study's 10,
# the irregular AllGatherV study's 11):
# all of them, or those whose numbers are
# given (experiments/run_all.sh 1 5 7). Results and plots go to results/.
set -eu
here=$(dirname "$0")
g5=${G5:-$here/../build/g5}
if [ $# -eq 0 ]; then
	set -- $(ls "$here" | sed -n 's/^\([0-9][0-9]\)-.*\.yaml$/\1/p' | sort -u)
fi
start=$(date +%s)
for n in "$@"; do
	n=$(printf "%02d" "$(echo "$n" | sed "s/^0*//")")
	found=0
	for f in "$here"/$n-*.yaml; do
		[ -f "$f" ] || continue
		found=1
		"$g5" run "$f" -o results
	done
	[ "$found" = 1 ] || { echo "run_all.sh: no experiment numbered $n" >&2; exit 2; }
done
echo "all done in $(( $(date +%s) - start )) s; results and plots under results/"
