#!/bin/sh
# Writes the golden outputs (tests/expected/README.md) into DIR (default
# tests/expected); tests/goldens compares a fresh run with the committed ones.
#   sim/TOPO-nN.jsonl   `g5 sim --json` of every algorithm registered for every
#                       collective on TOPO of N ranks, at 4KiB, 1MiB and 64MiB;
#                       the hierarchical one (hier) with 2 ranks per node
#   sim/breakdown.jsonl `g5 sim --breakdown --json` of a few, default platform
#   sim/large.jsonl     `g5 sim --json` of a few algorithms on the default ring
#                       of 256 ranks at 4KiB: matching and memory at scale
#   sim/refused.txt     the shapes and combinations g5 does not admit, with
#                       its message (a refused shape has no TOPO-nN.jsonl)
#   experiments/NAME.csv  `g5 run` of experiments/01..09, without `events`
# The lines leave out what is not simulated or may change without moving a
# result: `events` and `wall_s` in JSON, `events`, `wall_s`, `host` and `date`
# in CSV. g5 refuses what it does not admit with a message before any result:
# an N the algorithm does not admit (rd on 6 ranks) with exit status 1, a
# shape the flags ask for and the fabric cannot build (a torus of 2) with 2;
# that goes to refused.txt. Any other failure (a crash, a refusal after some
# sizes ran) stops the script with status 1.
#   G5=build/g5 sh scripts/goldens.sh [DIR]
set -eu
G5=${G5:-build/g5}
out=${1:-tests/expected}
topos="ring fullmesh hypercube torus switch"
ranks="2 8 16"
colls="allreduce allgather reducescatter alltoall broadcast reduce p2p allgatherv"
sizes=4KiB,1MiB,64MiB

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
die() {
	echo "goldens.sh: $*" >&2
	exit 1
}

# algos COLL: the algorithms registered for COLL, in registry order, read from
# g5's message for an unknown one, so that a new algorithm is picked up.
algos() {
	if "$G5" sim --collective "$1" --algo '?' >/dev/null 2>"$tmp/err"; then
		die "'g5 sim --collective $1 --algo ?' did not fail"
	fi
	list=$(sed -n "s/.*unknown algorithm '?' for $1 (known: \([^)]*\)).*/\1/p" "$tmp/err" | tr -d ,)
	[ -n "$list" ] || die "no list of algorithms for $1 in: $(cat "$tmp/err")"
	printf '%s\n' "$list"
}

# strip: drops `"events": N, "wall_s": X, ` from each JSON line; the rest of
# the line stays byte for byte. Fails on a line without them in that order.
strip() {
	sed 's/, "events": [0-9]*, "wall_s": [0-9.]*, "mode": /, "mode": /' "$1" >"$tmp/strip"
	if grep -q '"events"\|"wall_s"' "$tmp/strip" || grep -qv '"steps": [0-9]*, "mode": ' "$tmp/strip"; then
		die "unexpected JSON from g5 sim: $(head -n 1 "$1")"
	fi
	cat "$tmp/strip"
}

# sim FILE LABEL ARGS...: appends the lines of `g5 sim --json ARGS` to FILE;
# a refusal appends "LABEL: message" to sim/refused.txt instead.
sim() {
	file=$1 label=$2
	shift 2
	if "$G5" sim --json "$@" >"$tmp/out" 2>"$tmp/err"; then
		rc=0
	else
		rc=$?
	fi
	case $rc in
	0) strip "$tmp/out" >>"$file" ;;
	1 | 2)
		[ ! -s "$tmp/out" ] || die "$label: failed after some sizes: $(cat "$tmp/err")"
		[ -s "$tmp/err" ] || die "$label: exit status $rc without a message"
		echo "$label: $(cat "$tmp/err")" >>"$out/sim/refused.txt"
		;;
	*) die "$label: g5 sim exited with status $rc: $(cat "$tmp/err")" ;;
	esac
}

rm -rf "$out/sim" "$out/experiments"
mkdir -p "$out/sim" "$out/experiments"
: >"$out/sim/refused.txt"
: >"$tmp/algos"
for c in $colls; do
	list=$(algos "$c") # an assignment, so that a failure stops the script
	echo "$c $list" >>"$tmp/algos"
done
for t in $topos; do
	for n in $ranks; do
		# a shape g5 refuses (a torus of 2) is one line of refused.txt, no file
		f=$out/sim/$t-n$n.jsonl
		sim "$tmp/probe" "$t n=$n" --topo "$t" --ranks "$n" --size 4KiB
		[ -s "$tmp/probe" ] || continue
		rm -f "$tmp/probe"
		: >"$f"
		while read -r c list; do
			for a in $list; do
				case $a in
				hier*) set -- --node-ranks 2 ;;
				*) set -- ;;
				esac
				sim "$f" "$t n=$n $c $a" --topo "$t" --ranks "$n" --collective "$c" \
					--algo "$a" --size "$sizes" "$@"
			done
		done <"$tmp/algos"
	done
done
for ca in allreduce:ring allreduce:hd allreduce:dbtree alltoall:pairwise; do
	c=${ca%:*} a=${ca#*:}
	sim "$out/sim/breakdown.jsonl" "breakdown $c $a" --breakdown --collective "$c" --algo "$a" \
		--size 1MiB,64MiB
done

for ca in allreduce:ring allreduce:hd allgather:ring2p reducescatter:rh alltoall:pairwise; do
	c=${ca%:*} a=${ca#*:}
	sim "$out/sim/large.jsonl" "large $c $a" --ranks 256 --collective "$c" --algo "$a" --size 4KiB
done

for y in experiments/0[1-9]-*.yaml; do
	name=$(basename "$y" .yaml)
	rm -rf "$tmp/run"
	"$G5" run "$y" -o "$tmp/run" --no-plots -q || die "g5 run $y failed"
	csv=$tmp/run/$name.csv
	[ -f "$csv" ] || die "g5 run $y wrote no $name.csv"
	! grep -q '"' "$csv" || die "$csv has a quoted field; the column filter splits on commas"
	awk -F, -v OFS=, '
	NR == 1 {
		for (i = 1; i <= NF; i++)
			if ($i !~ /^(events|wall_s|host|date)$/)
				keep[++n] = i
	}
	{
		line = $keep[1]
		for (j = 2; j <= n; j++)
			line = line OFS $keep[j]
		print line
	}' "$csv" >"$out/experiments/$name.csv"
done
