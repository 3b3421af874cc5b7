#!/usr/bin/env python3
"""Figures and tables of the Volery-vs-ZooKeeper comparison from the reports bench/volery-vs-zk.sh wrote.

    bench/compare.py RESULTS_DIR --out DIR [--cpu-percent 15] [--mode full]

RESULTS_DIR holds STORAGE/SYSTEM/<label>-c<clients>-r<run>.json (STORAGE durable or memory, SYSTEM
zk, v1, v2 or v4) and kill/<system>.json with kill/<system>.fault. Writes into --out:

  throughput-by-partitions.png  saturation throughput of setData (100/1000/10000 B) normalised to
                                Volery with one partition (ZKsmr), ZooKeeper beside it (paper Figs 2, 4)
  latency-cdf.png               latency CDFs of setData 100 B at the point nearest 75% of saturation (Figs 3, 5)
  global-commands.png           throughput vs the share of create/delete (global) commands (Fig 6)
  kill-timeline.png             throughput per second across a leader kill
  throughput-vs-clients.png     the setData 100 B client sweep with the runs' spread
  tables.md                     every point, the goals' ratios and the spread over runs

Saturation = the best median over the client counts measured; latency is read at the count whose
median is nearest 75% of it. Needs matplotlib: made in bench/.venv on first use, as plot.py does.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
VENV = HERE / ".venv"
sys.path.insert(0, str(HERE))
import plot  # noqa: E402  (the report loading and per-series summaries of plot.py)

SYSTEMS = ["zk", "v1", "v2", "v4"]
NAMES = {"zk": "ZooKeeper 3.9.5 (3 servers)", "v1": "Volery 1 partition (ZKsmr)",
         "v2": "Volery 2 partitions", "v4": "Volery 4 partitions"}
SHORT = {"zk": "ZooKeeper", "v1": "Volery 1p", "v2": "Volery 2p", "v4": "Volery 4p"}
COLORS = {"zk": "tab:gray", "v1": "tab:blue", "v2": "tab:orange", "v4": "tab:green"}


def ensure_matplotlib(script=None):
    """Re-runs `script` (default: this file) under bench/.venv with matplotlib when it is missing."""
    try:
        import matplotlib  # noqa: F401
        return
    except ImportError:
        pass
    python = VENV / "bin" / "python"
    if Path(sys.prefix).resolve() == VENV.resolve():
        sys.exit("compare.py: matplotlib is still missing in %s" % VENV)
    if not python.exists():
        subprocess.check_call([sys.executable, "-m", "venv", str(VENV)])
    subprocess.check_call([str(python), "-m", "pip", "install", "-q", "-r", str(HERE / "requirements.txt")])
    os.execv(str(python), [str(python), str(Path(script or __file__).resolve())] + sys.argv[1:])


def load_all(root):
    """{storage: {system: {label: rows}}} with plot.summarize's rows."""
    data = {}
    for storage in ("durable", "memory"):
        for system in SYSTEMS:
            d = root / storage / system
            if not d.is_dir() or not any(d.glob("*-r*.json")):
                continue
            series = plot.load([d])
            data.setdefault(storage, {})[system] = {label: plot.summarize(points) for label, points in series.items()}
    if not data:
        sys.exit("compare.py: no reports under %s/{durable,memory}/{%s}" % (root, ",".join(SYSTEMS)))
    return data


def saturation(rows):
    return max(r["median"] for r in rows) if rows else None


def best_row(rows):
    return max(rows, key=lambda r: r["median"])


def get(data, storage, system, label):
    return data.get(storage, {}).get(system, {}).get(label)


# volery-vs-zk.sh runs setData 100 B once more paced at 75 % of the sweep's saturation (volery-bench --rate):
# that series is LABEL + PACED, and where it exists it gives the latency at 75 % load.
PACED = "-at75"


def latency_point(data, storage, system, label):
    """(row, how) for the latency at 75 % of saturation: the paced series if it was run, else the
    closed-loop point whose throughput is nearest 75 % of the best median."""
    paced = get(data, storage, system, label + PACED)
    if paced:
        return paced[0], f"paced at {paced[0]['runsData'][0][0]['config'].get('rate', 0):,.0f}/s"
    rows = get(data, storage, system, label)
    if not rows:
        return None, None
    pt = plot.at_75_percent(rows)[1]
    return pt, f"{pt['clients']} clients"


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def setdata_labels(data):
    labels = set()
    for systems in data.values():
        for series in systems.values():
            labels |= {l for l in series if l.startswith("setdata-") and not l.endswith(PACED)}
    return sorted(labels, key=lambda l: int(l.split("-")[1].rstrip("B")))


