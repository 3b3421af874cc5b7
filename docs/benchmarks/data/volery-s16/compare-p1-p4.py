#!/usr/bin/env python3
"""CPU per request by thread and by frame, 1 partition against 4, from probe.sh's collapsed stacks.
   compare-p1-p4.py DIR_P1 OPS_P1 DIR_P4 OPS_P4   (the ops/s of each probe's run; samples are CPU time)"""
import collections, glob, re, sys

def load(d):
    th, fr, tot = collections.Counter(), collections.Counter(), 0
    for f in glob.glob(d + '/node-*/c64.collapsed'):
        for line in open(f):
            st, _, n = line.rstrip().rpartition(' ')
            n = int(n); frames = st.split(';')
            t = re.sub(r'\d+', 'N', frames[0].strip('[]')).split(' tid')[0]
            th[t] += n; tot += n
            for x in set(frames[1:]):
                if x.startswith('io/eyrie') or x.startswith('io/volery'):
                    fr[x] += n
    return th, fr, tot

d1, o1, d4, o4 = sys.argv[1], float(sys.argv[2]), sys.argv[3], float(sys.argv[4])
t1, f1, n1 = load(d1)
t4, f4, n4 = load(d4)
print(f"samples per 1000 requests: 1p {1000 * n1 / o1 / 12:.1f}, 4p {1000 * n4 / o4 / 12:.1f} "
      f"(x{(n4 / o4) / (n1 / o1):.2f}); each probe window is 12 s")
print("by thread, samples per 1000 requests (1p, 4p, ratio)")
for t in sorted(set(t1) | set(t4), key=lambda k: -(t4[k] / o4)):
    a, b = 1000 * t1[t] / o1 / 12, 1000 * t4[t] / o4 / 12
    if max(a, b) >= 0.2:
        print(f"  {a:6.2f} {b:6.2f} {'' if a == 0 else f'x{b / a:.1f}':>6}  {t}")
print("by frame (inclusive), samples per 1000 requests, largest growth first (at least 0.5 at 4p)")
rows = []
for k in set(f1) | set(f4):
    a, b = 1000 * f1[k] / o1 / 12, 1000 * f4[k] / o4 / 12
    if b >= 0.5:
        rows.append((b - a, a, b, k))
for g, a, b, k in sorted(rows, reverse=True)[:40]:
    print(f"  {a:6.2f} {b:6.2f} +{g:5.2f}  {k[:110]}")
