#!/usr/bin/env bash
# What the training monitor costs next to the training: one `rbmscope-cli train` run of PCD on
# binarized Fashion-MNIST (Debian's dataset-fashion-mnist), 784 x 200, batch 100, 100 chains, with the
# default monitoring (about 20 records, each a fresh AIS run on at most 1000 rows) unless extra
# train options say otherwise; prints the seconds in the updates (= training without monitoring:
# the updates' numbers and clock do not depend on it), in the monitor, and their ratio.
# Usage: scripts/monitor_cost.sh [UPDATES (600)] [extra train options, e.g. --ais-chains 20 --ais-steps 200]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cli=${RBMSCOPE_CLI:-$root/build/app/cli/rbmscope-cli}
updates=${1:-600}
shift || true
[ -x "$cli" ] || { echo "monitor_cost.sh: $cli not found; build first (scripts/build.sh --target rbmscope-cli)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "uptime: $(uptime)"
"$cli" train --data fashion-mnist --binarize 0.5 --hidden 200 --method pcd --batch 100 --chains 100 \
  --updates "$updates" "$@" --out "$tmp/fm.json" >"$tmp/out.json"
python3 - "$tmp/out.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
u, m = j["timing"]["seconds"]["updates"], j["timing"]["seconds"]["monitor"]
mon = j["monitor"]
print("records %d on %d of %d rows, AIS %d chains x %d steps" % (j["records"], mon["rows"], mon["rows_of"],
      mon["ais_chains"], mon["ais_steps"]))
print("training without monitoring (the updates): %.2f s" % u)
print("training with monitoring (updates + monitor %.2f s): %.2f s = %.2fx" % (m, u + m, (u + m) / u))
f = j["final"]
print("final record: log Z %.3f, log-likelihood %.3f (%s)" % (f.get("log_z", float("nan")),
      f.get("log_likelihood", float("nan")), f.get("log_likelihood_method")))
PY
echo "uptime: $(uptime)"
