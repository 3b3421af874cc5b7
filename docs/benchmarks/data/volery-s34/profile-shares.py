#!/usr/bin/env python3
"""Shares of async-profiler collapsed stacks by part of the node: profile-shares.py FILE.collapsed[.gz] ..."""
import collections, gzip, sys

for f in sys.argv[1:]:
    opener = gzip.open if f.endswith(".gz") else open
    tot, cat = 0, collections.Counter()
    with opener(f, "rt") as lines:
        for line in lines:
            st, _, n = line.rstrip().rpartition(" ")
            n = int(n)
            tot += n
            if "CompileBroker" in st or "C2Compiler" in st or "Compile::" in st:
                cat["C2/compiler"] += n
                continue
            if "G1" in st:
                cat["GC"] += n
                continue
            key = "other"
            for fr in st.split(";"):
                if "ReplicaRuntime" in fr:
                    key = "replica executor"; break
                if "MulticastNode" in fr or "NodeProtocol" in fr:
                    key = "multicast protocol"; break
                if "ZkConnectionHandler" in fr or "ZkFrontEnd" in fr or "frontend" in fr:
                    key = "front end"; break
                if "PeerLink" in fr or "FrameEncoder" in fr or "InboundDispatcher" in fr:
                    key = "transport"; break
                if "EpollEventLoop" in fr:
                    key = "epoll other"
            cat[key] += n
    print(f, "samples", tot, " ".join("%s %.1f%%" % (k, 100 * v / tot) for k, v in cat.most_common()))
