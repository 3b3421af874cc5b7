#!/usr/bin/env python3
"""CPU per request by category from async-profiler collapsed stacks (probe.sh / ceiling.sh, itimer at 2 ms,
12 s window): cpu-by-category.py DIR OPS [DIR OPS ...], each DIR holding node-*/c64.collapsed (or c.collapsed).
A stack goes to the first category that matches it, in the order listed. The microseconds assume every
sample is 2 ms of CPU; they differ from the CPU counters by up to ~1.7x either way (compare shares within a run)."""
import collections, glob, sys, re
CATS=[('JIT compiler', lambda fr,t: 'CompilerThre' in t),
      ('GC and VM threads', lambda fr,t: any(k in t for k in ('GC Thread','Conc#','G1 ','VM Thread','VM Periodic','Sweeper','Service','Monitor Defl'))),
      ('socket writes (send/writev)', lambda fr,t: any('Socket.send' in x or 'writev' in x.lower() or 'Socket.write' in x for x in fr)),
      ('socket reads', lambda fr,t: any('Socket.recv' in x or 'Socket.read' in x for x in fr)),
      ('thread wake-ups (eventfd) and epoll waits', lambda fr,t: any('eventFdWrite' in x or 'epollWait' in x for x in fr)),
      ('Kryo encode/decode', lambda fr,t: any('KryoCodec' in x for x in fr)),
      ('executing commands (state machine)', lambda fr,t: any('io/volery/server/internal/VoleryStateMachine' in x for x in fr)),
      ('exchanges/continuations (Eyrie runtime)', lambda fr,t: any(k in x for x in fr for k in ('ExchangeInbox','runReadyContinuations','onDirect','continueOldest'))),
      ('multicast protocol', lambda fr,t: any('io/eyrie/multicast' in x for x in fr)),
      ('front end (ZooKeeper protocol)', lambda fr,t: any('io/volery/server/frontend' in x or 'VoleryService' in x or 'SessionOrder' in x for x in fr)),
      ('Eyrie runtime, other', lambda fr,t: any('io/eyrie' in x for x in fr)),
      ('admin (mntr of the probe)', lambda fr,t: 'volery-admin' in t),
      ('other', lambda fr,t: True)]
def load(d):
    c=collections.Counter(); tot=0
    for f in glob.glob(d+'/node-*/c64.collapsed')+glob.glob(d+'/node-*/c.collapsed')+glob.glob(d+'/*/node-*/c.collapsed'):
        for line in open(f):
            st,_,n=line.rstrip().rpartition(' '); n=int(n); fr=st.split(';'); t=fr[0]
            tot+=n
            for name,p in CATS:
                if p(fr,t): c[name]+=n; break
    return c,tot
runs=[(sys.argv[i],float(sys.argv[i+1])) for i in range(1,len(sys.argv),2)]
data=[load(d) for d,_ in runs]
print('CPU per request, microseconds (2 ms samples over the 12 s window, all 12 nodes): ' + ' | '.join(f'{d} ({o:.0f} ops/s)' for d,o in runs))
for name,_ in CATS:
    print(f"  {name:44s}" + ''.join(f"{2000*c[name]/o/12:9.0f}" for (c,t),(d,o) in zip(data,runs)))
print(f"  {'total':44s}" + ''.join(f"{2000*t/o/12:9.0f}" for (c,t),(d,o) in zip(data,runs)))
