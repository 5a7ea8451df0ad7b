import json,sys,collections
d=json.load(open(sys.argv[1]))
ev=d['traceEvents'] if isinstance(d,dict) else d
cpid=[e['pid'] for e in ev if e.get('ph')=='M' and e.get('name')=='process_name' and e['args']['name']=='channels'][0]
names={e['tid']:e['args']['name'] for e in ev if e.get('ph')=='M' and e.get('name')=='thread_name' and e.get('pid')==cpid}
ch=[e for e in ev if e.get('cat')=='channel']
B=float(sys.argv[2]) if len(sys.argv)>2 else 5
util=collections.defaultdict(lambda: collections.Counter())
end=0
for e in ch:
    a=e['ts']; b=a+e['dur']; end=max(end,b)
    k=int(a//B)
    while a<b:
        nb=min(b,(k+1)*B); util[e['tid']][k]+=nb-a; a=nb; k+=1
nb=int(end//B)+1
for tid in sorted(util):
    print('%-8s'%names[tid], ' '.join('%3d'%int(100*util[tid][b]/B) for b in range(nb)))
