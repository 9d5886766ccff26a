#!/usr/bin/env bash
# How often AIS's bootstrap 95 % interval covers the exact log Z, by effective sample size: the
# measurement behind the "unreliable under ESS 30" warning (core/ais/estimates.cpp, docs/user/tour.md
# step 4). Runs `rbmscope-cli ais MODEL --steps K --chains N --seed S` for every K and N given and
# seeds 1..R (each run is reproducible alone), on a model whose exact log Z is known, and prints,
# per ESS band, the runs, the share whose ci95 contains exact_log_z, and the misses below/above.
# Usage: scripts/ess_coverage.sh [MODEL (four-mode)] [R (200)] [K list (3,5,10)] [N list (10,20,40)]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cli=${RBMSCOPE_CLI:-$root/build/app/cli/rbmscope-cli}
model=${1:-four-mode}
repeats=${2:-200}
steps=${3:-3,5,10}
chains=${4:-10,20,40}
[ -x "$cli" ] || { echo "ess_coverage: no $cli (build first: scripts/build.sh)" >&2; exit 2; }
echo "model $model, seeds 1..$repeats, K in {$steps}, N in {$chains}; load: $(cut -d' ' -f1-3 /proc/loadavg)"
for k in ${steps//,/ }; do
  for n in ${chains//,/ }; do
    for s in $(seq 1 "$repeats"); do
      "$cli" ais "$model" --steps "$k" --chains "$n" --seed "$s" --checkpoints 2 --threads 1
    done
  done
done | python3 -c '
import json, sys
dec = json.JSONDecoder()
text = sys.stdin.read()
runs, i = [], 0
while i < len(text):
    while i < len(text) and text[i].isspace(): i += 1
    if i >= len(text): break
    j, i = dec.raw_decode(text, i)
    runs.append(j)
bands = [("ESS < 3", lambda e: e < 3), ("3 <= ESS <= 20", lambda e: 3 <= e <= 20),
         ("20 < ESS < 30", lambda e: 20 < e < 30), ("ESS >= 30", lambda e: e >= 30)]
print("%-16s %5s %9s %11s %12s" % ("band", "runs", "covered", "missed low", "missed high"))
for name, inside in bands:
    sel = [r for r in runs if inside(r["ess"])]
    if not sel: continue
    low = sum(r["exact_log_z"] > r["ci95"][1] for r in sel)  # the whole interval below the truth
    high = sum(r["exact_log_z"] < r["ci95"][0] for r in sel)
    cov = len(sel) - low - high
    print("%-16s %5d %7.1f %% %11d %12d" % (name, len(sel), 100.0 * cov / len(sel), low, high))
'
