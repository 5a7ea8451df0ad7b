#!/bin/sh
# Runs every test binary with --tap, prints each result line, and ends with
# one line "N passed, N failed" (test cases over all binaries). A binary that
# exits non-zero without reporting a failed case counts as one failure.
# VALGRIND=1 runs each binary under valgrind (errors fail the binary).
pass=0
fail=0
skip=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for t in "$@"; do
	name=${t#*/tests/}
	echo "# $name"
	if [ "${VALGRIND:-0}" = 1 ]; then
		valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --show-possibly-lost=no \
			"$t" --tap >"$log" 2>&1
	else
		"$t" --tap >"$log" 2>&1
	fi
	rc=$?
	grep -E '^(not )?ok |^Bail out|^#.*(ERROR|FAIL)|==[0-9]+==' "$log" | sed 's/^/  /'
	p=$(grep -E '^ok ' "$log" | grep -vc '# SKIP')
	s=$(grep -E '^ok .*# SKIP' -c "$log")
	f=$(grep -Ec '^not ok ' "$log")
	pass=$((pass + p))
	skip=$((skip + s))
	fail=$((fail + f))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "  $name exited with status $rc:"
		tail -n 20 "$log" | sed 's/^/    /'
		fail=$((fail + 1))
	fi
done
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
