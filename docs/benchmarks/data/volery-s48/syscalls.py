#!/usr/bin/env python3
"""Samples per 1000 requests in system-call entry frames of the I/O and replica threads, closed-loop against
paced: syscalls.py [PACED_NAME PACED_OPS] (default apaced 5746; closed is 7673 ops/s), reading profiles/*.gz."""
import collections, gzip, os, re, sys
HERE = os.path.dirname(os.path.abspath(__file__))
SYS = re.compile(r'^(__)?(GI_|libc_)?_*(epoll_wait|epoll_pwait2?|write|writev|read|readv|recv|recvfrom|send|sendmsg|'
                 r'futex\w*|eventfd\w*|fdatasync|fsync|pwrite64|clock_gettime|sched_yield|poll)(@@.*)?$')
def agg(name, ops):
    c = collections.Counter()
    for node in (1, 2, 3):
        with gzip.open(f'{HERE}/profiles/{name}-node-{node}.collapsed.gz', 'rt') as f:
            for line in f:
                stack, _, n = line.rstrip().rpartition(' ')
                fr = stack.split(';')
                th = re.sub(r'[-_ ]?\d+', '#', fr[0].strip('[]')).split(' tid')[0]
                if not th.startswith(('epoll', 'eyrie-transport', 'eyrie-replica')):
                    continue
                for x in fr:
                    g = re.sub(r'_\[.\]$', '', x)
                    if SYS.match(g):
                        c[(th, g)] += int(n) * 1000 / ops
                        break
    return c
paced, ops = (sys.argv[1], float(sys.argv[2])) if len(sys.argv) > 2 else ('apaced', 5746)
a, b = agg('closed', 7673), agg(paced, ops)
print('closed  paced   thread / system call (itimer samples per 1000 requests)')
for k in sorted(set(a) | set(b), key=lambda k: -(b[k] - a[k]))[:20]:
    print(f'{a[k]:6.2f} {b[k]:6.2f}  {k[0]} {k[1]}')
