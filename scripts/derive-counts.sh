#!/bin/sh
# Derives AllGatherV counts from a real sparse matrix, partitioned by row
# slices the way a distributed sparse factorisation does, into
# experiments/counts/*.txt (docs/allgatherv-study.md says how they are used).
#
# The matrix: UTM300, a 300 x 300 unsymmetric matrix with 3155 nonzeros from
# the Harwell-Boeing collection (a TOKAMAK plasma model, Harwell-Boeing
# format RUA: column-compressed), as Debian's r-cran-matrix ships it in
# /usr/lib/R/library/Matrix/external/utm300.rua. Only the structure is read:
# the header's card counts and the fixed-width pointer and row-index formats.
#
# Two partitions into N contiguous row slices (rank k owns slice k):
#   eqrows  equal rows: rank k owns rows [floor(k R / N), floor((k+1) R / N))
#           (the even split); its count is the nonzeros of its slice, what
#           each rank holds and gathers when the distributed matrix is
#           assembled on every rank.
#   eqnnz   equal nonzeros (load-balanced compute): slice k ends at the first
#           row where the running nonzero count reaches (k+1) x nnz / N; its
#           count is the rows it owns, the factor rows each rank updates and
#           AllGatherVs every iteration.
# Output, per N in 8 and 16: utm300-eqrows-N.txt and utm300-eqnnz-N.txt, one
# whole number per rank, with a comment header (source, partition, skew).
#   sh scripts/derive-counts.sh [MATRIX.rua] [OUTDIR]
set -eu
in=${1:-/usr/lib/R/library/Matrix/external/utm300.rua}
out=${2:-experiments/counts}
[ -r "$in" ] || {
	echo "derive-counts.sh: cannot read $in (apt-get install r-cran-matrix ships it)" >&2
	exit 1
}
mkdir -p "$out"
name=$(basename "$in" .rua)

# rowcounts: the nonzeros of each row, one line per row, from the HB file
rowcounts() {
	awk '
	function fmt_width(f,   m) { # "(20I4)" -> 4
		if (match(f, /[0-9]+[Ii][0-9]+/) == 0) { print "bad format " f > "/dev/stderr"; exit 1 }
		m = substr(f, RSTART, RLENGTH); sub(/^[0-9]+[Ii]/, "", m); return m + 0
	}
	NR == 2 { ptrcrd = $2; indcrd = $3; rhscrd = $5 + 0 }
	NR == 3 { nrow = $2; ncol = $3; nnz = $4 }
	NR == 4 { pw = fmt_width(substr($0, 1, 16)); iw = fmt_width(substr($0, 17, 16)) }
	NR == 5 { first = rhscrd > 0 ? 6 : 5 }
	NR >= 5 && NR >= first && NR < first + ptrcrd { next }
	NR >= 5 && NR >= first + ptrcrd && NR < first + ptrcrd + indcrd {
		line = $0
		for (p = 1; p + iw - 1 <= length(line); p += iw) {
			v = substr(line, p, iw) + 0
			if (v > 0) { cnt[v]++; seen++ }
		}
	}
	END {
		if (seen != nnz) { printf "read %d row indices, header says %d\n", seen, nnz > "/dev/stderr"; exit 1 }
		for (r = 1; r <= nrow; r++) print cnt[r] + 0
	}' "$1"
}

rowcounts "$in" >"$out/.rows.$$"
trap 'rm -f "$out/.rows.$$"' EXIT
for n in 8 16; do
	for part in eqrows eqnnz; do
		awk -v n="$n" -v part="$part" -v src="$in" -v name="$name" '
		{ c[NR - 1] = $1; tot += $1 }
		END {
			R = NR
			if (part == "eqrows") {
				for (k = 0; k < n; k++) {
					lo = int(k * R / n); hi = int((k + 1) * R / n); s = 0
					for (r = lo; r < hi; r++) s += c[r]
					w[k] = s
				}
				what = "nonzeros of each rank'\''s slice of equal rows"
			} else {
				r = 0; run = 0; prev = 0
				for (k = 0; k < n; k++) {
					target = (k + 1) * tot / n
					while (r < R && (run < target || k == n - 1)) { run += c[r]; r++ }
					w[k] = r - prev; prev = r
				}
				what = "rows of each rank'\''s slice of equal nonzeros"
			}
			max = 0; sum = 0
			for (k = 0; k < n; k++) { sum += w[k]; if (w[k] > max) max = w[k] }
			printf "# %s, %d ranks: %s\n", name, n, what
			printf "# from %s (%d rows, %d nonzeros) by scripts/derive-counts.sh\n", src, R, tot
			printf "# skew (max/mean) %.3f\n", max * n / sum
			for (k = 0; k < n; k++) print w[k]
		}' "$out/.rows.$$" >"$out/$name-$part-$n.txt"
		echo "derive-counts.sh: wrote $out/$name-$part-$n.txt"
	done
done
