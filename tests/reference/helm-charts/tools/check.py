#!/usr/bin/env python3
"""Checks a meshchart binary against the Helm chart corpus: PASS or FAIL per (chart, value set),
with the first differing lines of each failure, then totals. For template authors; the
integration test (tests/integration/helm_charts_corpus.rs) is the check that gates.

usage: check.py BIN [--charts DIR] [--jobs N] [--only ID[/SET]]... [--lines N] [--write-not-yet]
  --charts         the chart archives (default: $MESHCHART_HELM_CHARTS or ../charts)
  --write-not-yet  rewrite ../NOT-YET.toml to list exactly the cases that fail, each with the
                   first line of why (keeps the reason already written for a case still failing)
"""
import argparse
import concurrent.futures
import difflib
import io
import os
import re
import subprocess
import sys
import tarfile
import tomllib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from record import line_paths  # noqa: E402  the masking rules the test shares

CORPUS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def mask(text, random):
    if not random:
        return text
    out = []
    for line, (source, path) in zip(text.split("\n"), line_paths(text)):
        if (source, path) in random:
            content = line.lstrip(" ")
            indent = line[: len(line) - len(content)]
            stripped = content
            while stripped.startswith("- "):
                stripped = stripped[2:]
            key = re.match(r"""^("(?:[^"\\]|\\.)*"|'[^']*'|[^\s#'"-][^:#]*?|-[^\s:][^:#]*?):(?: |$)""", stripped)
            if key:
                line = line[: len(line) - len(stripped)] + key.group(1) + ": <random>"
            else:
                line = indent + "<random>"
        out.append(line)
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("--charts", default=os.environ.get("MESHCHART_HELM_CHARTS") or os.path.join(CORPUS, "charts"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--lines", type=int, default=12)
    ap.add_argument("--write-not-yet", action="store_true")
    args = ap.parse_args()
    with open(os.path.join(CORPUS, "corpus.toml"), "rb") as f:
        corpus = tomllib.load(f)
    renders = {}
    with tarfile.open(os.path.join(CORPUS, "renders.tar.xz")) as tar:
        for member in tar.getmembers():
            if member.isfile():
                renders[member.name] = tar.extractfile(member).read().decode()
    cases = []
    for chart in corpus["chart"]:
        random = [tuple(r.split("|", 2)) for r in chart.get("random", [])]
        for value_set in chart["sets"]:
            name = f"{chart['id']}/{value_set}"
            if args.only and chart["id"] not in args.only and name not in args.only:
                continue
            cmd = [args.bin, "render", chart["release"], os.path.join(args.charts, chart["archive"]),
                   "-n", chart["namespace"]]
            if value_set != "default":
                cmd += ["-f", os.path.join(CORPUS, "values", chart["id"], value_set + ".yaml")]
            masks = {(s, p) for v, s, p in random if v == value_set}
            cases.append((name, cmd, masks))

    def run(case):
        name, cmd, masks = case
        done = subprocess.run(cmd, capture_output=True)
        if done.returncode != 0:
            err = done.stderr.decode(errors="replace").strip().split("\n")
            return name, False, [f"meshchart exits {done.returncode}: {err[0]}"] + err[1:args.lines]
        expected = mask(renders[name + ".yaml"], masks)
        actual = mask(done.stdout.decode(errors="replace"), masks)
        if expected == actual:
            return name, True, []
        diff = list(difflib.unified_diff(expected.split("\n"), actual.split("\n"), "helm", "meshchart",
                                         n=1, lineterm=""))
        return name, False, diff[: args.lines]

    passed = failed = 0
    results = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for name, ok, detail in pool.map(run, cases):
            results[name] = (ok, detail)
            if ok:
                passed += 1
                print(f"PASS {name}")
            else:
                failed += 1
                print(f"FAIL {name}")
                for line in detail:
                    print(f"     {line}")
    print(f"{passed} passed, {failed} failed")
    if args.write_not_yet:
        write_not_yet(results)
    sys.exit(0 if failed == 0 else 1)


def write_not_yet(results):
    path = os.path.join(CORPUS, "NOT-YET.toml")
    old = {}
    if os.path.exists(path):
        with open(path, "rb") as f:
            old = tomllib.load(f).get("not-yet", {})
    lines = [
        "# Corpus cases (chart id / value set) whose meshchart render does not yet match Helm's,",
        "# each with a one-line reason. The integration test fails on an unlisted case that differs",
        "# and on a listed case that matches; tools/check.py --write-not-yet remakes this list.",
        "",
        "[not-yet]",
    ]
    for name, (ok, detail) in sorted(results.items()):
        if ok:
            continue
        reason = old.get(name)
        if reason is None:
            first = detail[0] if detail else "differs"
            if first.startswith("---") and len(detail) > 3:
                first = "output differs from Helm's at " + detail[2]
            first = re.sub(r"/\S*/(charts|helm-charts)/", "", first)
            reason = "no Go-template front end yet (#36); today: " + first
        reason = reason[:160]
        reason = reason.replace("\\", "\\\\").replace('"', '\\"')
        lines.append(f'"{name}" = "{reason}"')
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
