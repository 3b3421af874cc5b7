#!/usr/bin/env python3
"""Profile samples per request by thread (session 23): threads-by-request.py CLOSED_DIR PACED_DIR CLOSED_OPS PACED_OPS.
Each DIR holds node-N/c.collapsed (paced-profile.sh) or node-N.collapsed.gz (as stored here): async-profiler
collapsed stacks with the thread as first frame, itimer at 1 ms over a 20 s window. Prints, per thread
kind (numbers in thread names folded), samples per 1000 requests, i.e. sampled microseconds per request
(itimer under a CPU cap undercounts; compare the two columns, not with the CPU counters)."""
import collections, glob, gzip, re, sys

def lines(d):
    for f in glob.glob(d + '/node-*/c.collapsed'):
        yield from open(f)
    for f in glob.glob(d + '/node-*.collapsed.gz'):
        yield from gzip.open(f, 'rt')

def load(d):
    th = collections.Counter()
    for line in lines(d):
        st, _, n = line.rstrip().rpartition(' ')
        th[re.sub(r'[-#]?\d+(-\d+)*', 'N', st.split(';')[0])] += int(n)
    return th

a, b = load(sys.argv[1]), load(sys.argv[2])
oa, ob = float(sys.argv[3]), float(sys.argv[4])
per = lambda c, o: c / o / 20 * 1000
print(f"{'thread':50s} {'closed':>8s} {'paced':>8s}   (samples per 1000 requests)")
print(f"{'all':50s} {per(sum(a.values()), oa):8.1f} {per(sum(b.values()), ob):8.1f}")
for t, _ in (a + b).most_common(8):
    print(f"{t:50s} {per(a[t], oa):8.1f} {per(b[t], ob):8.1f}")
