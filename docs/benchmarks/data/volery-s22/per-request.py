#!/usr/bin/env python3
"""Session 22: per-request figures of counts.sh runs.  per-request.py DIR...  (DIR.json, DIR.m0, DIR.m1)

Counters are summed over the nodes between the two mntr reads (seconds 15 and 35 of the 45 s run); the
requests in that window are the bench timeline's seconds 16-35, the global ones the create/delete share of
the whole run (for a run without any: per request). Columns: throughput (whole run, window), then per global
request in the window, then the nodes' CPU per request."""
import json, sys

KEYS = [("exchanges", "volery_exchanges_sent"), ("asks", "volery_asks_sent"), ("asks answered", "volery_asks_answered"),
        ("redundant", "volery_exchanges_redundant"), ("frames", "volery_frames_sent"),
        ("socket writes", "volery_socket_writes"), ("fetches", "volery_fetches_sent"),
        ("server CPU ms", "process_cpu_ms")]
print("| run | ops/s (45 s) | ops/s (window) | global share | " + " | ".join(k + " / global" for k, _ in KEYS)
      + " | server CPU us / request |")
print("|---|---:|---:|---:|" + "---:|" * (len(KEYS) + 1))
for d in sys.argv[1:]:
    rep = json.load(open(d + ".json"))
    m0 = [json.loads(l) for l in open(d + ".m0")]
    m1 = [json.loads(l) for l in open(d + ".m1")]
    tot = {}
    for a, b in zip(m0, m1):
        for k, v in b.items():
            if k in a:
                tot[k] = tot.get(k, 0) + v - a[k]
    window = [t["ops"] for t in rep["timeline"] if 16 <= t["second"] <= 35]
    ops = sum(window)
    by = rep["byOperation"]
    share = (by["create"]["count"] + by["delete"]["count"]) / max(1, rep["operations"])
    g = max(1.0, ops * share if share > 0 else ops)  # a run without global requests: per request
    cells = " | ".join(f"{tot.get(key, 0) / g:.1f}" if key in tot else "–" for _, key in KEYS)
    cpu = f"{tot['process_cpu_ms'] * 1000 / ops:.0f}" if "process_cpu_ms" in tot else "–"
    print(f"| {d.rsplit('/', 1)[-1]} | {rep['throughputOpsPerSec']:.0f} | {ops / len(window):.0f} | {share:.3f} | {cells} | {cpu} |")
