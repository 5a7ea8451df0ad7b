# Makes SUMMARY.md: python3 summarize.py timing.log mpi.log > SUMMARY.md
import re,sys
def parse(path):
    rows={}
    hdr=None
    for line in open(path):
        m=re.match(r'# g5x (\S+): collective (\S+) algo (\S+) ranks (\d+) nchunks (\d+)',line)
        if m: hdr=dict(impl=m[1],coll=m[2],algo=m[3],k=m[5]); continue
        m=re.match(r'# mode (.*?) dtype (\S+)',line)
        if m and hdr: hdr['mode']='mpi' if m[1].startswith('mpi') else 'single'; hdr['dtype']=m[2]; continue
        if line.startswith('#') or not line.strip() or hdr is None: continue
        f=line.split()
        if len(f)<13: continue
        key=(hdr['mode'],hdr['coll'],hdr['algo']+('' if hdr['k']=='1' else '-k'+hdr['k']),hdr['dtype'],int(f[0]),hdr['impl'])
        rows[key]=(float(f[5]),float(f[7]),float(f[9]),float(f[11]))
    return rows
r={}
for p in sys.argv[1:]: r.update(parse(p))
nccl={(k[0],k[1],k[3],k[4]):v for k,v in r.items() if k[5]=='nccl'}
sizes=[1<<12,1<<16,1<<20,1<<24,1<<28,1<<30]
print('| mode | collective | algo | dtype | size | g5 time us | g5 busbw | NCCL busbw | g5/NCCL | SoL (366) |')
print('|---|---|---|---|---|---|---|---|---|---|')
for k in sorted(r, key=lambda k:(k[0]!='single',k[1],k[2],k[3],k[4])):
    if k[5]!='g5' or k[4] not in sizes: continue
    v=r[k]; n=nccl.get((k[0],k[1],k[3],k[4]))
    nb='%.1f'%n[1] if n else '-'
    ratio='%.2f'%(v[1]/n[1]) if n and n[1]>0 else '-'
    sz={1<<12:'4K',1<<16:'64K',1<<20:'1M',1<<24:'16M',1<<28:'256M',1<<30:'1G'}[k[4]]
    print(f'| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {sz} | {v[0]:.1f} | {v[1]:.1f} | {nb} | {ratio} | {100*v[1]/366:.0f}% |')