def fig_throughput_by_partitions(data, png):
    import matplotlib.pyplot as plt
    storages = [s for s in ("durable", "memory") if s in data]
    labels = setdata_labels(data)
    fig, axes = plt.subplots(1, len(storages), figsize=(6.5 * len(storages), 4.6), squeeze=False)
    for ax, storage in zip(axes[0], storages):
        width = 0.2
        for k, system in enumerate(SYSTEMS):
            xs, ys, tops = [], [], []
            for i, label in enumerate(labels):
                base = saturation(get(data, storage, "v1", label) or [])
                rows = get(data, storage, system, label)
                if not rows or not base:
                    continue
                best = best_row(rows)
                xs.append(i + (k - 1.5) * width)
                ys.append(best["median"] / base)
                tops.append((best["median"], best["min"] / base, best["max"] / base))
            if not xs:
                continue
            bars = ax.bar(xs, ys, width, label=NAMES[system], color=COLORS[system],
                          yerr=[[y - t[1] for y, t in zip(ys, tops)], [t[2] - y for y, t in zip(ys, tops)]], capsize=2)
            for b, t in zip(bars, tops):
                ax.annotate(f"{t[0]:,.0f}", (b.get_x() + b.get_width() / 2, b.get_height()), fontsize=6,
                            ha="center", va="bottom", rotation=90, xytext=(0, 3), textcoords="offset points")
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels([f"setData {l.split('-')[1]}" for l in labels])
        ax.axhline(1.0, color="black", linewidth=0.6)
        ax.set_ylabel("throughput / Volery 1 partition (same size)")
        ax.set_title(f"{storage}: saturation throughput normalised to one partition\n(numbers: ops/s, median of runs; bars: min-max)", fontsize=9)
        ax.grid(True, axis="y", alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


def cdf_of(data, storage, system, label):
    """(report of the median run at the latency point, how that point was made)"""
    pt, how = latency_point(data, storage, system, label)
    runs = sorted(pt["runsData"], key=lambda rs: rs[0]["throughputOpsPerSec"])
    return runs[len(runs) // 2][0], how


def fig_latency_cdf(data, png):
    import matplotlib.pyplot as plt
    storages = [s for s in ("durable", "memory") if s in data]
    fig, axes = plt.subplots(1, len(storages), figsize=(6.5 * len(storages), 4.6), squeeze=False)
    for ax, storage in zip(axes[0], storages):
        for system in SYSTEMS:
            rows = get(data, storage, system, "setdata-100B")
            if not rows:
                continue
            report, how = cdf_of(data, storage, system, "setdata-100B")
            cdf = report["latencyCdf"]
            ax.plot([p["micros"] / 1000.0 for p in cdf], [p["percentile"] / 100.0 for p in cdf], color=COLORS[system],
                    label=f"{SHORT[system]}: {how}, {report['throughputOpsPerSec']:,.0f} ops/s")
        ax.set_xscale("log")
        ax.set_xlabel("latency (ms)")
        ax.set_ylabel("fraction of requests")
        ax.set_ylim(0, 1)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
        ax.set_title(f"{storage}: setData 100 B latency CDF near 75% of saturation", fontsize=9)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


def global_points(data, system, storage="durable"):
    """[(percent, best median, min, max)] for create/delete mixes; 0% is setData 100 B at the
    largest client count measured for the mixes."""
    series = data.get(storage, {}).get(system, {})
    pts = []
    mixes = {int(l.split("-")[1].rstrip("pct")): rows for l, rows in series.items() if l.startswith("createdelete-")}
    if not mixes:
        return pts
    clients = max(r["clients"] for rows in mixes.values() for r in rows)
    base = [r for r in series.get("setdata-100B", []) if r["clients"] == clients]
    if base:
        pts.append((0, base[0]["median"], base[0]["min"], base[0]["max"]))
    for pct in sorted(mixes):
        r = best_row(mixes[pct])
        pts.append((pct, r["median"], r["min"], r["max"]))
    return pts


def fig_global(data, png):
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.5, 4.6))
    base = dict((p, m) for p, m, _, _ in global_points(data, "v1")).get(0)
    for system in SYSTEMS:
        pts = global_points(data, system)
        if not pts or not base:
            continue
        xs = [p[0] for p in pts]
        ys = [p[1] / base for p in pts]
        err = [[(p[1] - p[2]) / base for p in pts], [(p[3] - p[1]) / base for p in pts]]
        ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, color=COLORS[system], label=NAMES[system])
    ax.set_xlabel("create/delete (global) commands, % of requests; the rest setData 100 B")
    ax.set_ylabel("throughput / Volery 1 partition at 0%")
    ax.set_title("durable: throughput with global commands (paper Fig. 6)", fontsize=9)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


