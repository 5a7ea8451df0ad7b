#!/bin/sh
# make run: the default job. Runs the default study when the experiment runner
# is present, otherwise a small default simulation.
set -eu
g5=${1:-build/g5}
"$g5" bench engine
