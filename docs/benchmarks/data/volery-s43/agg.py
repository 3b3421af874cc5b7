import sys,collections
thr=sys.argv[1]; files=sys.argv[2:]
tot=0; leaf=collections.Counter(); incl=collections.Counter()
for f in files:
    for line in open(f):
        st,_,n=line.rstrip().rpartition(' ')
        fr=st.split(';')
        if not fr[0].startswith('['+thr) and thr not in fr[0]: continue
        n=int(n); tot+=n; leaf[fr[-1]]+=n
        for x in set(fr[1:]): incl[x]+=n
print('total',tot)
print('--leaf'); [print(v,k) for k,v in leaf.most_common(15)]
print('--incl'); [print(v,k) for k,v in incl.most_common(45)]
