#!/usr/bin/env bash
# The figures of the README and docs/ that another suite's case prints (tests/data/readme_figures.json,
# "elsewhere" entries with "run" and "pattern"): runs each case once and compares every captured
# number with the figure as the document prints it, at its printed precision. cli.test_cli_readme
# checks the documents still quote them; this checks the suites still print them. Needs a Release
# build with the widget suites (build/, or BUILD_DIR=).
#
#   scripts/readme_figures.sh          # every entry; exit 1 on any mismatch
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
python3 - "${BUILD_DIR:-build}" <<'PY'
import json, re, subprocess, sys
build = sys.argv[1]
manifest = json.load(open("tests/data/readme_figures.json"))
def value(printed):  # the number and the half-width of the interval that prints so
    s = printed.replace("\u2212", "-").replace(" ", "").replace(",", "")
    mant = s.split("e")[0]
    decimals = len(mant.split(".")[1]) if "." in mant else 0
    exp = int(s.split("e")[1]) if "e" in s else 0
    return float(s), 0.5 * 10 ** (exp - decimals)
outputs, bad, n = {}, 0, 0
for entry in manifest["elsewhere"]:
    if "run" not in entry:
        continue
    run = entry["run"].replace("build/", build + "/", 1)
    if run not in outputs:
        p = subprocess.run(run, shell=True, capture_output=True, text=True)
        outputs[run] = (p.returncode, p.stdout + p.stderr)
    code, text = outputs[run]
    m = re.search(entry["pattern"], text)
    if code != 0 or not m:
        print("FAIL  %s: exit %d, no match for %s" % (entry["run"], code, entry["pattern"]))
        bad += 1
        continue
    scales = entry.get("scale", [1] * len(entry["printed"]))
    for printed, got, scale in zip(entry["printed"], m.groups(), scales):
        want, half = value(printed)
        ok = abs(float(got) * scale - want) <= half * (1 + 1e-9)
        n += 1
        if not ok:
            bad += 1
        print("%s  %s prints %s, %s %s" % ("ok  " if ok else "FAIL", entry["test"], got, entry.get("file", "README.md"), printed))
print("%d figures compared, %d mismatches" % (n, bad))
sys.exit(1 if bad else 0)
PY
