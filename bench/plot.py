#!/usr/bin/env python3
"""Turns volery-bench JSON reports into a PNG figure and Markdown tables.

    bench/plot.py RESULTS_DIR [RESULTS_DIR...] --out docs/benchmarks --name zookeeper-baseline

Reports are grouped into series by file name, <label>-c<clients>-r<run>.json (as run-sweep.sh
writes them). For each series: median throughput per client count with its min-max spread,
saturation (the best median), and the latency of the point nearest 75% of saturation, whose
CDF is drawn. Writes NAME.png (throughput vs clients, latency CDF) and NAME-tables.md.
If matplotlib is missing, the script makes bench/.venv from bench/requirements.txt and re-runs
itself there.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
VENV = HERE / ".venv"


def ensure_matplotlib():
    try:
        import matplotlib  # noqa: F401
        return
    except ImportError:
        pass
    python = VENV / "bin" / "python"
    if Path(sys.prefix).resolve() == VENV.resolve():
        sys.exit("plot.py: matplotlib is still missing in %s; check %s" % (VENV, HERE / "requirements.txt"))
    if not python.exists():
        subprocess.check_call([sys.executable, "-m", "venv", str(VENV)])
    subprocess.check_call([str(python), "-m", "pip", "install", "-q", "-r", str(HERE / "requirements.txt")])
    os.execv(str(python), [str(python), str(Path(__file__).resolve())] + sys.argv[1:])


NAME = re.compile(r"^(?P<label>.+)-c(?P<clients>\d+)-r(?P<run>\d+)\.json$")


def load(dirs):
    """{label: {clients: [(report, servers-or-None), ...]}}"""
    series = defaultdict(lambda: defaultdict(list))
    for d in dirs:
        for f in sorted(Path(d).glob("*-r*.json")):
            m = NAME.match(f.name)
            if not m:
                continue
            report = json.loads(f.read_text())
            side = f.with_name(f.name[:-len(".json")] + ".servers.json")
            servers = json.loads(side.read_text()) if side.exists() else None
            series[m["label"]][int(m["clients"])].append((report, servers))
    if not series:
        sys.exit("plot.py: no <label>-c<N>-r<R>.json reports under %s" % ", ".join(map(str, dirs)))
    return series


def server_cpu_micros_per_op(report, servers):
    """Server CPU per request, summed over the servers. The snapshots bracket the whole volery-bench
    process, so the requests are the timeline's (warm-up included) plus the set-up writes of the
    znodes and subtrees."""
    if not servers:
        return None
    cpu = sum(a["cpuSeconds"] - b["cpuSeconds"] for a, b in zip(servers["after"], servers["before"]))
    c = report["config"]
    ops = sum(p["ops"] + p["errors"] for p in report["timeline"]) + c["znodes"] + c["subtrees"]
    return cpu * 1e6 / ops if ops else None


def summarize(points):
    rows = []
    for clients in sorted(points):
        runs = points[clients]
        tput = [r["throughputOpsPerSec"] for r, _ in runs]
        lat = lambda k: statistics.median(r["latencyMicros"][k] for r, _ in runs) / 1000.0
        scpu = [x for x in (server_cpu_micros_per_op(r, s) for r, s in runs) if x is not None]
        rows.append({
            "clients": clients,
            "outstanding": clients * runs[0][0]["config"]["outstanding"],
            "runs": len(runs),
            "median": statistics.median(tput),
            "min": min(tput),
            "max": max(tput),
            "p50": lat("p50"), "p99": lat("p99"), "p999": lat("p999"),
            "errors": sum(r["errorCount"] for r, _ in runs),
            "genCores": statistics.median(r["cpu"]["averageCores"] for r, _ in runs),
            "serverCpuUsPerOp": statistics.median(scpu) if scpu else None,
            "runsData": runs,
        })
    return rows


def at_75_percent(rows):
    saturation = max(r["median"] for r in rows)
    target = 0.75 * saturation
    return saturation, min(rows, key=lambda r: abs(r["median"] - target))


def fmt(x, digits=0):
    return "–" if x is None else f"{x:,.{digits}f}"


def tables(series, config_note):
    out = [config_note, ""]
    out.append("| series | saturation ops/s (median) | point used for latency | ops/s there | p50 ms | p99 ms | p99.9 ms |")
    out.append("|---|---:|---|---:|---:|---:|---:|")
    for label, rows in series.items():
        sat, pt = at_75_percent(rows)
        out.append(f"| {label} | {fmt(sat)} | {pt['clients']} clients | {fmt(pt['median'])} | "
                   f"{fmt(pt['p50'], 2)} | {fmt(pt['p99'], 2)} | {fmt(pt['p999'], 2)} |")
    for label, rows in series.items():
        out += ["", f"### {label}", "",
                "| clients | in flight | runs | ops/s median | ops/s min–max | p50 ms | p99 ms | p99.9 ms | errors | load-gen cores | server CPU µs/op (sum of servers) |",
                "|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|"]
        for r in rows:
            out.append(f"| {r['clients']} | {r['outstanding']} | {r['runs']} | {fmt(r['median'])} | "
                       f"{fmt(r['min'])}–{fmt(r['max'])} | {fmt(r['p50'], 2)} | {fmt(r['p99'], 2)} | "
                       f"{fmt(r['p999'], 2)} | {r['errors']} | {fmt(r['genCores'], 2)} | {fmt(r['serverCpuUsPerOp'])} |")
    return "\n".join(out) + "\n"


def plot(series, png, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    for label, rows in series.items():
        xs = [r["clients"] for r in rows]
        med = [r["median"] for r in rows]
        lo = [r["median"] - r["min"] for r in rows]
        hi = [r["max"] - r["median"] for r in rows]
        left.errorbar(xs, med, yerr=[lo, hi], marker="o", capsize=3, label=label)
        _, pt = at_75_percent(rows)
        # The CDF of the run at that point whose throughput is the median of its runs.
        runs = sorted(pt["runsData"], key=lambda rs: rs[0]["throughputOpsPerSec"])
        report = runs[len(runs) // 2][0]
        cdf = report["latencyCdf"]
        right.plot([p["micros"] / 1000.0 for p in cdf], [p["percentile"] / 100.0 for p in cdf],
                   label=f"{label}, {pt['clients']} clients ({report['throughputOpsPerSec']:,.0f} ops/s)")
    left.set_xscale("log", base=2)
    all_clients = sorted({r["clients"] for rows in series.values() for r in rows})
    left.set_xticks(all_clients)
    left.set_xticklabels([str(c) for c in all_clients])
    left.set_xlabel("clients (25 requests in flight each)")
    left.set_ylabel("throughput (ops/s), median and min–max of runs")
    left.set_ylim(bottom=0)
    left.grid(True, alpha=0.3)
    left.legend(fontsize=8)
    left.set_title("throughput vs clients")
    right.set_xscale("log")
    right.set_xlabel("latency (ms)")
    right.set_ylabel("fraction of requests")
    right.set_ylim(0, 1.0)
    right.grid(True, alpha=0.3, which="both")
    right.legend(fontsize=8, loc="lower right")
    right.set_title("latency CDF near 75% of saturation")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, default=Path("docs/benchmarks"))
    ap.add_argument("--name", default="benchmark")
    ap.add_argument("--title", default="volery-bench")
    args = ap.parse_args()
    ensure_matplotlib()
    raw = load(args.dirs)
    series = {label: summarize(points) for label, points in sorted(raw.items())}
    args.out.mkdir(parents=True, exist_ok=True)
    png = args.out / f"{args.name}.png"
    plot(series, png, args.title)
    any_report = next(iter(next(iter(raw.values())).values()))[0][0]
    c = any_report["config"]
    note = (f"Runs of {c['warmupSeconds']} s warm-up + {c['durationSeconds']} s measured, "
            f"{c['outstanding']} requests in flight per client, {c['znodes']} znodes in {c['subtrees']} subtree(s). "
            f"Latency at the client count whose median throughput is nearest 75% of saturation.")
    md = args.out / f"{args.name}-tables.md"
    md.write_text(tables(series, note))
    print(f"plot.py: wrote {png} and {md}")


if __name__ == "__main__":
    main()
