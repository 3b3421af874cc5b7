import sys, json, glob
D = sys.argv[1]
t0, t1 = map(int, open(D + '.window').read().split())
names = {1: 'heartbeat', 2: 'propose', 3: 'ordered', 4: 'phase1a', 5: 'phase1b', 6: 'accept', 7: 'decision', 8: 'nack',
         9: 'fetch', 10: 'learned', 11: 'skip-request', 12: 'checkpointed', 14: 'proposes'}
wire = {1: 'exchange', 2: 'ask', 3: 'reply', 4: 'gone', 5: 'image-req', 6: 'image-offer', 7: 'chunk-req', 8: 'chunk', 9: 'progress'}
def label(k):
    if k >= 1300 and k < 1400:
        return 'direct:' + wire.get(k - 1300, str(k - 1300))
    tag, sub = divmod(k, 100)
    n = names.get(tag, str(tag))
    return n + ('' if sub == 99 else (' ALL' if sub == 0 else ' part'))
def at(lines, t):
    best = None
    for l in lines:
        f = l.split()
        if int(f[0]) <= t:
            best = f
    return {int(kv.split('=')[0]): int(kv.split('=')[1]) for kv in (best or ['0'])[1:]}
tot = {}
for f in sorted(glob.glob(D + '/node-*/frames.txt')):
    lines = open(f).read().splitlines()
    a, b = at(lines, t0), at(lines, t1)
    for k, v in b.items():
        tot[k] = tot.get(k, 0) + v - a.get(k, 0)
rep = json.load(open(D + '.json'))
window = [t['ops'] for t in rep['timeline'] if 16 <= t['second'] <= 35]
ops = sum(window) * (t1 - t0) / 1000.0 / len(window)
by = rep['byOperation']
share = (by.get('create', {}).get('count', 0) + by.get('delete', {}).get('count', 0)) / max(1, rep['operations'])
cpu0 = sum(int(x) for x in open(D + '.cpu0')); cpu1 = sum(int(x) for x in open(D + '.cpu1'))
cpu_ms = (cpu1 - cpu0) * 10
print(f"{D}: {rep['throughputOpsPerSec']:.0f} ops/s; window {ops:.0f} requests, global share {share:.3f}; cluster CPU {cpu_ms*1000/ops:.0f} us/request")
allf = sum(tot.values())
print(f"frames per request {allf/ops:.2f}")
for k in sorted(tot, key=lambda k: -tot[k]):
    print(f"  {label(k):22s} {tot[k]/ops:8.3f} / request")
