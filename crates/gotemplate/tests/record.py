#!/usr/bin/env python3
"""Records Helm's answer for each case file under tests/cases/ (run by hand; tests never run Helm).

Usage: record.py HELM_BINARY [CASE_FILE...]   (no case files: every tests/cases/*.case)

For each case the script writes a chart named `c` in a temporary directory (Chart.yaml, the case's
`values.yaml` section and every `templates/...` section), runs `HELM template c` with one `--set`
per line of the `set` section, and rewrites the case's `output` or `error` section.

`error` is Helm's stderr without its `Error: ` prefix and without the closing
`Use --debug flag to render out invalid YAML` hint.

`output` is the text Helm rendered for `templates/t.yaml`, byte for byte. `helm template` trims
each document and refuses output that is not YAML, so the script gets the raw text another way:
it renders a second time with `--debug` and TRAILER appended to `t.yaml`. The trailer adds a
document that is a YAML list, which Helm rejects (it cannot read a manifest head from a list);
on that error `--debug` prints every rendered file untrimmed, and the text before the trailer is
the template's own output. The trailer is pure text after the template, so it cannot change
what the template renders.
"""
# The marker in front is not white space, so a template ending in `-}}` cannot trim the
# trailer, and not a brace, so a template ending in `{` cannot make it a delimiter.
TRAILER = "@END-OF-CASE@\n---\n- END-OF-CASE"
import os, subprocess, sys, tempfile, glob

MARK = "=== "
HINT = "\n\nUse --debug flag to render out invalid YAML\n"


def parse(text):
    """Returns (header, [(name, content)]): content excludes the newline before the next marker."""
    lines = text.split("\n")
    header, sections, cur = [], [], None
    buf = []
    for line in lines:
        if line.startswith(MARK):
            if cur is None:
                header = buf
            else:
                sections.append((cur, "\n".join(buf)))
            cur, buf = line[len(MARK):].strip(), []
        else:
            buf.append(line)
    if cur is None:
        header = buf
    else:
        content = "\n".join(buf)
        if content.endswith("\n") and not text.endswith("\n\n"):
            pass
        sections.append((cur, content))
    return header, sections


def serialise(header, sections):
    out = "\n".join(header) + "\n" if header else ""
    for name, content in sections:
        out += MARK + name + "\n" + content + "\n"
    return out


def run(helm, tmp, sections, trailer, extra):
    chart = os.path.join(tmp, "c")
    if os.path.exists(chart):
        subprocess.run(["rm", "-rf", chart], check=True)
    os.makedirs(os.path.join(chart, "templates"))
    with open(os.path.join(chart, "Chart.yaml"), "w") as f:
        f.write("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    args = [helm, "template", "c"] + extra
    for name, content in sections:
        if name == "values.yaml" or name.startswith("templates/"):
            p = os.path.join(chart, name)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(content + (trailer if name == "templates/t.yaml" else ""))
        elif name == "set":
            for line in content.split("\n"):
                if line:
                    args += ["--set", line]
    return subprocess.run(args, cwd=tmp, capture_output=True, text=True)


def record(helm, path):
    with open(path) as f:
        text = f.read()
    if text.endswith("\n"):
        text = text[:-1]
    header, sections = parse(text)
    sections = [(n, c) for n, c in sections if n not in ("output", "error")]
    with tempfile.TemporaryDirectory() as tmp:
        r = run(helm, tmp, sections, "", [])
        if r.returncode == 0 or r.stderr.startswith("Error: YAML parse error"):
            r = run(helm, tmp, sections, TRAILER, ["--debug"])
            head = "# Source: c/templates/t.yaml\n"
            start = r.stdout.index(head) + len(head)
            end = r.stdout.find(TRAILER, start)
            if end < 0:
                sys.exit(f"{path}: no trailer in Helm's --debug output; stdout: {r.stdout!r} stderr: {r.stderr[-300:]!r}")
            sections.append(("output", r.stdout[start:end]))
        else:
            err = r.stderr
            if err.startswith("Error: "):
                err = err[len("Error: "):]
            if err.endswith(HINT):
                err = err[: -len(HINT)]
            elif err.endswith("\n"):
                err = err[:-1]
            sections.append(("error", err))
    with open(path, "w") as f:
        f.write(serialise(header, sections))


def main():
    helm = sys.argv[1]
    files = sys.argv[2:] or sorted(glob.glob(os.path.join(os.path.dirname(__file__), "cases", "*.case")))
    for p in files:
        record(helm, p)
    print(f"recorded {len(files)} cases")


if __name__ == "__main__":
    main()
