#!/usr/bin/env bash
# The training-methods comparison on the 8x8 digits judged by the log Z verdict: cd, pcd, pt, lpt and
# deo train the same 64 x 50 BRBM (the tempering paper's settings: one-pixel shifts, binarized at
# 0.5, batch 10, lr 0.02, gamma 0.7 with 6 rungs) on the first 1500 digits; the last 297 are held
# out. Each final model then gets `rbmscope-cli logz` (every estimator that applies, whether they
# agree) and `rbmscope-cli loglik` on the training rows (unshifted) and on the held-out rows (log Z
# by tempering BAR, independent of the AIS runs of logz). Prints one table row per method: the
# final record of train's own monitor (AIS 20 x 200 on 1000 of the shifted rows), the verdict's
# log Z, ci95 and agree flag with the number of estimates, loglik on both row sets (ci95 carries
# log Z's uncertainty; data se the spread of log p*(v) over the held-out rows / sqrt(rows)), then
# every warning.
# Usage: scripts/training_comparison.sh [UPDATES (30000)] [SEED (1)]    (about a minute per method)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cli=${RBMSCOPE_CLI:-$root/build/app/cli/rbmscope-cli}
updates=${1:-30000}
seed=${2:-1}
[ -x "$cli" ] || { echo "training_comparison.sh: $cli not found; build first (scripts/build.sh --target rbmscope-cli)" >&2; exit 2; }
digits=${RBMSCOPE_DIGITS_CSV:-$root/resources/data/digits/digits.csv.gz}  # the shipped copy (resources/data/digits/README.md)
[ -r "$digits" ] || { echo "training_comparison.sh: $digits not found (set RBMSCOPE_DIGITS_CSV)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
zcat -f "$digits" >"$tmp/all.csv"
head -n 1500 "$tmp/all.csv" >"$tmp/train.csv"
tail -n +1501 "$tmp/all.csv" >"$tmp/test.csv"
rows="--csv-label last --binarize 0.5"
echo "uptime: $(uptime)"
echo "digits: 1500 training rows (x5 with shifts), 297 held out; $updates updates, seed $seed"
for m in cd pcd pt lpt deo; do
  extra=""
  case $m in pt | lpt | deo) extra="--gamma 0.7 --rungs 6" ;; esac
  # shellcheck disable=SC2086
  "$cli" train --data "$tmp/train.csv" $rows --shifts --hidden 50 --batch 10 --lr 0.02 --method $m $extra \
    --seed "$seed" --updates "$updates" --monitor-every 0 --out "$tmp/$m.json" >"$tmp/$m.train.json"
  "$cli" logz "$tmp/$m.json" --seed "$seed" >"$tmp/$m.logz.json"
  # shellcheck disable=SC2086
  "$cli" loglik "$tmp/$m.json" --data "$tmp/train.csv" $rows --seed "$seed" >"$tmp/$m.ll_train.json"
  # shellcheck disable=SC2086
  "$cli" loglik "$tmp/$m.json" --data "$tmp/test.csv" $rows --seed "$seed" >"$tmp/$m.ll_test.json"
done
python3 - "$tmp" <<'PY'
import json, os, sys
d = sys.argv[1]
load = lambda f: json.load(open(os.path.join(d, f)))
print("| method | monitor LL (AIS) | log Z (verdict) | agree | estimates | LL train rows | LL held out | held-out ci95 | data se |")
print("|---|---|---|---|---|---|---|---|---|")
for m in ["cd", "pcd", "pt", "lpt", "deo"]:
    t, z, a, b = load(m + ".train.json"), load(m + ".logz.json"), load(m + ".ll_train.json"), load(m + ".ll_test.json")
    f = t["final"]
    lo, hi = z["ci95"]
    est = len(z["estimates"])
    print("| %s | %.2f | %.3f [%.3f, %.3f] | %s | %d | %.2f | %.2f | [%.2f, %.2f] | %.2f |" % (
        m, f["log_likelihood"], z["log_z"], lo, hi, "yes" if z["agree"] else "NO", est,
        a["log_likelihood"], b["log_likelihood"], b["ci95"][0], b["ci95"][1], b["data_se"]))
    for w in z["warnings"] + a["warnings"] + b["warnings"]:
        print("  %s: warning: %s" % (m, w))
PY
echo "uptime: $(uptime)"
