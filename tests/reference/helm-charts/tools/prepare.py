#!/usr/bin/env python3
"""Makes the corpus's chart archives from the charts' public git repositories.

Chart repositories cannot be reached from where this corpus was made, so each chart is built the
way its publisher's release job builds it: the chart's folder at its release tag, every remote
dependency built the same way from its own repository at the version the chart's lock file (or,
without one, its version range) names and packaged into charts/, then `helm package`.

usage: prepare.py CORPUS_TOML MIRRORS_DIR OUT_DIR HELM [CHART...]
  MIRRORS_DIR holds one bare git dir per source as OWNER+NAME/repo (what the fetch tool makes).
"""
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib

import yaml


def git_archive(git_dir, ref, path, dest):
    """Extracts PATH of REF into DEST (DEST becomes the folder PATH was)."""
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(
            ["git", "--git-dir", git_dir, "archive", ref] + ([] if path == "." else [path]),
            check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        shutil.copytree(os.path.normpath(os.path.join(tmp, path)), dest, symlinks=True)


def parse_version(text):
    m = re.match(r"^v?(\d+)(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(-[0-9A-Za-z.-]+)?$", text.strip())
    if not m:
        return None
    parts = [m.group(1), m.group(2) or "x", m.group(3) or "x"]
    return parts, m.group(4)


def satisfies(version, constraint):
    """Helm's (Masterminds semver) constraint check, for the forms charts use."""
    v = [int(p) for p in re.match(r"^v?(\d+)\.(\d+)\.(\d+)", version).groups()]
    for alternative in constraint.split("||"):
        ok = True
        for term in re.findall(r"(\^|~|>=|<=|>|<|=|!=)?\s*(v?[0-9][0-9A-Za-z.*-]*|\*|x)", alternative):
            op, ver = term
            if ver in ("*", "x"):
                continue
            parsed = parse_version(ver)
            if parsed is None:
                ok = False
                break
            parts, _pre = parsed
            fixed = [int(p) for p in parts if p not in "xX*"]
            low = fixed + [0] * (3 - len(fixed))
            if op in ("", "=") and len(fixed) < 3:
                ok = v[:len(fixed)] == fixed
            elif op in ("", "="):
                ok = v == low
            elif op == "^":
                keep = 1 if low[0] > 0 or len(fixed) == 1 else 2
                ok = v >= low and v[:keep] == low[:keep]
            elif op == "~":
                keep = 2 if len(fixed) >= 2 else 1
                ok = v >= low and v[:keep] == low[:keep]
            elif op == ">=":
                ok = v >= low
            elif op == ">":
                ok = v > low
            elif op == "<=":
                ok = v <= low
            elif op == "<":
                ok = v < low
            elif op == "!=":
                ok = v != low
            if not ok:
                break
        if ok:
            return True
    return False


class Corpus:
    def __init__(self, toml_path, mirrors, out, helm):
        with open(toml_path, "rb") as f:
            self.data = tomllib.load(f)
        self.mirrors = mirrors
        self.out = out
        self.helm = helm
        self.sources = self.data["source"]

    def git_dir(self, source):
        return os.path.join(self.mirrors, self.sources[source]["repo"].replace("/", "+"), "repo")

    def source_for_url(self, url):
        url = url.rstrip("/")
        for name, s in self.sources.items():
            if url in [u.rstrip("/") for u in s.get("urls", [])]:
                return name
        raise SystemExit(f"no source in the corpus serves dependency repository {url}")

    def tags_of(self, source, chart):
        pattern = self.sources[source]["tag"].replace("{name}", chart)
        prefix = pattern.split("{version}")[0]
        tags = subprocess.run(["git", "--git-dir", self.git_dir(source), "tag", "-l", prefix + "*"],
                              check=True, capture_output=True, text=True).stdout.split()
        versions = []
        for t in tags:
            rest = t[len(prefix):]
            if re.match(r"^\d+\.\d+\.\d+$", rest):
                versions.append(rest)
        return sorted(versions, key=lambda s: [int(p) for p in s.split(".")], reverse=True)

    def build(self, source, name, version, dest_dir, ref=None, path=None, chart_spec=None):
        """Packages NAME VERSION from SOURCE into DEST_DIR; returns the archive's path."""
        s = self.sources[source]
        ref = ref or s.get("commits", {}).get(version) or \
            s["tag"].replace("{name}", name).replace("{version}", version)
        path = path or s.get("paths", {}).get(name) or s["path"].replace("{name}", name)
        with tempfile.TemporaryDirectory() as tmp:
            work = os.path.join(tmp, name)
            git_archive(self.git_dir(source), ref, path, work)
            spec = chart_spec or {}
            if s.get("versioned_by_release") and "set_version" not in spec:
                # its release job stamps the tag's version into Chart.yaml as it packages
                spec = dict(spec, set_version=version)
            chart_yaml = os.path.join(work, "Chart.yaml")
            if "set_version" in spec:
                with open(chart_yaml) as f:
                    text = f.read()
                text = re.sub(r"(?m)^version: .*$", f"version: {spec['set_version']}", text)
                text = re.sub(r"(?m)^appVersion: .*$", f"appVersion: {spec.get('set_app_version', spec['set_version'])}", text)
                with open(chart_yaml, "w") as f:
                    f.write(text)
            with open(chart_yaml) as f:
                meta = yaml.safe_load(f)
            deps = meta.get("dependencies") or []
            lock = {}
            for lock_name in ("Chart.lock", "requirements.lock"):
                lp = os.path.join(work, lock_name)
                if os.path.exists(lp):
                    with open(lp) as f:
                        for d in (yaml.safe_load(f) or {}).get("dependencies") or []:
                            lock[d["name"]] = d["version"]
            req = os.path.join(work, "requirements.yaml")
            if not deps and os.path.exists(req):
                with open(req) as f:
                    deps = (yaml.safe_load(f) or {}).get("dependencies") or []
            pinned = spec.get("dependencies", {})
            charts_dir = os.path.join(work, "charts")
            for d in deps:
                dname, repo = d["name"], d.get("repository") or ""
                if not repo or repo.startswith("file://"):
                    if os.path.isdir(os.path.join(charts_dir, dname)):
                        continue
                    rel = os.path.normpath(os.path.join(path, repo[len("file://"):]))
                    os.makedirs(charts_dir, exist_ok=True)
                    git_archive(self.git_dir(source), ref, rel, os.path.join(charts_dir, dname))
                    continue
                dsource = self.source_for_url(repo)
                dversion = pinned.get(dname) or lock.get(dname)
                if dversion is None:
                    dversion = next((v for v in self.tags_of(dsource, dname)
                                     if satisfies(v, str(d.get("version", "*")))), None)
                    if dversion is None:
                        raise SystemExit(f"{name}: no version of {dname} satisfies {d.get('version')}")
                os.makedirs(charts_dir, exist_ok=True)
                if any(f.startswith(f"{dname}-{dversion}") for f in os.listdir(charts_dir)):
                    continue
                self.build(dsource, dname, dversion, charts_dir)
            os.makedirs(dest_dir, exist_ok=True)
            done = subprocess.run([self.helm, "package", work, "-d", dest_dir],
                                  check=True, capture_output=True, text=True).stdout
            return done.strip().rsplit(" ", 1)[-1]


def main():
    toml_path, mirrors, out, helm, *only = sys.argv[1:]
    corpus = Corpus(toml_path, mirrors, out, helm)
    for chart in corpus.data["chart"]:
        if only and chart["id"] not in only:
            continue
        if chart["source"] == "linkerd2":
            continue  # made by record.sh with the project's prepare-upstream-charts.sh
        made = corpus.build(chart["source"], chart["chart"], chart["version"], out,
                            ref=chart.get("ref"), path=chart.get("path"), chart_spec=chart)
        with open(made, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        print(f"{chart['id']} {os.path.basename(made)} {digest}")


if __name__ == "__main__":
    main()
