#!/usr/bin/env bash
# A researcher's case end to end (docs/user/training.md#a-784--500-model-on-fashion-mnist): trains a
# 784 x 500 BRBM by PCD-1 on binarized Fashion-MNIST (Debian's dataset-fashion-mnist), then asks
# `rbmscope-cli logz MODEL --held-out fashion-mnist:test` for log Z and the test set's average
# log-likelihood in one command, and prints each estimate with its interval, the verdict, its
# warnings and the held-out log-likelihood from the verdict and from each estimate.
# Usage: scripts/fashion_verdict.sh [UPDATES (6000)] [BUDGET (standard)] [SEED (1)]   (about 3.5 min at the defaults)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cli=${RBMSCOPE_CLI:-$root/build/app/cli/rbmscope-cli}
updates=${1:-6000}
budget=${2:-standard}
seed=${3:-1}
[ -x "$cli" ] || { echo "fashion_verdict.sh: $cli not found; build first (scripts/build.sh --target rbmscope-cli)" >&2; exit 2; }
"$root/scripts/deps.sh" dataset-fashion-mnist
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "uptime: $(uptime)"
train="train --data fashion-mnist --binarize 0.5 --hidden 500 --method pcd --batch 100 --chains 100 --lr 0.01 --updates $updates --monitor-every 0 --seed $seed"
echo "rbmscope-cli $train"
t0=$SECONDS
# shellcheck disable=SC2086
"$cli" $train --out "$tmp/model.json" >"$tmp/train.json"
echo "trained in $((SECONDS - t0)) s"
echo "rbmscope-cli logz MODEL --held-out fashion-mnist:test --budget $budget --seed $seed"
t0=$SECONDS
"$cli" logz "$tmp/model.json" --held-out fashion-mnist:test --budget "$budget" --seed "$seed" >"$tmp/logz.json"
echo "logz in $((SECONDS - t0)) s"
python3 - "$tmp/logz.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
h = j["held_out"]
print("| estimate | log Z | 95 % | held-out log-likelihood | 95 % |")
print("|---|---:|---|---:|---|")
for e, l in zip(j["estimates"], h["by_estimate"]):
    k = f" (Pareto k {e['pareto_k']:.2f})" if "pareto_k" in e else ""
    print(f"| {e['method']}{k} | {e['log_z']:.3f} | [{e['ci95'][0]:.3f}, {e['ci95'][1]:.3f}] | "
          f"{l['log_likelihood']:.3f} | [{l['ci95'][0]:.3f}, {l['ci95'][1]:.3f}] |")
print(f"| **verdict** | {j['log_z']:.3f} | [{j['ci95'][0]:.3f}, {j['ci95'][1]:.3f}] | "
      f"{h['log_likelihood']:.3f} | [{h['ci95'][0]:.3f}, {h['ci95'][1]:.3f}] |")
print(f"verdict: {j['verdict']} (agree {j['agree']}, trusted {j['trusted']}); held out: {h['rows']} rows, "
      f"data se {h['data_se']:.3f}, pseudo-log-likelihood {h.get('pseudo_log_likelihood', float('nan')):.3f}")
for w in j["warnings"]:
    print("warning:", w)
PY
echo "uptime: $(uptime)"
