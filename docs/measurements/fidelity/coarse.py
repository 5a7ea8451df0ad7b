"""Packet fidelity with packets 4x and 16x larger (buffer bytes, window
bytes and header overhead kept), and flow fidelity, against the seed
platform's packets, over whole curves at 32 ranks (docs/scale.md,
"What flow fidelity misses on multi-hop routes is buffer space").
Run from the repository root: python3 docs/measurements/fidelity/coarse.py"""
import json, subprocess, sys, math, itertools
from concurrent.futures import ThreadPoolExecutor
G5='build/g5'
curves=[(t,n,c,a) for (t,n,c,a) in [
 ('ring',32,'allgather','direct'),('ring',32,'allgather','bruck'),('ring',32,'allgather','rd'),
 ('ring',32,'allreduce','hd'),('ring',32,'allreduce','direct'),('ring',32,'alltoall','bruck'),
 ('ring',32,'alltoall','pairwise'),('torus',32,'allgather','direct'),('hypercube',32,'allreduce','direct'),
 ('ring',32,'allreduce','ring'),('ring',32,'broadcast','binomial'),('torus',32,'broadcast','binomial'),
 ('torus',32,'allreduce','torus2p'),('ring',32,'allgather','torus'),('switch',32,'alltoall','ring2p')]]
modes={'ref':[], 'k4':['--packet=16KiB','--credits=16','--window=32','--header=128'],
       'k16':['--packet=64KiB','--credits=4','--window=8','--header=512'],
       'flow':['--fidelity=flow']}
def run(args):
    t,n,c,a,m=args
    top='256MiB' if n<64 else '64MiB'
    cmd=[G5,'sim','--topo',t,'--ranks',str(n),'--collective',c,'--algo',a,'--size','1KiB..%s x4'%top,'--json','--max-events','0']+modes[m]
    out=subprocess.run(cmd,capture_output=True,text=True)
    res=[json.loads(l) for l in out.stdout.splitlines() if l.startswith('{')]
    return (t,n,c,a,m),[(r['bytes'],r['latency_us'],r['events']) for r in res], out.stderr[-300:] if not res else ''
jobs=[(t,n,c,a,m) for (t,n,c,a) in curves for m in modes]
with ThreadPoolExecutor(2) as ex:
    R={k:(v,e) for k,v,e in ex.map(run,jobs)}
for (t,n,c,a) in curves:
    ref=R[(t,n,c,a,'ref')][0]
    line=f'{t:9s} {n} {c:10s} {a:9s}'
    for m in ['k4','k16','flow']:
        v=R[(t,n,c,a,m)][0]
        if len(v)!=len(ref) or not ref: line+=f' | {m} ERR {R[(t,n,c,a,m)][1]}'; continue
        errs=[abs(x[1]-y[1])/y[1] for x,y in zip(v,ref)]
        gm=math.exp(sum(math.log(max(e,1e-6)) for e in errs)/len(errs))
        ev=sum(x[2] for x in v)/sum(y[2] for y in ref)
        line+=f' | {m} gm {100*gm:5.2f}% max {100*max(errs):5.1f}% ev {ev:.3f}'
    print(line, flush=True)
