import sys,glob,re,json,collections
d=sys.argv[1]
nodes=sorted(glob.glob(d+'/node-*'), key=lambda s:int(s.split('-')[-1]))
def threads(f):
    L=open(f).read().split('\n'); t=float(L[0]); m={}
    for l in L[1:]:
        if l: tid,name,c=l.split('\t'); m[tid]=(name,int(c))
    return t,m
def kv(f):
    m={}
    for l in open(f):
        p=l.split()
        if len(p)>=2:
            try: m[p[0].rstrip(':')]=float(p[1])
            except: pass
    return m
r=json.load(open(d+'.json')); ops=r['throughputOpsPerSec']
print('ops/s %.0f'%ops, {k:(v['count'],round(v['p50']/1000,1)) for k,v in r['byOperation'].items() if v['count']})
tot=collections.Counter(); totcpu=0; el=None
for nd in nodes:
    ta,a=threads(nd+'/threads-a'); tb,b=threads(nd+'/threads-b'); el=tb-ta
    for tid,(name,c) in b.items():
        base=a.get(tid,(name,0))[1]
        key=re.sub(r'[0-9]+','#',name)
        tot[key]+=(c-base)*10  # ms
    ia,ib=kv(nd+'/io-a'),kv(nd+'/io-b'); ma,mb=kv(nd+'/mntr-a'),kv(nd+'/mntr-b')
    cpu=sum((c-a.get(t,(0,0))[1])*10 for t,(n,c) in b.items())
    totcpu+=cpu
    rings={k:mb[k]-ma.get(k,0) for k in mb if re.match(r'volery_ring_\d+_decided',k)}
    print(nd.split('/')[-1], 'cpu %.0f ms/s'%(cpu/el), 'syscr %.0f/s syscw %.0f/s'%((ib['syscr']-ia['syscr'])/el,(ib['syscw']-ia['syscw'])/el),
          'exec %.0f/s'%((mb['volery_commands_executed']-ma['volery_commands_executed'])/el),
          'exch %.0f/s'%((mb['volery_exchanges_sent']-ma['volery_exchanges_sent'])/el),
          'sigwait %.0f ms/s'%((mb['volery_signal_wait_ms']-ma['volery_signal_wait_ms'])/el),
          'exec-sig %.0f exec-val %.0f ms/s'%((mb.get('volery_executor_signal_wait_ms',0)-ma.get('volery_executor_signal_wait_ms',0))/el,(mb.get('volery_executor_value_wait_ms',0)-ma.get('volery_executor_value_wait_ms',0))/el),
          ' '.join('r%s %.0f/s'%(k.split('_')[2],v/el) for k,v in sorted(rings.items())))
print('window %.1f s, cluster %.2f cores, %.0f us CPU per op'%(el, totcpu/el/1000, totcpu/el/ops*1000))
for k,v in tot.most_common(25): print('  %-30s %6.0f ms/s  %5.1f%%'%(k,v/el,100*v/totcpu))
