#!/usr/bin/env bash
# The benchmark table of docs/dev/performance.md: rbmscope's AIS kernels against the Python peers
# (PyTorch float32 and NumPy float64, OpenBLAS, 2 threads) on the same 784x500 BRBM, then the
# workloads beside AIS (scripts/bench_workloads.py): parallel tempering (8 chains x 16 replicas,
# DEO) against pt_peer.py, PCD-1 and CD-1 training on binarized Fashion-MNIST (batch 100, 100
# chains) against train_peer.py, and sample against the AIS kernel -- all in ONE run: every ratio
# printed is between numbers measured by this invocation, and the header names the CPU, the
# instruction set the kernels dispatched to and the load average before and after.
# Not part of ctest: it takes a few minutes and its numbers depend on the machine and its load.
#
#   scripts/bench.sh                 # build/ must hold a Release build (scripts/build.sh)
#   BUILD_DIR=/tmp/b STEPS=100 scripts/bench.sh
#   BENCH_ARGS="--repeats 1 --steps 60" scripts/bench.sh    # shorter rbmscope runs (extra `bench` arguments)
#   WORKLOADS=0 scripts/bench.sh     # AIS only; PT_SCANS, TRAIN_UPDATES, SAMPLE_SWEEPS size the others,
#                                    # WORKLOAD_REPEATS (7) runs of each, medians
#
# The peers run with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset, so OpenBLAS picks its best
# kernels for this processor. The peers' Debian packages are installed first (python3-numpy,
# python3-scipy, python3-torch, libopenblas0-pthread); a peer that still cannot run is reported as
# not run, with the reason: no figure is invented for it. Prints the markdown table on stdout; raw JSON goes to $OUT_DIR (default a
# temporary directory, named on stderr).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The peers' Python packages (Debian's, as ../shared/peers/README.md says); RBMSCOPE_BENCH_PEERS=0
# skips installing them (the peers are then reported as not run).
# Fashion-MNIST (Debian's dataset-fashion-mnist) is the training cases' data.
# (apt's output to stderr: stdout is the table.)
[ "${RBMSCOPE_BENCH_PEERS:-1}" = 0 ] || "$repo/scripts/deps.sh" python3-numpy python3-scipy python3-torch libopenblas0-pthread \
  dataset-fashion-mnist >&2
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
py=(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3)
cat /proc/loadavg > "$out/load_before.txt"
"$cli" info --cpu > "$out/cpu.json"
model="$out/peer-model.json"
: > "$out/peers.txt"
# peer NAME MODULES: runs ais_peer.py NAME when the modules import, else records why not.
run_peer() {
    local name=$1 modules=$2 save=()
    [ -f "$model" ] || save=(--save-model "$model")
    if [ ! -f "$peer" ]; then
        echo "$name: not run ($peer not found)" >> "$out/peers.txt"; echo '{}' > "$out/$name.json"
    elif ! "${py[@]}" -c "import $modules" 2>/dev/null; then
        echo "$name: not run (python3 cannot import $modules here)" >> "$out/peers.txt"; echo '{}' > "$out/$name.json"
    else
        "${py[@]}" "$peer" "$name" 784 500 1000 "$steps" "$threads" "${save[@]}" > "$out/$name.json"
    fi
}
run_peer torch "numpy, scipy, torch"
run_peer numpy "numpy, scipy"
model_arg=()
if [ -f "$model" ]; then
    model_arg=(--model "$model")
else
    echo "no peer ran: the BRBM case uses rbmscope's own synthetic 784x500 model" >> "$out/peers.txt"
fi
# shellcheck disable=SC2086  # BENCH_ARGS is a list of words
"$cli" bench --threads "$threads" "${model_arg[@]}" ${BENCH_ARGS:-} > "$out/rbmscope.json"
if [ "${WORKLOADS:-1}" != 0 ]; then
    # The workloads need a model file: the peers' one, else the peer's distribution drawn here.
    [ -f "$model" ] || /usr/bin/python3 - "$model" <<'PY'
import json, random, sys
rng = random.Random(1)
n, m = 784, 500
W = [[rng.gauss(0, 0.05) for _ in range(m)] for _ in range(n)]
json.dump({'format': 'rbmscope-model', 'version': 1, 'kind': 'brbm', 'name': 'bench BRBM 784x500', 'W': W, 'b': [rng.gauss(-1, 0.5) for _ in range(n)], 'c': [rng.gauss(-0.5, 0.5) for _ in range(m)]},
          open(sys.argv[1], 'w'))
PY
    RBMSCOPE_PEERS_DIR="${RBMSCOPE_PEERS_DIR:-$(dirname "$peer")}" \
        "$repo/scripts/bench_workloads.py" "$out" "$cli" "$model" "$threads" > "$out/workloads.md"
fi
cat /proc/loadavg > "$out/load_after.txt"

/usr/bin/python3 - "$out" <<'PY'
import json, sys, os
out = sys.argv[1]
r = json.load(open(os.path.join(out, 'rbmscope.json')))
cpu = json.load(open(os.path.join(out, 'cpu.json')))
torch = json.load(open(os.path.join(out, 'torch.json')))
numpy = json.load(open(os.path.join(out, 'numpy.json')))
model = 'unknown'
for line in open('/proc/cpuinfo'):
    if line.startswith('model name'):
        model = line.split(':', 1)[1].strip()
        break
def fmt(x):
    return 'n/a' if x is None else f'{x:,.0f}'
def load(name):
    return ' '.join(open(os.path.join(out, name)).read().split()[:3])
print(f"CPU: {model}; kernels: {cpu['simd_path']} (processor: {cpu['cpu_features']}); threads {r['threads']}")
print(f"load average (1, 5, 15 min) before: {load('load_before.txt')}; after: {load('load_after.txt')}")
for line in open(os.path.join(out, 'peers.txt')):
    print(line.strip())
print()
print('| case | rbmscope (chain-sweeps/s) | PyTorch | NumPy | ratio | GEMM bound GFLOP/s | % of GEMM bound |')
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
    print(f"| {c['case']} {c['precision']} | {fmt(c['chain_sweeps_per_s'])} | {pt} | {npy} | {ratio} | {gemm} | {bound} |")
print()
print(f"Medians of {len(r['cases'][0]['chain_sweeps_per_s_all'])} runs. GEMM bound = chains x n times n x m products in the same run, same scalar type, "
      f"threads and chain blocks, with the {r.get('simd_path', '?')} kernels (the best this processor runs unless "
      f"RBMSCOPE_SIMD forces another); % of GEMM bound = chain-sweeps/s over (GEMM rate / 4 n m flops).")
workloads = os.path.join(out, 'workloads.md')
if os.path.exists(workloads):
    print(open(workloads).read().rstrip())
PY
