#!/usr/bin/env python3
"""Where a JVM's CPU time goes, from a JFR recording's execution samples.

    bench/flame.py NODE.jfr --out DIR [--name NAME] [--thread REGEX] [--top 25]
    bench/flame.py NODE.collapsed --out DIR      (async-profiler's collapsed output)

Writes NAME.folded (collapsed stacks, one "frame;frame;... count" a line: the input of any flame-graph
tool), NAME.png (an icicle flame graph drawn with matplotlib: the root at the top, each frame as wide as
its share of the samples) and NAME.md (the hottest methods by self and by total samples, and the
threads). Uses the JDK's `jfr print --json`. matplotlib comes from bench/.venv as in plot.py.
"""
import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def frames_of(event):
    st = event["values"].get("stackTrace")
    if not st:
        return None
    out = []
    for f in reversed(st["frames"]):  # root first
        m = f["method"]
        cls = m["type"]["name"].replace("/", ".")
        out.append(f"{cls.rsplit('.', 1)[-1]}.{m['name']}")
    return out


def thread_of(event):
    t = event["values"].get("sampledThread") or {}
    name = t.get("javaName") or t.get("osName") or "?"
    return re.sub(r"\d+", "N", name)


def load_collapsed(path):
    """async-profiler's collapsed output ("frame;frame;... count", root first, no thread name: the
    first frame stands for the thread)."""
    stacks, threads = Counter(), Counter()
    for line in path.read_text().splitlines():
        st, _, n = line.rpartition(" ")
        if not st:
            continue
        fr = st.split(";")
        stacks[tuple(fr)] += int(n)
        threads[fr[0]] += int(n)
    return stacks, threads


def load(jfr, thread_filter):
    if jfr.suffix in (".collapsed", ".folded", ".txt"):
        return load_collapsed(jfr)
    raw = subprocess.run(["jfr", "print", "--json", "--stack-depth", "64", "--events", "jdk.ExecutionSample", str(jfr)],
                         check=True, capture_output=True, text=True).stdout
    events = json.loads(raw)["recording"]["events"]
    stacks, threads = Counter(), Counter()
    for e in events:
        t = thread_of(e)
        if thread_filter and not re.search(thread_filter, t):
            continue
        fr = frames_of(e)
        if fr:
            stacks[tuple([t] + fr)] += 1
            threads[t] += 1
    return stacks, threads


def icicle(stacks, png, title, min_share=0.004):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    total = sum(stacks.values())
    tree = {}
    for stack, n in stacks.items():
        node = tree
        for f in stack:
            child = node.setdefault(f, {"n": 0, "kids": {}})
            child["n"] += n
            node = child["kids"]
    depth_max = max(len(s) for s in stacks)
    fig, ax = plt.subplots(figsize=(16, max(4, 0.22 * min(depth_max, 60) + 1)))
    cmap = plt.get_cmap("YlOrRd")

    def draw(node, x0, depth):
        x = x0
        for name, c in sorted(node.items(), key=lambda kv: -kv[1]["n"]):
            w = c["n"] / total
            if w >= min_share and depth < 60:
                ax.add_patch(plt.Rectangle((x, -depth - 1), w, 0.95, facecolor=cmap(0.25 + 0.6 * ((hash(name) % 97) / 97)),
                                           edgecolor="white", linewidth=0.3))
                if w > 0.03:
                    ax.text(x + 0.002, -depth - 0.55, name[: int(w * 160)], fontsize=6, va="center", usetex=False, parse_math=False)
                draw(c["kids"], x, depth + 1)
            x += w

    draw(tree, 0.0, 0)
    ax.set_xlim(0, 1)
    ax.set_ylim(-min(depth_max, 60) - 1, 0)
    ax.set_yticks([])
    ax.set_xlabel(f"share of {total} CPU samples (frames under {min_share:.1%} hidden)")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("jfr", type=Path, help="a JFR recording, or async-profiler collapsed stacks (.collapsed, .folded, .txt)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--name", default=None)
    ap.add_argument("--thread", default=None, help="only threads whose name matches this regex")
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    import compare
    compare.ensure_matplotlib(__file__)
    name = args.name or args.jfr.stem
    stacks, threads = load(args.jfr, args.thread)
    if not stacks:
        sys.exit(f"flame.py: no execution samples in {args.jfr}")
    args.out.mkdir(parents=True, exist_ok=True)
    total = sum(stacks.values())
    (args.out / f"{name}.folded").write_text("".join(f"{';'.join(s)} {n}\n" for s, n in stacks.most_common()))
    icicle(stacks, args.out / f"{name}.png", f"{args.jfr.name}: CPU samples by stack (thread at the top)")
    self_c, total_c = Counter(), Counter()
    for s, n in stacks.items():
        self_c[s[-1]] += n
        for f in set(s[1:]):
            total_c[f] += n
    md = [f"{total} execution samples from {args.jfr.name}", "", "| thread | samples | share |", "|---|---:|---:|"]
    md += [f"| {t} | {n} | {n / total:.1%} |" for t, n in threads.most_common(args.top)]
    md += ["", "| hottest methods (self) | samples | share |", "|---|---:|---:|"]
    md += [f"| `{f}` | {n} | {n / total:.1%} |" for f, n in self_c.most_common(args.top)]
    md += ["", "| hottest methods (total: on the stack) | samples | share |", "|---|---:|---:|"]
    md += [f"| `{f}` | {n} | {n / total:.1%} |" for f, n in total_c.most_common(args.top)]
    (args.out / f"{name}.md").write_text("\n".join(md) + "\n")
    print(f"flame.py: wrote {args.out / name}.folded, .png and .md ({total} samples)")


if __name__ == "__main__":
    main()
