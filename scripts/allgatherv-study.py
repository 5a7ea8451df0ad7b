#!/usr/bin/env python3
"""The tables of docs/allgatherv-study.md from the CSVs of
experiments/run_all.sh 11 (results/11-allgatherv-*.csv): per system and
count distribution, the skew, the winner at each size with its latency,
every algorithm's latency relative to the winner, and the critical-path
breakdown of chosen points.
    python3 scripts/allgatherv-study.py [RESULTS_DIR]   (default results)"""
import csv
import glob
import os
import sys

ALGOS = ["ring", "direct", "rd", "bruck", "pad", "bcast"]
DISTS = ["equal", "zipf", "lognormal", "heavy", "utm300-eqrows", "utm300-eqnnz"]
SYSTEMS = ["cluster16-edr", "dgx1", "cs-storm16"]


def size_name(b):
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= div and b % div == 0:
            return "%d %s" % (b // div, unit)
    return "%d B" % b


def load(d):
    rows = {}
    for path in sorted(glob.glob(os.path.join(d, "11-allgatherv-*.csv"))):
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                name = r["experiment"][len("11-allgatherv-"):]
                rows.setdefault(name, []).append(r)
    return rows


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "results"
    rows = load(d)
    if not rows:
        sys.exit("allgatherv-study.py: no 11-allgatherv-*.csv under %s" % d)
    for sysname in SYSTEMS:
        print("\n### %s\n" % sysname)
        print("| counts | skew | " + " | ".join(
            size_name(b) for b in sorted({int(r["bytes"]) for r in rows[sysname + "-equal"]})) + " |")
        sizes = sorted({int(r["bytes"]) for r in rows[sysname + "-equal"]})
        print("|---|---|" + "---|" * len(sizes))
        for dist in DISTS:
            rs = rows.get(sysname + "-" + dist)
            if not rs:
                continue
            cells = []
            for b in sizes:
                pts = {r["algo"]: float(r["latency_us"]) for r in rs if int(r["bytes"]) == b}
                best = min(pts, key=lambda a: (pts[a], ALGOS.index(a)))
                second = min((a for a in pts if a != best), key=lambda a: pts[a])
                cells.append("%s %.0f (%s +%.0f%%)" % (best, pts[best], second,
                                                      100 * (pts[second] / pts[best] - 1)))
            print("| %s | %.2f | %s |" % (dist, float(rs[0]["skew"]), " | ".join(cells)))
    print("\n### each algorithm over the winner (x), 64 MiB\n")
    print("| system | counts | " + " | ".join(ALGOS) + " |")
    print("|---|---|" + "---|" * len(ALGOS))
    for sysname in SYSTEMS:
        for dist in DISTS:
            rs = rows.get(sysname + "-" + dist)
            if not rs:
                continue
            b = max(int(r["bytes"]) for r in rs)
            pts = {r["algo"]: float(r["latency_us"]) for r in rs if int(r["bytes"]) == b}
            best = min(pts.values())
            print("| %s | %s | %s |" % (sysname, dist, " | ".join(
                "%.2f" % (pts[a] / best) for a in ALGOS)))
    print("\n### breakdown of the critical path at 64 MiB (us: serialisation, queueing, handshake, dependency)\n")
    print("| system | counts | algo | latency | serial | queue | handshake | dependency |")
    print("|---|---|---|---|---|---|---|---|")
    for sysname in SYSTEMS:
        for dist in ("equal", "heavy", "utm300-eqnnz"):
            rs = rows.get(sysname + "-" + dist, [])
            b = max(int(r["bytes"]) for r in rs)
            for r in rs:
                if int(r["bytes"]) != b:
                    continue
                print("| %s | %s | %s | %.0f | %.0f | %.0f | %.0f | %.0f |" % (
                    sysname, dist, r["algo"], float(r["latency_us"]),
                    float(r["bd_serialisation_us"]), float(r["bd_queueing_us"]),
                    float(r["bd_handshake_us"]), float(r["bd_dependency_us"])))


main()
