#!/bin/sh
# The DGX platforms, derived without fitting anything (docs/systems.md):
#   dgx-h200.yaml   eight H200 on NVSwitch: scripts/derive-h200x8.sh's
#                   platform (the calibrated two-GPU one behind a switch)
#   dgx-h100.yaml   eight H100 on NVSwitch: the same, with the rates of the
#                   GPU's memory side scaled to the H100's HBM
#   dgx-h200x16-rails-1to1.yaml, dgx-h200x16-rails-2to1.yaml
#                   16 DGX H200 (128 GPUs) joined through their eight
#                   400 Gb/s NICs by a rail-optimised leaf-spine, 1:1 and 2:1
#   sh scripts/derive-dgx.sh [DIR]      (DIR: configs/platforms)
set -eu
dir=${1:-configs/platforms}
node=$(mktemp)
trap 'rm -f "$node"' EXIT
# the eight-GPU node tier, without derive-h200x8.sh's comments
sh scripts/derive-h200x8.sh 8 | sed '/^#/d' >"$node"
key() {
	sed -n "s/^$1: \([0-9]*\).*/\1/p" "$node"
}
[ -n "$(key paxi.reduce)" ] && [ -n "$(key paxi.copy)" ] || {
	echo "derive-dgx: no paxi.reduce/paxi.copy in the node platform" >&2
	exit 1
}

{
	cat <<'HEAD'
# A DGX H200: eight H200 SXM on NVSwitch, the platform of
# scripts/derive-h200x8.sh (no fitting): every key of the calibrated
# two-GPU platform configs/platforms/h200x2-nvlink.yaml, with the switch
# topology, each GPU's port at the fitted link.bandwidth and two hops of
# half the measured one-way latency each. Written by scripts/derive-dgx.sh.
HEAD
	sed 's/^name: .*/name: "dgx-h200"/' "$node"
} >"$dir/dgx-h200.yaml"

# H100 SXM5: HBM3 at 3.35 TB/s (NVIDIA H100 Tensor Core GPU datasheet)
# against the H200's HBM3e at 4.8 TB/s (NVIDIA H200 Tensor Core GPU
# datasheet); the same GH100 die, 18 NVLink4 links (900 GB/s both ways)
# and third-generation NVSwitch in both.
scale() {
	echo $(($1 * 335 / 480))
}
reduce=$(scale "$(key paxi.reduce)")
copy=$(scale "$(key paxi.copy)")
{
	cat <<HEAD
# A DGX H100: eight H100 SXM5 on NVSwitch, not measured. The H100 and the
# H200 are the same GH100 die with the same 18 NVLink4 links (900 GB/s both
# ways, NVIDIA's H100 and H200 datasheets) on the same third-generation
# NVSwitch, so this is configs/platforms/dgx-h200.yaml (the calibrated H200
# behind a switch) with one change: the rates of the memory side, reduce and
# copy, which the H200's HBM bounds (a reduce moves three bytes of HBM per
# byte), scale with the HBM bandwidth, 3.35 TB/s (HBM3) over 4.8 TB/s
# (HBM3e):
#   paxi.reduce $(key paxi.reduce) -> $reduce B/s
#   paxi.copy   $(key paxi.copy) -> $copy B/s
# Written by scripts/derive-dgx.sh.
HEAD
	sed -e 's/^name: .*/name: "dgx-h100"/' \
	    -e "s|^paxi\.reduce: .*|paxi.reduce: ${reduce}B/s|" \
	    -e "s|^paxi\.copy: .*|paxi.copy: ${copy}B/s|" "$node"
} >"$dir/dgx-h100.yaml"

# rails RATIO SPINES: 16 DGX H200 on a rail-optimised leaf-spine
rails() {
	cat <<HEAD
# 16 DGX H200 (128 GPUs) on a rail-optimised leaf-spine at $1:1, in two
# tiers (topology.kind tiers, docs/config.md; docs/systems.md):
#  - node tier: the eight GPUs of a node on its NVSwitch, every value of
#    configs/platforms/dgx-h200.yaml (switch_link: the calibrated H200);
#  - scale-out tier: each GPU's own NIC, a ConnectX-7 at 400 Gb/s (NDR
#    InfiniBand: 50 GB/s per direction; NVIDIA DGX H200 datasheet: 8x
#    single-port ConnectX-7 VPI, up to 400 Gb/s), on the leaf of its
#    rail (GPU r of every node on leaf r, 16 ports down), every leaf on
#    each of $2 spines at 400 Gb/s, which makes a leaf's uplinks $1:1.
# scaleout_link.latency 600ns per hop, not measured: NVIDIA gives
# "sub-600ns latency" for the ConnectX-6 VPI adapter (ConnectX-6 VPI user
# manual, Introduction) and no figure in that of ConnectX-7, so the
# predecessor's bound stands for a NIC's and a switch's share of each hop;
# a same-rail path (GPU -> leaf -> GPU) then costs 1.2 us one way, a
# cross-rail one (through a spine, four hops) 2.4 us. scaleout_link.packet
# 4KiB is the InfiniBand MTU; scaleout_link.header 26B the headers of an
# RDMA write's middle packet (LRH 8, BTH 12, ICRC 4, VCRC 2 bytes:
# InfiniBand Architecture Specification, Volume 1). The other
# scaleout_link keys are the node tier's (no link-level loss or credit
# limit modelled). PCIe between a GPU and its NIC (Gen5 x16) is faster than
# the port and not modelled. Written by scripts/derive-dgx.sh.
HEAD
	sed -e "s/^name: .*/name: \"dgx-h200x16-rails-$1to1\"/" \
	    -e 's/^topology\.kind: .*/topology.kind: tiers/' \
	    -e 's/^topology\.ranks: .*/topology.ranks: 128\
topology.node_ranks: 8\
topology.leaves: 8\
topology.spines: '"$2"'\
topology.oversubscription: '"$1"':1\
topology.routing: ecmp/' "$node"
	sed -n 's/^link\.\([a-z_]*\): \(.*\)/scaleout_link.\1: \2/p' "$node" |
		sed -e 's/^scaleout_link\.bandwidth: .*/scaleout_link.bandwidth: 50GB\/s/' \
		    -e 's/^scaleout_link\.latency: .*/scaleout_link.latency: 600ns/' \
		    -e 's/^scaleout_link\.header: .*/scaleout_link.header: 26B/' \
		    -e 's/^scaleout_link\.packet: .*/scaleout_link.packet: 4KiB/'
}
rails 1 16 >"$dir/dgx-h200x16-rails-1to1.yaml"
rails 2 8 >"$dir/dgx-h200x16-rails-2to1.yaml"
