#!/usr/bin/env python3
"""The Helm chart corpus side by side: see bench/helm-charts.sh, which runs this.

For each chart (its first value set: the chart's defaults, or the values it cannot render
without), one check run of each side, then paired.py's alternating rounds and GNU time's peak
RSS; the ratio is Helm's time over meshchart's, paired round by round.

usage: helm_charts.py --mesh BIN --helm BIN --charts DIR [--runs N] [CHART_ID...]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tomllib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paired  # noqa: E402

CORPUS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                      "tests", "reference", "helm-charts")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mesh", required=True)
    ap.add_argument("--helm", required=True)
    ap.add_argument("--charts", required=True)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("only", nargs="*")
    args = ap.parse_args()
    with open(os.path.join(CORPUS, "corpus.toml"), "rb") as f:
        corpus = tomllib.load(f)
    rows, failing = [], []
    print(f"{'chart':<38} {'value set':<10} {'helm':>10} {'meshchart':>10} {'ratio':>8} {'mesh RSS':>9}")
    for chart in corpus["chart"]:
        if args.only and chart["id"] not in args.only:
            continue
        value_set = chart["sets"][0]
        common = [chart["release"], os.path.join(args.charts, chart["archive"]), "-n", chart["namespace"]]
        if value_set != "default":
            common += ["-f", os.path.join(CORPUS, "values", chart["id"], value_set + ".yaml")]
        mesh = [args.mesh, "render", *common]
        helm = [args.helm, "template", *common]
        check = subprocess.run(mesh, capture_output=True, text=True)
        if check.returncode != 0:
            first = (check.stderr.strip().split("\n") or [""])[0][:90]
            failing.append(chart["id"])
            print(f"{chart['id']:<38} {value_set:<10} {'':>10} {'fails':>10}   {first}")
            continue
        results = paired.measure([("helm", [helm]), ("mesh", [mesh])], args.runs, 3, rss_runs=3)
        helm_walls, _ = results["helm"]
        mesh_walls, mesh_rss = results["mesh"]
        ratio = statistics.median(h / m for h, m in zip(helm_walls, mesh_walls))
        rss = max(mesh_rss) / 1024
        rows.append((chart["id"], ratio, rss))
        print(f"{chart['id']:<38} {value_set:<10} {paired.fmt_time(statistics.median(helm_walls)):>10}"
              f" {paired.fmt_time(statistics.median(mesh_walls)):>10} {ratio:>7.1f}x {rss:>6.1f} MiB",
              flush=True)
    print()
    if rows:
        ratios = [r for _, r, _ in rows]
        slowest = min(rows, key=lambda r: r[1])
        largest = max(rows, key=lambda r: r[2])
        print(f"{len(rows)} charts rendered by both: median ratio {statistics.median(ratios):.1f}x,"
              f" minimum {slowest[1]:.1f}x ({slowest[0]}),"
              f" meshchart peak RSS at most {largest[2]:.1f} MiB ({largest[0]})")
    print(f"{len(failing)} charts meshchart does not render yet" + (f": {' '.join(failing)}" if failing else ""))


if __name__ == "__main__":
    main()
