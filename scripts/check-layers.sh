#!/bin/sh
# Fails when a lower layer includes a higher one (core < link < paxi < algos
# < front end; docs/design.md "The data path"). Run by `make test`.
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
# The schedule IR's plain-C core is compiled by gpu/ on hosts without GLib:
# it includes only the C library, itself and the rank limit (sim/core/limits.h,
# which includes nothing); gpu/ takes nothing else of sim/.
ir=$(grep -h '#include' sim/algos/ir.[ch] sim/core/limits.h |
	grep -v '#include <std\(bool\|int\)\.h>\|#include <string\.h>\|#include "sim/algos/ir\.h"\|#include "sim/core/limits\.h"')
gpu=$(grep -rhn '#include "sim/' gpu | grep -v '#include "sim/algos/ir\.h"')
if [ -n "$ir$gpu" ]; then
	echo "sim/algos/ir.[ch] must be plain C, and gpu/ may include only it of sim/:" $ir $gpu
	exit 1
fi
echo "layers: no upward include; the IR core is plain C"
