#!/usr/bin/env bash
# Calibration of `rbmscope-cli logz` (docs/methods/log-z-verdict.md#calibration): runs
# `logz --no-exact` for seeds 1..SEEDS on enumerable models and prints, per model, how often the
# verdict was trusted, how often a trusted interval missed the exact log Z, and how many confident
# misses of forward AIS alone (its interval misses the exact value while its Pareto k is within its
# threshold) the verdict left trusted. Goal: trusted intervals cover >= 90 %, no confident miss
# left trusted.
# Usage: scripts/logz_coverage.sh [SEEDS (default 20)] [BUDGET (default quick)] [MODEL...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cli=${RBMSCOPE_CLI:-$root/build/app/cli/rbmscope-cli}
seeds=${1:-20}
budget=${2:-quick}
shift 2 2>/dev/null || shift $#
models=("$@")
[ ${#models[@]} -gt 0 ] || models=("$root/tests/data/models/digits-brbm16.json" bars-and-stripes four-mode
                                   "$root/tests/data/models/grbm-hidden3.json")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "logz --no-exact --budget $budget, seeds 1..$seeds; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for m in "${models[@]}"; do
  for s in $(seq 1 "$seeds"); do
    "$cli" logz "$m" --no-exact --budget "$budget" --seed "$s" > "$out/$s.json"
  done
  python3 - "$m" "$seeds" "$out" <<'PY'
import json, os, sys
model, seeds, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
runs = [json.load(open(os.path.join(out, f"{s}.json"))) for s in range(1, seeds + 1)]
exact = runs[0]["exact_log_z"]
def covers(ci): return ci[0] <= exact <= ci[1]
trusted = [r for r in runs if r["trusted"]]
missed = [r for r in trusted if not covers(r["ci95"])]
agree = sum(r["agree"] for r in runs)
conf, conf_left = 0, 0
for r in runs:
    for e in r["estimates"]:
        if e["side"] != "lower": continue
        k, thr = e.get("pareto_k"), e.get("pareto_k_threshold")
        if k is not None and k <= thr and not covers(e["ci95"]):
            conf += 1
            conf_left += r["trusted"]
fwd = [e for r in runs for e in r["estimates"] if e["side"] == "lower"]
fwd_cover = sum(covers(e["ci95"]) for e in fwd)
name = os.path.basename(model)
print(f"{name}: exact {exact:.4f}; {len(runs)} runs, agree {agree}, trusted {len(trusted)}, "
      f"trusted covering {len(trusted) - len(missed)}/{len(trusted)}"
      f" ({100 * (len(trusted) - len(missed)) / max(len(trusted), 1):.0f} %); "
      f"forward AIS alone covering {fwd_cover}/{len(fwd)}; confident forward misses {conf}, left trusted {conf_left}")
PY
done
