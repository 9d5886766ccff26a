#!/usr/bin/env bash
# The README's benchmark table (issue #8): rbmscope's AIS kernels against the Python peers
# (PyTorch float32 and NumPy float64, OpenBLAS, 2 threads) on the same 784x500 BRBM, all in one run.
# Not part of ctest: it takes a few minutes and its numbers depend on the machine and its load.
#
#   scripts/bench.sh                 # build/ must hold a Release build (scripts/build.sh)
#   BUILD_DIR=/tmp/b STEPS=100 scripts/bench.sh
#
# Needs python3-numpy python3-scipy python3-torch libopenblas0-pthread for the peer columns;
# without them those columns read "n/a". Prints the markdown table on stdout; raw JSON goes to
# $OUT_DIR (default a temporary directory, named on stderr).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$repo/build}"
cli="$build/app/cli/rbmscope-cli"
peer="${RBMSCOPE_PEER:-$repo/../shared/peers/ais_peer.py}"
threads="${THREADS:-2}"
steps="${STEPS:-100}"        # peer annealing steps (1000 chains each)
out="${OUT_DIR:-$(mktemp -d)}"
mkdir -p "$out"
[ -x "$cli" ] || { echo "bench.sh: $cli not found; build first (scripts/build.sh)" >&2; exit 2; }
echo "bench.sh: raw results in $out" >&2

export OMP_NUM_THREADS="$threads" OPENBLAS_NUM_THREADS="$threads" MKL_NUM_THREADS="$threads"
model="$out/peer-model.json"
peers_ok=0
if [ -f "$peer" ] && /usr/bin/python3 -c 'import numpy, scipy, torch' 2>/dev/null; then
    peers_ok=1
    /usr/bin/python3 "$peer" torch 784 500 1000 "$steps" "$threads" --save-model "$model" > "$out/torch.json"
    /usr/bin/python3 "$peer" numpy 784 500 1000 "$steps" "$threads" > "$out/numpy.json"
else
    echo "bench.sh: peer or its Python packages missing; the BRBM case uses rbmscope's own synthetic model" >&2
    echo '{}' > "$out/torch.json"
    echo '{}' > "$out/numpy.json"
fi
model_arg=()
[ "$peers_ok" = 1 ] && model_arg=(--model "$model")
"$cli" bench --threads "$threads" "${model_arg[@]}" > "$out/rbmscope.json"
uptime > "$out/load.txt"

/usr/bin/python3 - "$out" <<'PY'
import json, sys, os
out = sys.argv[1]
r = json.load(open(os.path.join(out, 'rbmscope.json')))
torch = json.load(open(os.path.join(out, 'torch.json')))
numpy = json.load(open(os.path.join(out, 'numpy.json')))
def fmt(x):
    return 'n/a' if x is None else f'{x:,.0f}'
print('| case | rbmscope (chain-sweeps/s) | PyTorch | NumPy | ratio | % of GEMM bound | GEMM GFLOP/s |')
print('|---|---:|---:|---:|---:|---:|---:|')
for c in r['cases']:
    peer = None
    pt = npy = '—'
    if c['case'] == 'brbm-784x500':
        if c['precision'] == 'float32':
            peer = torch.get('chain_sweeps_per_s'); pt = fmt(peer)
        else:
            peer = numpy.get('chain_sweeps_per_s'); npy = fmt(peer)
    ratio = f"{c['chain_sweeps_per_s'] / peer:.1f}×" if peer else '—'
    frac = c.get('fraction_of_gemm_bound')
    bound = f'{100 * frac:.0f} %' if frac is not None else '—'
    gemm = f"{c['gemm_gflops']:.1f}" if c.get('gemm_gflops') else '—'
    print(f"| {c['case']} {c['precision']} | {fmt(c['chain_sweeps_per_s'])} | {pt} | {npy} | {ratio} | {bound} | {gemm} |")
print()
print(f"Medians of 3 runs; GEMM = chains x n times n x m in the same run, scalar type and threads ({r['threads']}); "
      f"% of GEMM bound = chain-sweeps/s over GEMM rate / (4 n m flops). Load after the run: "
      f"{open(os.path.join(out, 'load.txt')).read().strip()}")
PY
