import re,sys,glob
for f in sorted(glob.glob('' + (sys.argv[1] if len(sys.argv) > 1 else '.') + '/*-[0-9].txt')):
    t=open(f).read().splitlines()
    ops=int(t[0].split()[5]); p50=int(t[0].split()[6])
    mid=[tuple(map(int,re.findall(r'\d+',x))) for x in t[4].split()]
    cpu=[m[0] for m in mid]; thr=[m[1] for m in mid]
    ex=re.search(r'volery_exchanges_sent \+(\d+)','\n'.join(t)); ex=int(ex.group(1)) if ex else 0
    print(f.split('/')[-1][:-4], ops, p50, 'midCPU mean %.1f max %d'%(sum(cpu)/12, max(cpu)), 'thr %d-%d%%'%(min(thr),max(thr)), 'cpu us/op (mid) %.0f'%(sum(cpu)*1000/ops), 'exchanges', ex)
