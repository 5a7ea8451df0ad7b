#!/bin/sh
# Fails when a lower layer includes a higher one (core < link < paxi < algos
# < front end; DESIGN.md "The data path"). Run by `make test`.
set -u
cd "$(dirname "$0")/.."
bad=$( { grep -ln '#include "sim/\(link\|paxi\|algos\)/' sim/core/*.[ch];
	grep -ln '#include "sim/\(paxi\|algos\)/' sim/link/*.[ch];
	grep -ln '#include "sim/algos/' sim/paxi/*.[ch];
	grep -ln '#include "sim/[a-z_]*\.h"' sim/core/*.[ch] sim/link/*.[ch] sim/paxi/*.[ch] sim/algos/*.[ch]; } 2>/dev/null | sort -u)
if [ -n "$bad" ]; then
	echo "a lower layer includes a higher one (core < link < paxi < algos < front end):" $bad
	exit 1
fi
echo "layers: no upward include"
