import collections,sys,re
# usage: prof2.py THREAD_SUBSTR files...  -> self (leaf) and inclusive by method for matching threads
sub=sys.argv[1]; files=sys.argv[2:]
incl=collections.Counter(); leaf=collections.Counter(); total=0; thr=collections.Counter()
for fn in files:
  for line in open(fn):
    stack,n=line.rsplit(' ',1); n=int(n)
    frames=stack.split(';')
    thr[re.sub(r' tid=\d+','',frames[0])]+=n
    if sub not in frames[0]: continue
    total+=n
    leaf[frames[-1]]+=n
    for f in set(frames[1:]):
        incl[f]+=n
print('threads:', [(t,n) for t,n in thr.most_common(8)])
print('samples', total)
print('-- inclusive')
for f,n in incl.most_common(60):
    if 'io/eyrie' in f or 'io/volery' in f: print(n,f)
print('-- leaf')
for f,n in leaf.most_common(25): print(n,f)
