#!/usr/bin/env bash
# The MPI scaling figures of docs/user/cluster.md, all from ONE invocation: AIS on the 784x500 BRBM
# (random weights N(0, 0.05^2) as in bench's case, uniform base) at one process x 1 and x 2 threads and
# under mpirun at 1 and 2 ranks x 1 thread, then pt on the same model at one process and 2 ranks;
# chain-sweeps/s of each, whether the JSON (timing fields aside) is identical to the one-process
# run, the bytes each rank sent (RBMSCOPE_MPI_STATS), and the load average before and after.
# Not part of ctest: its numbers depend on the machine and its load.
#
#   scripts/mpi_scaling.sh                  # build/ must hold a Release build with MPI
#   CHAINS=1024 STEPS=200 scripts/mpi_scaling.sh
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cli="${BUILD_DIR:-$repo/build}/app/cli/rbmscope-cli"
chains="${CHAINS:-512}"
steps="${STEPS:-100}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
[ -x "$cli" ] || { echo "mpi_scaling.sh: $cli not found; build first (scripts/build.sh)" >&2; exit 2; }
command -v mpirun >/dev/null || { echo "mpi_scaling.sh: mpirun not found (apt-get install openmpi-bin)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# A 784x500 BRBM like bench's: weights N(0, 0.05^2), zero biases (fixed seed).
python3 - "$out/brbm.json" <<'PY'
import json, random, sys
rng = random.Random(1)
n, m = 784, 500
W = [[round(rng.gauss(0, 0.05), 6) for _ in range(m)] for _ in range(n)]
json.dump({"format": "rbmscope-model", "version": 1, "kind": "brbm", "W": W, "b": [0.0] * n, "c": [0.0] * m,
           "name": "random 784x500 BRBM, W ~ N(0, 0.05^2)"}, open(sys.argv[1], "w"))
PY
ais=(ais "$out/brbm.json" --base uniform --chains "$chains" --steps "$steps" --checkpoints 1 --seed 1)
pt=(pt "$out/brbm.json" --chains 8 --replicas 8 --sweeps 100 --seed 1)
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores; kernels: $("$cli" info --cpu | python3 -c 'import json,sys; print(json.load(sys.stdin)["simd_path"])')"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
run() {  # name, then the command; stdout to $out/name.json, stderr to $out/name.err
    local name=$1; shift
    RBMSCOPE_MPI_STATS=1 "$@" >"$out/$name.json" 2>"$out/$name.err"
}
run ais_1x1 "$cli" "${ais[@]}" --threads 1
run ais_1x2 "$cli" "${ais[@]}" --threads 2
run ais_np1 mpirun -np 1 "$cli" "${ais[@]}" --threads 1
run ais_np2 mpirun -np 2 "$cli" "${ais[@]}" --threads 1
run pt_1x2 "$cli" "${pt[@]}" --threads 2
run pt_np2 mpirun -np 2 "$cli" "${pt[@]}" --threads 1
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$out" "$chains" "$steps" <<'PY'
import json, os, re, sys
out, chains, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
skip = {"seconds", "chain_sweeps_per_s", "mpi", "argv", "command_line", "threads"}
def load(name):
    return json.load(open(os.path.join(out, name + ".json")))
def same(a, b):
    return {k: v for k, v in a.items() if k not in skip} == {k: v for k, v in b.items() if k not in skip}
def sent(name):
    total = [int(x) for x in re.findall(r"sent (\d+) bytes", open(os.path.join(out, name + ".err")).read())]
    return "—" if not total else " / ".join(f"{t:,}" for t in total)
print()
print(f"AIS, 784x500 BRBM, {chains} chains x {steps} steps, uniform base:")
print("| run | chain-sweeps/s | same JSON as 1 x 1 | bytes sent per rank |")
print("|---|---:|---|---:|")
ref = load("ais_1x1")
for name, label in [("ais_1x1", "1 process x 1 thread"), ("ais_1x2", "1 process x 2 threads"),
                    ("ais_np1", "mpirun -np 1 x 1 thread"), ("ais_np2", "mpirun -np 2 x 1 thread")]:
    j = load(name)
    print(f"| {label} | {j['chain_sweeps_per_s']:,.0f} | {'yes' if same(j, ref) else 'NO'} | {sent(name)} |")
print()
print("pt, same model, 8 chains x 8 replicas x 100 scans:")
print("| run | chain-sweeps/s | same JSON | bytes sent per rank |")
print("|---|---:|---|---:|")
a, b = load("pt_1x2"), load("pt_np2")
for name, label, j in [("pt_1x2", "1 process x 2 threads", a), ("pt_np2", "mpirun -np 2 x 1 thread", b)]:
    rate = j.get("chain_sweeps_per_s") or (8 * 8 * 100 / j["seconds"])
    print(f"| {label} | {rate:,.0f} | {'yes' if same(j, a) else 'NO'} | {sent(name)} |")
PY