def kill_runs(root):
    out = []
    for system in SYSTEMS:
        f = root / "kill" / f"{system}.json"
        if not f.exists():
            continue
        report = json.loads(f.read_text())
        fault = root / "kill" / f"{system}.fault"
        at = None
        node = None
        if fault.exists():
            info = json.loads(fault.read_text())
            started = report["startedAt"]
            # startedAt is an ISO instant; the timeline's second 0 starts there
            from datetime import datetime
            t0 = datetime.fromisoformat(started.replace("Z", "+00:00")).timestamp() * 1000
            at = (info["killedAtEpochMillis"] - t0) / 1000.0
            node = info["node"]
        out.append((system, report, at, node))
    return out


def fig_kill(root, png):
    import matplotlib.pyplot as plt
    runs = kill_runs(root)
    if not runs:
        return False
    fig, ax = plt.subplots(figsize=(9, 4.2))
    for system, report, at, node in runs:
        tl = report["timeline"]
        # point "second" n covers (n-1, n]: drawn at its middle
        ax.plot([p["second"] - 0.5 for p in tl], [p["ops"] for p in tl], marker=".", color=COLORS[system],
                label=f"{NAMES[system]}" + (f", {node} (leader) killed at {at:.1f} s" if at is not None else ""))
        if at is not None:
            ax.axvline(at, color=COLORS[system], linestyle="--", linewidth=1)
        warm = [p["second"] for p in tl if not p["measured"]]
        if warm:
            ax.axvspan(0, max(warm), color="black", alpha=0.04)
    ax.set_xlabel("seconds since the clients started (shaded: warm-up)")
    ax.set_ylabel("completed requests per second")
    ax.set_title("durable, setData 100 B: throughput across a leader kill (SIGKILL)", fontsize=9)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)
    return True


def fig_sweep(data, png):
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.5, 4.6))
    for storage, style in (("durable", "-"), ("memory", ":")):
        for system in SYSTEMS:
            rows = get(data, storage, system, "setdata-100B")
            if not rows:
                continue
            xs = [r["clients"] for r in rows]
            ax.errorbar(xs, [r["median"] for r in rows], yerr=[[r["median"] - r["min"] for r in rows],
                        [r["max"] - r["median"] for r in rows]], marker="o", linestyle=style, capsize=3,
                        color=COLORS[system], label=f"{SHORT[system]}, {storage}")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("clients (25 requests in flight each)")
    ax.set_ylabel("setData 100 B ops/s (median, min-max)")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


def goals(data):
    lines = ["| goal | measured | met |", "|---|---|---|"]

    def sat(storage, system, label):
        rows = get(data, storage, system, label)
        return saturation(rows) if rows else None

    def row(goal, value, target, fmt="{:.2f}x"):
        if value is None:
            lines.append(f"| {goal} | not measured | – |")
        else:
            lines.append(f"| {goal} | {fmt.format(value)} | {'yes' if value >= target else 'no, short by ' + fmt.format(target - value)} |")

    for size in ("100B", "1000B"):
        row(f"durable setData {size}: Volery 1 partition ≥ 1.5x ZooKeeper",
            ratio(sat("durable", "v1", f"setdata-{size}"), sat("durable", "zk", f"setdata-{size}")), 1.5)
    for storage in ("durable", "memory"):
        row(f"{storage} setData 100B: 2 partitions ≥ 1.8x one",
            ratio(sat(storage, "v2", "setdata-100B"), sat(storage, "v1", "setdata-100B")), 1.8)
        row(f"{storage} setData 100B: 4 partitions ≥ 3.6x one",
            ratio(sat(storage, "v4", "setdata-100B"), sat(storage, "v1", "setdata-100B")), 3.6)
    for storage in ("durable", "memory"):
        g = dict((p, m) for p, m, _, _ in global_points(data, "v4", storage))
        b = dict((p, m) for p, m, _, _ in global_points(data, "v1", storage))
        if g or storage == "durable":
            row(f"{storage}, 10% global: 4 partitions ≥ 2.5x one partition at 0%", ratio(g.get(10), b.get(0)), 2.5)
        if g.get(10) and b.get(10):
            row(f"{storage}, 10% global: 4 partitions ≥ 2.5x one partition with the same mix", ratio(g.get(10), b.get(10)), 2.5)
    for storage in ("durable",):
        zk = get(data, storage, "zk", "setdata-100B")
        for system in ("v1", "v2", "v4"):
            v = get(data, storage, system, "setdata-100B")
            if zk and v:
                (zp, zhow), (vp, vhow) = (latency_point(data, storage, "zk", "setdata-100B"),
                                          latency_point(data, storage, system, "setdata-100B"))
                # higher is better for the table's "met" column: ZooKeeper's p99 over Volery's
                row(f"{storage} setData 100B: {SHORT[system]} p99 at ~75% load no worse than ZooKeeper's "
                    f"({vp['p99']:.1f} ms {vhow} vs {zp['p99']:.1f} ms {zhow})",
                    ratio(zp["p99"], vp["p99"]), 1.0, fmt="{:.2f} (ZK p99 / Volery p99)")
    return lines


