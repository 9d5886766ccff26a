#!/usr/bin/env bash
# Runs a fixed set of rbmscope-cli commands (exact, ais with every path, pt with every scheme,
# mean field, sampling, a sweep and a short training run) and writes each one's stdout, with the
# measured timing fields removed, to OUT_DIR/<name>.json. Two trees that should compute the same
# numbers give byte-identical directories:
#
#   scripts/cli_snapshot.sh OLD/build/app/cli/rbmscope-cli /tmp/old
#   scripts/cli_snapshot.sh build/app/cli/rbmscope-cli /tmp/new
#   diff -r /tmp/old /tmp/new          # or: scripts/cli_snapshot.sh --compare OLD_CLI NEW_CLI
#
# Timing fields (their values are measured, not computed): "seconds", "*_per_s", "ranks",
# "threads", "elapsed_s", "eta_s"; and the provenance keys "model_file", "argv", "command_line". Every command runs with --threads 2; results do not depend on it.
set -euo pipefail
if [ "${1:-}" = "--compare" ]; then
  [ $# -eq 3 ] || { echo "usage: $0 --compare OLD_CLI NEW_CLI" >&2; exit 2; }
  a=$(mktemp -d) b=$(mktemp -d)
  trap 'rm -rf "$a" "$b"' EXIT
  "$0" "$2" "$a" >/dev/null || exit 1
  "$0" "$3" "$b" >/dev/null || exit 1
  if diff -r "$a" "$b"; then
    echo "cli_snapshot: $(ls "$a" | wc -l) outputs identical"
  else
    echo "cli_snapshot: outputs differ" >&2
    exit 1
  fi
  exit 0
fi
[ $# -eq 2 ] || { echo "usage: $0 CLI OUT_DIR | $0 --compare OLD_CLI NEW_CLI" >&2; exit 2; }
cli=$(realpath "$1")
out=$2
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run() {  # NAME ARGS...
  local name=$1
  shift
  if ! (cd "$work" && "$cli" "$@" --threads 2) >"$work/out" 2>"$work/err"; then
    echo "cli_snapshot: '$*' failed: $(cat "$work/err")" >&2
    exit 1
  fi
  # Provenance ("model_file", "argv", "command_line": how to reopen the result) is left out too,
  # so a tree from before it was added compares equal.
  grep -vE '"(seconds|[a-z_0-9]*_per_s|ranks|threads|elapsed_s|eta_s|command_line)":' "$work/out" |
    sed -e '/^ "model_file": {$/,/^ },\{0,1\}$/d' -e '/^ "argv": \[$/,/^ \],\{0,1\}$/d' >"$out/$name.json"
  [ -s "$out/$name.json" ] || { echo "cli_snapshot: '$*' printed nothing" >&2; exit 1; }
  echo "$name"
}

run exact-four-mode exact four-mode
run exact-two-gaussians exact two-gaussians
run exact-leaky-2d exact leaky-2d
run exact-bars exact bars-and-stripes
run ais-geometric-moment ais four-mode --path geometric --base moment --steps 50 --chains 500 --seed 1
run ais-geometric-sigma ais four-mode --path geometric --base sigma --steps 50 --chains 500 --seed 2 --schedule sigmoid
run ais-geometric-uniform-reverse ais bars-and-stripes --base uniform --reverse --steps 200 --chains 200 --seed 3
run ais-cov ais four-mode --path cov --steps 10 --chains 1000 --seed 1
run ais-cov-perfect ais four-mode --path cov --perfect --steps 10 --chains 500 --seed 4
run ais-moments ais two-gaussians --path moments --perfect --steps 25 --chains 2000 --seed 1
run ais-moments-gibbs ais four-mode --path moments --steps 50 --chains 500 --seed 5
run ais-leaky ais leaky-2d --path leaky --kernel exact-mh --steps 100 --chains 500 --seed 1
run ais-energy ais leaky-2d --path energy --steps 100 --chains 500 --seed 6
run ais-float32 ais bars-and-stripes --base uniform --precision float32 --steps 100 --chains 300 --seed 7
run ais-sweep ais-sweep four-mode --methods geometric:moment,geometric:sigma,cov --steps 5,20 --chains 300 --repeats 2 --seed 1
run pt-reversible pt four-mode --scheme reversible --chains 2 --sweeps 3000 --seed 1
run pt-deo pt two-gaussians --scheme deo --ladder linear --replicas 9 --sweeps 3000 --chains 2 --seed 1
run pt-lifted-adaptive pt four-mode --scheme lifted --adaptive 2 --sweeps 3000 --seed 1
run pt-bars pt bars-and-stripes --scheme deo --chains 2 --sweeps 2000 --seed 3
run meanfield-1 meanfield four-mode --type 1
run meanfield-2 meanfield four-mode --type 2
run meanfield-tap meanfield four-mode --type tap --trace
run meanfield-sweep meanfield-sweep --trials 10
run sample-leaky sample leaky-2d --chains 50 --sweeps 50 --seed 1 --kernel exact-mh
run sample-exact sample bars-and-stripes --exact --chains 20 --seed 2
run train-pt train --data bars:4 --hidden 8 --method pt --updates 100 --lr 0.05 --seed 1 --out model.json
cp "$work/model.json" "$out/train-pt-model.json"
run train-pcd train --data bars:4 --hidden 6 --method pcd --updates 100 --lr 0.05 --seed 2 --out model.json
cp "$work/model.json" "$out/train-pcd-model.json"
