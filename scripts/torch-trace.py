#!/usr/bin/env python3
"""A small data-parallel training step under PyTorch's profiler, for the
workload importer's fixtures (docs/workload.md).

Two processes on one host run a 4-layer MLP with DistributedDataParallel
(small buckets, so the gradients travel as several AllReduce calls), then one
AllGather, one ReduceScatter and one AllToAll of their own, under
torch.profiler; each rank writes its Chrome-trace JSON.
  python3 scripts/torch-trace.py --backend gloo|nccl --world N --out DIR
nccl needs N GPUs; gloo runs on the CPU."""
import argparse
import json
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP


def step(rank, world, backend, out, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group(backend, rank=rank, world_size=world)
    dev = torch.device("cuda", rank) if backend == "nccl" else torch.device("cpu")
    if backend == "nccl":
        torch.cuda.set_device(dev)
    torch.manual_seed(1)
    layers = []
    for _ in range(4):
        layers += [torch.nn.Linear(512, 512), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers).to(dev)
    ddp = DDP(model, device_ids=[rank] if backend == "nccl" else None, bucket_cap_mb=1)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    x = torch.randn(64, 512, device=dev)
    for _ in range(2):  # warm-up: DDP rebuilds its buckets after the first step
        opt.zero_grad()
        ddp(x).sum().backward()
        opt.step()
    acts = [torch.profiler.ProfilerActivity.CPU]
    if backend == "nccl":
        acts.append(torch.profiler.ProfilerActivity.CUDA)
    with torch.profiler.profile(activities=acts, record_shapes=True) as prof:
        opt.zero_grad()
        ddp(x).sum().backward()
        opt.step()
        shard = torch.randn(65536, device=dev, dtype=torch.bfloat16)
        full = torch.empty(65536 * world, device=dev, dtype=torch.bfloat16)
        try:
            dist.all_gather_into_tensor(full, shard)
        except Exception as e:  # backend without it
            print("rank %d: all_gather_into_tensor: %s" % (rank, e), file=sys.stderr)
            dist.all_gather(list(full.chunk(world)), shard)
        try:
            dist.reduce_scatter_tensor(shard, full)
        except Exception as e:
            print("rank %d: reduce_scatter_tensor: %s" % (rank, e), file=sys.stderr)
        a2a_in = torch.randn(4096 * world, device=dev)
        a2a_out = torch.empty_like(a2a_in)
        try:
            dist.all_to_all_single(a2a_out, a2a_in)
        except Exception as e:
            print("rank %d: all_to_all_single: %s" % (rank, e), file=sys.stderr)
        if backend == "nccl":
            torch.cuda.synchronize()
        dist.barrier()
    prof.export_chrome_trace(os.path.join(out, "trace-%s-rank%d.json" % (backend, rank)))
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", default="gloo")
    ap.add_argument("--world", type=int, default=2)
    ap.add_argument("--out", default=".")
    ap.add_argument("--port", type=int, default=29511)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    mp.spawn(step, args=(a.world, a.backend, a.out, a.port), nprocs=a.world, join=True)
    print("torch", torch.__version__)


if __name__ == "__main__":
    main()
