#!/usr/bin/env python3
"""Per node: samples by thread (digits folded) and the top self frames, from probe.sh's collapsed stacks.
   threads.py DIR [c64] [TOP]"""
import collections, glob, os, re, sys

d = sys.argv[1]
tag = sys.argv[2] if len(sys.argv) > 2 else "c64"
top = int(sys.argv[3]) if len(sys.argv) > 3 else 8
for f in sorted(glob.glob(os.path.join(d, "node-*", tag + ".collapsed")), key=lambda p: int(p.split("node-")[1].split("/")[0])):
    by_thread, by_frame, total = collections.Counter(), collections.Counter(), 0
    for line in open(f):
        stack, _, n = line.rstrip().rpartition(" ")
        n = int(n)
        frames = stack.split(";")
        thread = re.sub(r"\d+", "N", frames[0].strip("[]"))
        by_thread[thread] += n
        by_frame[frames[-1]] += n
        total += n
    node = f.split("node-")[1].split("/")[0]
    print(f"node {node}: {total} samples")
    for t, n in by_thread.most_common(top):
        print(f"   {100 * n / total:5.1f}%  {t}")
    print("   self:")
    for t, n in by_frame.most_common(top):
        print(f"   {100 * n / total:5.1f}%  {t[:110]}")
