# The fidelity matrix in one line per file: curves met and the error over all
# points (exp of the mean |log(flow / packet)| over every point, less one),
# from the per-curve lines of `g5 bench fidelity --json`.
# usage: python3 summary.py FILE...
import json,sys,math
for f in sys.argv[1:]:
    rows=[json.loads(l) for l in open(f)]
    c=[r for r in rows if 'geomean_err' in r and 'algo' in r]
    n=sum(r['points'] for r in c); s=sum(r['points']*math.log(1+r['geomean_err']) for r in c)
    print(f.split('/')[-1], 'curves', len(c), 'met', sum(r['goal_met'] for r in c), 'all-points geomean %.2f%%'%(100*(math.exp(s/n)-1)))