def tables(data, root, note):
    out = [note, "", "## Goals (ratios of saturation medians from this run)", ""] + goals(data)
    out += ["", "## Every series", "",
            "Saturation: best median over the client counts; latency at 75% of it: from the paced run (series "
            f"`…{PACED}`, volery-bench --rate) where there is one, else at the client count nearest 75%.", "",
            "| storage | system | series | saturation ops/s (median) | runs min–max there | at clients | p50 ms | p99 ms | p99.9 ms | errors | server CPU µs/op |",
            "|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|"]
    for storage, systems in data.items():
        for system in SYSTEMS:
            for label, rows in sorted(systems.get(system, {}).items()):
                best = best_row(rows)
                pt = rows[0] if label.endswith(PACED) else latency_point(data, storage, system, label)[0]
                out.append(f"| {storage} | {SHORT[system]} | {label} | {plot.fmt(best['median'])} | "
                           f"{plot.fmt(best['min'])}–{plot.fmt(best['max'])} | {best['clients']} | {plot.fmt(pt['p50'], 2)} | "
                           f"{plot.fmt(pt['p99'], 2)} | {plot.fmt(pt['p999'], 2)} | {sum(r['errors'] for r in rows)} | "
                           f"{plot.fmt(best['serverCpuUsPerOp'])} |")
    out += ["", "## Every point", "",
            "| storage | system | series | clients | runs | ops/s median | min–max | p50 ms | p99 ms | p99.9 ms | errors | load-gen cores | server CPU µs/op |",
            "|---|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|"]
    for storage, systems in data.items():
        for system in SYSTEMS:
            for label, rows in sorted(systems.get(system, {}).items()):
                for r in rows:
                    out.append(f"| {storage} | {SHORT[system]} | {label} | {r['clients']} | {r['runs']} | {plot.fmt(r['median'])} | "
                               f"{plot.fmt(r['min'])}–{plot.fmt(r['max'])} | {plot.fmt(r['p50'], 2)} | {plot.fmt(r['p99'], 2)} | "
                               f"{plot.fmt(r['p999'], 2)} | {r['errors']} | {plot.fmt(r['genCores'], 2)} | {plot.fmt(r['serverCpuUsPerOp'])} |")
    kills = kill_runs(root)
    if kills:
        out += ["", "## Leader kill", "",
                "| system | killed | at s | ops/s before (median of measured seconds before) | lowest second after | seconds below half of before | errors |",
                "|---|---|---:|---:|---:|---:|---:|"]
        for system, report, at, node in kills:
            tl = [p for p in report["timeline"] if p["measured"]]
            # point "second" n covers (n-1, n]
            before = [p["ops"] for p in tl if at is not None and p["second"] <= at]
            after = [p["ops"] for p in tl if at is not None and p["second"] > at]
            med = statistics.median(before) if before else None
            low = min(after) if after else None
            gap = sum(1 for x in after if med and x < med / 2)
            out.append(f"| {SHORT[system]} | {node or '–'} | {plot.fmt(at, 1)} | {plot.fmt(med)} | {plot.fmt(low)} | {gap} | "
                       f"{report['errorCount']} ({', '.join(f'{k} {v}' for k, v in report['errors'].items()) or 'none'}) |")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--cpu-percent", type=int, default=0)
    ap.add_argument("--mode", default="")
    args = ap.parse_args()
    ensure_matplotlib()
    import matplotlib
    matplotlib.use("Agg")
    data = load_all(args.results)
    args.out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, fn in (("throughput-by-partitions.png", fig_throughput_by_partitions), ("latency-cdf.png", fig_latency_cdf),
                     ("throughput-vs-clients.png", fig_sweep)):
        fn(data, args.out / name)
        written.append(name)
    if any(global_points(data, s) for s in SYSTEMS):
        fig_global(data, args.out / "global-commands.png")
        written.append("global-commands.png")
    if fig_kill(args.results, args.out / "kill-timeline.png"):
        written.append("kill-timeline.png")
    any_report = next(iter(next(iter(next(iter(data.values())).values())).values()))[0]["runsData"][0][0]
    c = any_report["config"]
    cap = f"each server capped at {args.cpu_percent}% of a core" if args.cpu_percent else "servers uncapped"
    note = (f"Mode {args.mode or '?'}: runs of {c['warmupSeconds']} s warm-up + {c['durationSeconds']} s measured, "
            f"{c['outstanding']} requests in flight per client, {c['znodes']} znodes in {c['subtrees']} subtrees, {cap}.")
    (args.out / "tables.md").write_text(tables(data, args.results, note))
    written.append("tables.md")
    print("compare.py: wrote " + ", ".join(str(args.out / w) for w in written))


if __name__ == "__main__":
    main()
