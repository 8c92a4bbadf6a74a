#!/usr/bin/env python3
"""Records Helm's `helm template` output for every (chart, value set) of corpus.toml.

Each case is rendered three times; lines that differ between runs are Helm's random or
clock-based output (randAlphaNum passwords, genCA certificates, their checksums, random test pod
names). Each is named by its document's `# Source:` and its key path (the rules below, which the
integration test's masking follows too) and written to the chart's `random` list in corpus.toml;
the renders themselves go to OUT/ID/SET.yaml.

usage: record.py CORPUS_TOML CHARTS_DIR OUT_DIR HELM [ID...]   (IDs: only those charts)
"""
import hashlib
import os
import re
import subprocess
import sys
import tarfile
import tomllib

KEY = re.compile(r"""^("(?:[^"\\]|\\.)*"|'[^']*'|[^\s#'"-][^:#]*?|-[^\s:][^:#]*?):(?: |$)""")


def line_paths(text):
    """(source, key path) of every line: the path rules the test's masking shares.

    A document starts after a `---` line and is named by its `# Source:` comment. A `- ` item is
    a path step `-`; a `key:` is a step `key`; a line inside a block scalar (`key: |`) or any other
    line takes the path it sits under. Steps are joined with `.`.
    """
    out = []
    source = ""
    stack = []  # (indent, step)
    block = None  # indent of the key whose block scalar we are inside
    for line in text.split("\n"):
        if line == "---":
            source, stack, block = "", [], None
            out.append((source, ""))
            continue
        if line.startswith("# Source: ") and not stack:
            source = line[len("# Source: "):]
            out.append((source, ""))
            continue
        content = line.lstrip(" ")
        indent = len(line) - len(content)
        if block is not None:
            if content == "" or indent > block:
                out.append((source, ".".join(s for _, s in stack)))
                continue
            block = None
        if content == "" or content.startswith("#"):
            out.append((source, ".".join(s for _, s in stack)))
            continue
        while content.startswith("- ") or content == "-":
            while stack and (stack[-1][0] > indent or (stack[-1][0] == indent and stack[-1][1] == "-")):
                stack.pop()
            stack.append((indent, "-"))
            content = content[2:]
            indent += 2
        m = KEY.match(content)
        if m:
            while stack and stack[-1][0] >= indent:
                stack.pop()
            key = m.group(1)
            stack.append((indent, key))
            rest = content[m.end():].strip()
            if re.match(r"^[|>][0-9+-]*$", rest):
                block = indent
        out.append((source, ".".join(s for _, s in stack)))
    return out


def content_sha256(path):
    """A digest of the files inside a chart archive, which `helm package` does not make byte for
    byte the same twice (it stamps the time): sha256 over each file, sorted by path, as
    PATH NUL LENGTH NUL BYTES. The integration test checks the archives it is given with it."""
    files = []
    with tarfile.open(path) as tar:
        for member in tar.getmembers():
            if member.isfile():
                files.append((member.name, tar.extractfile(member).read()))
    h = hashlib.sha256()
    for name, data in sorted(files):
        h.update(name.encode() + b"\0" + str(len(data)).encode() + b"\0" + data)
    return h.hexdigest()


def main():
    toml_path, charts_dir, out_dir, helm, *only = sys.argv[1:]
    with open(toml_path, "rb") as f:
        corpus = tomllib.load(f)
    values_dir = os.path.join(os.path.dirname(toml_path), "values")
    recorded = {}
    failures = 0
    for chart in corpus["chart"]:
        if only and chart["id"] not in only:
            continue
        archive = f"{chart['chart']}-{chart['version']}.tgz"
        path = os.path.join(charts_dir, archive)
        with open(path, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        content = content_sha256(path)
        random = []
        for value_set in chart["sets"]:
            cmd = [helm, "template", chart["release"], path, "-n", chart["namespace"]]
            if value_set != "default":
                cmd += ["-f", os.path.join(values_dir, chart["id"], value_set + ".yaml")]
            runs = [subprocess.run(cmd, capture_output=True, text=True) for _ in range(3)]
            if runs[0].returncode != 0:
                print(f"FAILED {chart['id']} {value_set}: {runs[0].stderr.strip()[:300]}")
                failures += 1
                continue
            texts = [r.stdout for r in runs]
            lines = [t.split("\n") for t in texts]
            if len({len(l) for l in lines}) != 1:
                print(f"UNSTABLE {chart['id']} {value_set}: line counts differ between runs")
                failures += 1
                continue
            paths = line_paths(texts[0])
            for i, (a, b, c) in enumerate(zip(*lines)):
                if a != b or a != c:
                    entry = f"{value_set}|{paths[i][0]}|{paths[i][1]}"
                    if entry not in random:
                        random.append(entry)
            dest = os.path.join(out_dir, chart["id"], value_set + ".yaml")
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "w") as f:
                f.write(texts[0])
        recorded[chart["id"]] = (archive, digest, content, random)
        print(f"{chart['id']}: {len(chart['sets'])} sets, {len(random)} random keys")
    rewrite(toml_path, recorded)
    sys.exit(1 if failures else 0)


def rewrite(toml_path, recorded):
    """Replaces each chart's archive, sha256 and random lines in corpus.toml."""
    with open(toml_path) as f:
        text = f.read()
    head, *charts = text.split("\n[[chart]]\n")
    done = []
    for block in charts:
        cid = re.search(r'^id = "([^"]+)"', block, re.M).group(1)
        lines = block.rstrip("\n").split("\n")
        if cid in recorded:
            lines = [l for l in lines
                     if not re.match(r"^(archive|sha256|content_sha256|random) = ", l)
                     and not l.startswith('  "') and l != "]"]
            archive, digest, content, random = recorded[cid]
            lines.append(f'archive = "{archive}"')
            lines.append(f'sha256 = "{digest}"')
            lines.append(f'content_sha256 = "{content}"')
            if random:
                lines.append("random = [")
                lines += [f'  "{r}",' for r in random]
                lines.append("]")
        done.append("\n".join(lines) + "\n")
    with open(toml_path, "w") as f:
        f.write(head + "".join("\n[[chart]]\n" + b for b in done))


if __name__ == "__main__":
    main()
