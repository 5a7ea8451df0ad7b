#!/bin/sh
# The eight-GPU NVSwitch platform, derived from the calibrated two-GPU one
# without fitting anything (docs/measurements/h200x8/prediction/README.md):
# the same GPU (launch, issue, channels, protocols, engine, memory rates)
# behind a switch instead of a direct link. Each GPU's 18 NVLinks go to the
# NVSwitches, so a GPU's port moves what its 18 links to the other GPU
# moved (link.bandwidth, fitted on two GPUs); a GPU-to-GPU path is two
# hops (GPU -> switch -> GPU) whose latencies sum to the one-way latency
# measured over the direct links (the switch's own delay is not measured).
#   sh scripts/derive-h200x8.sh [RANKS] > configs/platforms/h200x8-nvswitch.yaml
set -eu
src=${SRC:-configs/platforms/h200x2-nvlink.yaml}
ranks=${1:-8}
lat=$(sed -n 's/^link\.latency: \([0-9]*\)ps$/\1/p' "$src")
bw=$(sed -n 's/^link\.bandwidth: \(.*\)$/\1/p' "$src")
[ -n "$lat" ] && [ -n "$bw" ] || { echo "derive-h200x8: no link.latency/link.bandwidth in $src" >&2; exit 1; }
cat <<HEAD
# Eight H200 on NVSwitch, derived from $src by
# scripts/derive-h200x8.sh (no fitting): the two-GPU platform's every key,
# with the switch topology, each GPU's port at link.bandwidth ($bw), and
# switch_link.latency half the measured one-way latency ($lat ps), so that
# a GPU-to-GPU path of two hops costs what the direct path measured.
HEAD
sed -e '/^#/d' \
    -e "s/^name: .*/name: \"h200x${ranks}-nvswitch\"/" \
    -e 's/^topology\.kind: .*/topology.kind: switch/' \
    -e "s/^topology\.ranks: .*/topology.ranks: $ranks/" \
    -e "s|^switch_link\.bandwidth: .*|switch_link.bandwidth: $bw|" \
    -e "s/^switch_link\.latency: .*/switch_link.latency: $((lat / 2))ps/" "$src"
