#!/usr/bin/env bash
# The docs' tables that take too long for ctest, printed in the docs' format from the
# commands it names (every figure comes from a script or a test). Results are
# deterministic for a seed at any thread count, so a run reproduces the docs' digits exactly;
# tests/data/readme_figures.json lists each figure with the table it comes from.
#
#   scripts/readme_tables.sh leaky     # Li et al.'s Table 2 errors, both kernels (2 x leaky-table,
#                                      # defaults: about 3-4 minutes each on two idle cores)
#   scripts/readme_tables.sh digits    # the digits training table: 5 methods x 3 seeds x 100 epochs
#                                      # (a few minutes per run on one core; runs two at a time)
#   scripts/readme_tables.sh digits-models  # only train the table's 15 models (into OUT_DIR)
#   scripts/readme_tables.sh rate      # "Not reproduced": the digits at lr 0.2, 30 000 updates, seed 1
#   scripts/readme_tables.sh           # all three
#   EPOCHS=1 scripts/readme_tables.sh digits   # a quick run of the pipeline (not the docs' figures)
# build/ must hold a Release build (BUILD_DIR= another); OUT_DIR= keeps the runs' JSON and logs, and
# with KEEP=1 a digits run whose log is already in OUT_DIR is not run again.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cli="${BUILD_DIR:-$repo/build}/app/cli/rbmscope-cli"
[ -x "$cli" ] || { echo "readme_tables.sh: $cli not found; build first (scripts/build.sh)" >&2; exit 2; }
out="${OUT_DIR:-$(mktemp -d)}"
mkdir -p "$out"
[ -n "${OUT_DIR:-}" ] || trap 'rm -rf "$out"' EXIT
what=("$@")
[ ${#what[@]} -gt 0 ] || what=(leaky digits rate)

leaky() {
  "$cli" leaky-table >"$out/leaky-exact-mh.json"
  "$cli" leaky-table --kernel paper-gibbs >"$out/leaky-paper-gibbs.json"
  python3 - "$out/leaky-exact-mh.json" "$out/leaky-paper-gibbs.json" <<'PY'
import json, sys
mh, pg = (json.load(open(p)) for p in sys.argv[1:3])
paper = {5: ("0.02", "1.76"), 10: ("0.04", "3.56"), 20: ("0.08", "7.95"), 30: ("0.13", "9.60")}  # Li et al., Table 2
def signed(x):
    return ("+" if x >= 0 else "\u2212") + "%.3f" % abs(x)
print("rbmscope-cli leaky-table; rbmscope-cli leaky-table --kernel paper-gibbs")
print()
print("| m | true log Z | AIS-Leaky, exact-mh | AIS-Energy, exact-mh | AIS-Leaky, paper-gibbs | AIS-Energy, paper-gibbs | paper AIS-Leaky | paper AIS-Energy |")
print("|---|---|---|---|---|---|---|---|")
for a, b in zip(mh["rows"], pg["rows"]):
    m = a["m"]
    print("| %d | %.2f | %s | %s | %s | %s | %s | %s |" % (m, a["true_log_z"], signed(a["ais_leaky_error"]),
          signed(a["ais_energy_error"]), signed(b["ais_leaky_error"]), signed(b["ais_energy_error"]), *paper.get(m, ("", ""))))
PY
}

# The table's 15 models (OUT_DIR/d_METHOD_SEED.json and .csv), two trainings at a time; also
# what scripts/measured_figures.sh ais-check runs AIS on.
digits_models() {
  local jobs=() m s
  for m in cd pcd pt lpt deo; do
    for s in 1 2 3; do
      local extra=()
      case $m in pt|lpt|deo) extra=(--gamma 0.7 --rungs 6) ;; esac
      [ "${KEEP:-0}" = 1 ] && [ -s "$out/d_${m}_$s.csv" ] && [ -s "$out/d_${m}_$s.json" ] && continue
      "$cli" train --data digits --shifts --binarize 0.5 --hidden 50 --batch 10 --lr 0.02 --method $m "${extra[@]}" \
        --seed $s --epochs "${EPOCHS:-100}" --monitor-every 2000 --monitor-examples 0 --ais-chains 100 --ais-steps 1000 --out "$out/d_${m}_$s.json" --log "$out/d_${m}_$s.csv" \
        --threads 1 >/dev/null &
      jobs+=($!)
      if [ ${#jobs[@]} -ge "${JOBS:-2}" ]; then wait "${jobs[0]}"; jobs=("${jobs[@]:1}"); fi
    done
  done
  wait
}

digits() {
  digits_models
  python3 - "$out" <<'PY'
import csv, statistics, sys
out = sys.argv[1]
levels = [-24, -22, -21, -20.5, -20]
print("for m in cd pcd pt lpt deo; do for s in 1 2 3; do rbmscope-cli train --data digits --shifts --binarize 0.5 "
      "--hidden 50 --batch 10 --lr 0.02 --method $m --seed $s --epochs 100 --monitor-every 2000 --monitor-examples 0 "
      "--ais-chains 100 --ais-steps 1000 ...; done; done")
print()
print("| method | \u221224 | \u221222 | \u221221 | \u221220.5 | \u221220 | mean, last 10 records | worst after 30 000 |")
print("|---|---|---|---|---|---|---|---|")
def fmt(x):
    return ("\u2212" if x < 0 else "") + "%.2f" % abs(x)
wander = []
for m in ["cd", "pcd", "pt", "lpt", "deo"]:
    runs = []
    for s in (1, 2, 3):
        with open("%s/d_%s_%d.csv" % (out, m, s)) as f:
            runs.append([(int(r["update"]), float(r["log_likelihood"])) for r in csv.DictReader(f)])
    cells = []
    for level in levels:
        first = [next((u for u, ll in run if ll >= level), None) for run in runs]
        reached = sorted(u for u in first if u is not None)
        never = len(runs) - len(reached)
        if not reached:
            cells.append("never")
            continue
        cell = "%d" % statistics.median(reached)  # over the seeds that reach the level
        cells.append(cell + (" (%d of %d never)" % (never, len(runs)) if never else ""))
    last10 = statistics.mean(ll for run in runs for _, ll in run[-10:])
    late = [ll for run in runs for u, ll in run if u >= 30000]
    print("| %s | %s | %s | %s |" % (m, " | ".join(cells), fmt(last10), fmt(min(late)) if late else "\u2014"))
    jumps = [[abs(b[1] - a[1]) for a, b in zip(run, run[1:]) if a[0] >= 30000] for run in runs]
    wander.append("%s: median %s, largest %s" % (m, "/".join("%.2f" % statistics.median(j) for j in jumps if j),
                                               "/".join("%.2f" % max(j) for j in jumps if j)))
print()
print("change between consecutive records from update 30 000 on, per seed (nats):")
for line in wander:
    print(line)
PY
}

rate() {  # the paper's summed gradient as a mean-gradient rate: lr 0.02 x batch 10 = 0.2
  local m extra
  for m in cd pcd pt lpt deo; do
    extra=()
    case $m in pt|lpt|deo) extra=(--gamma 0.7 --rungs 6) ;; esac
    "$cli" train --data digits --shifts --binarize 0.5 --hidden 50 --batch 10 --lr 0.2 --method $m "${extra[@]}" \
      --seed 1 --updates "${UPDATES:-30000}" --monitor-every 1000 --monitor-examples 0 --ais-chains 100 --ais-steps 1000 --out "$out/r_$m.json" --log "$out/r_$m.csv" >/dev/null
  done
  python3 - "$out" <<'PY'
import csv, sys
out = sys.argv[1]
print("rbmscope-cli train --data digits --shifts --binarize 0.5 --hidden 50 --batch 10 --lr 0.2 --method M --seed 1 "
      "--updates 30000 --monitor-every 1000 --monitor-examples 0 --ais-chains 100 --ais-steps 1000 (--gamma 0.7 --rungs 6 for pt, lpt, deo)")
def fmt(x):
    return ("\u2212" if x < 0 else "") + "%.1f" % abs(x)
for m in ["cd", "pcd", "pt", "lpt", "deo"]:
    with open("%s/r_%s.csv" % (out, m)) as f:
        run = [(int(r["update"]), float(r["log_likelihood"])) for r in csv.DictReader(f)]
    first = next((u for u, ll in run if ll >= -21), None)
    late = [ll for u, ll in run if u >= 3000] or [ll for _, ll in run]
    print("%s: first reaches \u221221 at update %s; records from update 3000 on between %s and %s"
          % (m, first if first is not None else "never", fmt(min(late)), fmt(max(late))))
PY
}

for w in "${what[@]}"; do
  case $w in
    leaky) leaky ;;
    digits) digits ;;
    digits-models) digits_models ;;
    rate) rate ;;
    *) echo "readme_tables.sh: unknown table '$w' (leaky, digits, digits-models, rate)" >&2; exit 2 ;;
  esac
  echo
done
