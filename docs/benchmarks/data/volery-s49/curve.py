#!/usr/bin/env python3
"""curve.py DIR TAG: one line for a phase of curve.sh: ops/s, latency, the cluster's CPU and its thread groups."""
import glob, json, os, sys
d, tag = sys.argv[1], sys.argv[2]
def read(f):
    th, thr = {}, {}
    for line in open(f):
        p = line.split()
        if p[0] == 'cs':
            thr[('cs', p[1], p[2])] = (int(p[3]), int(p[4]))
        elif p[0] == 'mntr':
            thr[(p[1], p[2])] = int(p[3])
        elif p[0] == 'throttle':
            thr[p[1]] = [int(x) for x in p[2:5]]
        else:
            th[(p[0], p[1])] = int(p[2])
    return th, thr
a, ta = read(f'{d}/{tag}.a'); b, tb = read(f'{d}/{tag}.b')
secs = 30.0
def group(name):
    if name.startswith('epollEventLoop'): return 'front'
    if name.startswith('eyrie-transport'): return 'transport'
    if name.startswith('eyrie-replica'): return 'replica'
    if name.startswith('C#_Compiler') or name.startswith('C2') or name.startswith('C1'): return 'jit'
    if name.startswith('GC') or name.startswith('G#'): return 'gc'
    return 'other'
g = {}
for k, v in b.items():
    ms = (v - a.get(k, 0)) * 10 / secs   # ticks are 10 ms
    g[group(k[1])] = g.get(group(k[1]), 0) + ms
total = sum(g.values())
thr = {n: (tb[n][1] - ta[n][1]) / max(1, tb[n][0] - ta[n][0]) for n in tb if isinstance(n, str)}
def rate(key):  # per second over the window, summed over the nodes
    return sum(tb[k] - ta.get(k, 0) for k in tb if not isinstance(k, str) and len(k) == 2 and k[1] == key) / secs
cs, threads = {}, {}
for k in tb:
    if not isinstance(k, str) and len(k) == 3:
        gname = group(k[2])
        cs[gname] = cs.get(gname, 0) + (tb[k][0] - ta.get(k, (0, 0))[0]) / secs
        threads[gname] = threads.get(gname, 0) + tb[k][1]
perf = {}
for f in glob.glob(f'{d}/{tag}.perf-*'):
    for line in open(f):
        q = line.strip().split(',')
        if len(q) > 3 and q[0].replace('.', '').isdigit():
            perf[q[2]] = perf.get(q[2], 0) + float(q[0]) / secs
ops, p50, p99 = 0, 0, 0
j = f'{d}/{tag}.json'
if os.path.exists(j):
    s = json.load(open(j))
    ops, p50, p99 = s['throughputOpsPerSec'], s['latencyMicros']['p50'] / 1000, s['latencyMicros']['p99'] / 1000
    window = [p['ops'] for p in s.get('timeline', []) if 5 <= p['second'] < 35]
    if len(window) == 30:
        ops = sum(window) / 30.0   # the seconds the CPU was read over (to a second or two)
per = f'{total * 1000 / ops:6.1f}' if ops else '     -'
groups = ' '.join(f'{k} {g.get(k, 0):5.1f}' for k in ['front', 'transport', 'replica', 'jit', 'gc', 'other'])
throttled = ' '.join(f'{thr[n]:.2f}' for n in sorted(thr))
decided = rate('volery_ring_1_decided') / 3   # every node counts the same instances
extra = f" | instances {decided:6.0f}/s frames {rate('volery_frames_sent'):7.0f}/s writes {rate('volery_socket_writes'):7.0f}/s"
if cs:
    extra += ' | sleeps/s ' + ' '.join(f'{k} {cs[k]:6.0f} ({threads[k]} thr)' for k in ['front', 'transport', 'replica', 'other'] if k in cs)
if perf:
    extra += ' | ' + ' '.join(f'{k.split(":")[-1]} {v:8.0f}/s' for k, v in sorted(perf.items()))
print(f'{tag:<12} {ops:8.0f} ops/s p50 {p50:7.1f} p99 {p99:7.1f} ms | cluster {total:6.1f} ms/s {per} us/req | {groups} ms/s | throttled {throttled}' + extra, flush=True)
