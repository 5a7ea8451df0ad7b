#!/bin/sh
# Writes gpu/schedules/COLL-ALGO-nN-kK.g5s for every algorithm that the
# simulator's registry admits on N ranks (default 2), nchunks 1 and, for the
# pipelined AllReduce examples, 4. Runs here, where g5 builds; the GPU host
# (no GLib) takes the committed files.
# RANKS other than 2 go to gpu/schedules/nRANKS/ (gpu/run-shared.sh checks
# them on one GPU; the eight-GPU run times them), so that the two-GPU
# scripts' gpu/schedules/*.g5s stay the 2-rank set.
#   gpu/make-schedules.sh [G5_BINARY] [RANKS]
set -eu
cd "$(dirname "$0")/.."
g5=${1:-build/g5}
n=${2:-2}
out=gpu/schedules
[ "$n" = 2 ] || out=gpu/schedules/n$n
[ -x "$g5" ] || { echo "make-schedules: '$g5' is not the g5 binary (make it first)" >&2; exit 1; }
mkdir -p "$out"
count=0
for coll in allreduce allgather reducescatter alltoall broadcast reduce p2p allgatherv; do
	# the registry's names, from the error that lists them
	known=$("$g5" schedule --collective "$coll" --algo '?' --ranks "$n" 2>&1 |
		sed -n "s/.*(known: \([^)]*\)).*/\1/p" | tr -d ',')
	for algo in $known; do
		for k in 1 4; do
			if [ "$k" = 4 ] && [ "$coll:$algo" != allreduce:ring ] &&
			   [ "$coll:$algo" != allreduce:hd ]; then
				continue
			fi
			f="$out/$coll-$algo-n$n-k$k.g5s"
			if "$g5" schedule --collective "$coll" --algo "$algo" --ranks "$n" \
				--nchunks "$k" --output "$f" 2>/tmp/make-schedules.$$; then
				count=$((count + 1))
			else
				echo "skip $coll $algo on $n ranks: $(cat /tmp/make-schedules.$$)" >&2
				rm -f "$f"
			fi
		done
	done
done
rm -f /tmp/make-schedules.$$
echo "$count schedule files in $out"
