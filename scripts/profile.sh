#!/usr/bin/env bash
# Where the instructions of each `rbmscope-cli bench` case go, by callgrind (the SIMD kernels' evidence).
#
#   scripts/profile.sh                        # all five cases, both precisions where bench has them
#   scripts/profile.sh brbm-784x500 four-mode # only these
#   OUT_DIR=/tmp/prof scripts/profile.sh      # keep the callgrind.out files there (default: a temp dir)
#   RBMSCOPE_JOBS=2 scripts/profile.sh        # build build-prof/ with 2 jobs (default 1, to leave a core free)
#
# Each case runs `rbmscope-cli bench --case C --precision P --threads 1 --chains N --steps K
# --repeats 1` under valgrind --tool=callgrind (sizes in `sizes` below: small, so each run takes
# well under a minute even under callgrind). bench runs run_ais twice (a warm-up, then the timed
# run) and then the GEMM probe of its bound; callgrind dumps a profile part each time run_ais
# returns (--dump-after), so part 2 holds the timed run_ais alone, the case as bench times it
# (Gibbs sweeps, weights and the 200-resample bootstrap). The GEMM probe falls in the last part
# and is reported apart.
#
# Shares are of instructions executed (Ir), each instruction counted once, in the bucket of the
# source line it came from (the compiler inlines Philox, exp and the panels into the kernels, so
# functions alone cannot separate them): the program is built in build-prof/ with the Release
# flags plus -g1 (line tables; GCC's code is the same with and without it) on core's sources.
# Instructions are not time: callgrind sees no cache misses, no SIMD width, no frequency.
# Valgrind does not run AVX-512, so under it the dispatch picks the best path below that (printed).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$repo/build-prof}"
out="${OUT_DIR:-$(mktemp -d)}"
mkdir -p "$out"
command -v valgrind >/dev/null 2>&1 || "$repo/scripts/deps.sh" valgrind

# Chains x steps per case (bench's defaults: 1000 x 300 BRBM/GRBM, 1000 x 100 leaky, 100000 x 100
# toys). BRBM, GRBM and leaky take fewer steps (their bootstrap, 200 draws per chain, is a
# fraction of a percent of a run either way; it is printed); the toys keep bench's 100 steps, since
# there the bootstrap is as large as the sweeps and fewer steps would inflate its share.
declare -A sizes=(
  [brbm-784x500]="128 25" [grbm-108x200]="128 50" [leaky-3072x30]="42 16"
  [four-mode]="2000 100" [two-gaussians]="2000 100"
)
all=(brbm-784x500 grbm-108x200 leaky-3072x30 four-mode two-gaussians)
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=("${all[@]}")
for c in "${cases[@]}"; do
  [ -n "${sizes[$c]:-}" ] || { echo "profile.sh: unknown case '$c' (one of: ${all[*]})" >&2; exit 2; }
done

# build-prof/: Release, core compiled with -g1 (through a launcher, so the CLI's objects are the
# plain Release ones and come from ccache). Idempotent: ninja does nothing when it is up to date.
mkdir -p "$build"
launcher="$build/g1-launcher.sh"
cat > "$launcher" <<'EOF'
#!/bin/sh
# Adds line tables (-g1) to core's objects only; everything else compiles as in build/ (and comes
# from ccache), including the AVX-512 kernels, which valgrind cannot run.
# ccache is optional (nothing installs it): without it the compiler runs directly.
cache=; command -v ccache >/dev/null 2>&1 && cache=ccache
case " $* " in
  *" core/CMakeFiles/rbmscope_kernels_avx512"*) ;;
  *" core/CMakeFiles/"*) exec $cache "$@" -g1 ;;
esac
exec $cache "$@"
EOF
chmod +x "$launcher"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRBMSCOPE_BUILD_GUI=OFF \
    -DCMAKE_CXX_COMPILER_LAUNCHER="$launcher" >/dev/null
fi
CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(dirname "$repo")}" \
CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}" \
  nice -n 5 ninja -C "$build" -j "${RBMSCOPE_JOBS:-1}" rbmscope-cli >&2
cli="$build/app/cli/rbmscope-cli"

cpu=$(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
path_native=$("$cli" info --cpu | python3 -c 'import json,sys; print(json.load(sys.stdin)["simd_path"])')
path_vg=$(valgrind --tool=none -q "$cli" info --cpu | python3 -c 'import json,sys; print(json.load(sys.stdin)["simd_path"])')
echo "# scripts/profile.sh  $(date -u '+%Y-%m-%d %H:%M UTC')  (raw callgrind.out files: $out)"
echo "CPU: $cpu; dispatched path natively: $path_native, under valgrind: $path_vg (the path profiled)"
echo "load average (1, 5, 15 min) before: $(cut -d' ' -f1-3 /proc/loadavg)"

summary="$out/summary.tsv"
: > "$summary"
for c in "${cases[@]}"; do
  read -r chains steps <<<"${sizes[$c]}"
  precisions=(float64)
  case "$c" in brbm-*|grbm-*) precisions=(float32 float64) ;; esac
  for p in "${precisions[@]}"; do
    base="$out/callgrind.out.$c.$p"
    rm -f "$base" "$base".*
    args=(bench --case "$c" --precision "$p" --threads 1 --chains "$chains" --steps "$steps" --repeats 1)
    start=$(date +%s)
    nice -n 5 valgrind --tool=callgrind --callgrind-out-file="$base" --dump-after='rbm::run_ais(*' \
      --compress-strings=no --compress-pos=no "$cli" "${args[@]}" > "$base.json" 2> "$base.log" ||
      { echo "profile.sh: valgrind failed for $c $p (see $base.log)" >&2; exit 1; }
    secs=$(( $(date +%s) - start ))
    [ -f "$base.2" ] || { echo "profile.sh: no timed-run part for $c $p (see $base.log)" >&2; exit 1; }
    echo
    echo "## $c $p: rbmscope-cli ${args[*]}  (${secs} s under callgrind)"
    python3 - "$repo" "$c $p" "$base.2" "$base" $((chains * steps)) "$summary" <<'PY'
import re, sys

repo, label, part, probe_part, sweeps, summary = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6]

# vector_math.hpp holds both the transcendental functions and the uniform/normal conversions:
# each line goes to the function whose definition it lies in.
vm_funcs = []  # (first line, name)
with open(f"{repo}/core/kernels/vector_math.hpp") as f:
    for n, line in enumerate(f, 1):
        m = re.match(r"\s*inline\s+[\w:<> ]+?\s+(\w+)\(", line)
        if m:
            vm_funcs.append((n, m.group(1)))
def vm_func(line):
    name = "?"
    for first, fn in vm_funcs:
        if first <= line: name = fn
    return name
RNG_VM = {"unit_from_word", "unit_from_word_f", "unit_of_word", "normal_pair", "sincos_2pi", "quarter_turns", "log_positive"}

BUCKETS = ["products", "random", "math", "bookkeeping", "memory", "kernel loops", "rest"]
def bucket(ob, fl, fn, line):
    if re.search(r"bootstrap_log_mean_exp|bootstrap_replicates|estimate_log_z|effective_sample_size|summarize", fn):
        return "bookkeeping"
    if "libm" in ob or "GenericPacketMathFunctions" in fl:  # libm; Eigen's vectorized exp/log
        return "math"
    if re.search(r"mem(cpy|move|set)|malloc|calloc|realloc|free\b|_int_|operator new|operator delete|tcache", fn) and "rbmscope" not in ob:
        return "memory"
    if "Random123" in fl or fl.endswith("core/random/rng.hpp"):
        return "random"
    # The block Philox of a row of chains (kernels/philox_rows.cpp, Highway): its own lines and the
    # integer intrinsics inlined into it (they count under the intrinsic header's line).
    if fl.endswith("core/kernels/philox_rows.cpp") or re.search(r"fill_rows_u32|::flush\(rbm::detail::\w+::\(anonymous namespace\)::Staged", fn):
        return "random"
    if fl.endswith("core/kernels/vector_math.hpp"):
        return "random" if vm_func(line) in RNG_VM else "math"
    if fl.endswith("core/kernels/panels.hpp") or "Eigen/src/Core/products/" in fl or \
            re.search(r"gebp|gemm_pack|general_matrix_matrix|general_matrix_vector|triangular", fn):
        return "products"
    if re.search(r"/bits/(stl_vector|stl_uninitialized|stl_algobase|stl_construct|new_allocator|alloc_traits|stl_algo)\.h", fl):
        return "memory"
    if fl.endswith("core/kernels/line_aligned.hpp"):
        return "memory"
    # The active-unit lists (kernels/active_lists.hpp; before 22c0a23 they were in panels.hpp and
    # counted as products).
    if re.search(r"core/kernels/(brbm_block|grbm_block|leaky_block|gibbs)\.cpp$|core/kernels/active_lists\.hpp$|core/ais/path_\w+\.cpp$", fl):
        return "kernel loops"  # the step's own lines, in the kernels or in the path that calls them
    if "/core/ais/" in fl or "/core/numerics/" in fl:
        return "bookkeeping"
    return "rest"

def parse(path):
    """Self cost per (object, file, function, line); callees' costs are on their own lines."""
    costs = {}
    ob = fl = fi = fn = ""
    skip = False
    with open(path) as f:
        for raw in f:
            line = raw.rstrip("\n")
            if skip:  # the line after calls= carries the callee's inclusive cost
                skip = False
                continue
            if not line or line[0].isalpha():
                key, _, val = line.partition("=")
                if key == "ob": ob = val
                elif key == "fl": fl = fi = val
                elif key in ("fi", "fe"): fi = val
                elif key == "fn": fn = val; fi = fl
                elif key == "calls": skip = True
                continue
            parts = line.split()
            if len(parts) < 2 or not parts[0].isdigit(): continue
            k = (ob, fi, fn, int(parts[0]))
            costs[k] = costs.get(k, 0) + int(parts[1])
    return costs

costs = parse(part)
total = sum(costs.values())
by_bucket = dict.fromkeys(BUCKETS, 0)
by_line = {}
boot = 0
for (ob, fl, fn, line), ir in costs.items():
    b = bucket(ob, fl, fn, line)
    by_bucket[b] += ir
    if re.search(r"bootstrap_log_mean_exp|bootstrap_replicates", fn): boot += ir
    short = re.sub(r"^.*/(core|Eigen|Random123|bits|include)/", r"\1/", fl) if fl else "?"
    fshort = re.sub(r"\(.*", "", fn.replace("(anonymous namespace)", "{anon}"))[-60:]
    k = (b, f"{short}:{line}" if fl and fl != "???" else f"{fshort} [{ob.rsplit('/', 1)[-1]}]")
    by_line[k] = by_line.get(k, 0) + ir
probe_total = 0
for p in sorted(__import__("glob").glob(probe_part + ".*")):
    if re.search(r"\.\d+$", p) and int(p.rsplit(".", 1)[1]) >= 3:
        probe_total += sum(parse(p).values())
try:
    probe_total += sum(parse(probe_part).values())  # the final dump (program end), if written
except FileNotFoundError:
    pass

pct = lambda x: 100.0 * x / total if total else 0.0
print(f"timed run_ais: {total:,} Ir = {total / sweeps:,.0f} Ir per chain-sweep ({sweeps:,} chain-sweeps);"
      f" GEMM probe and exit, not counted: {probe_total:,} Ir")
names = {"products": "matrix products (panels.hpp, Eigen GEMM)",
         "random": "random numbers (Philox, uniform/Box-Muller conversion)",
         "math": "transcendental math (exp/log/sigmoid/softplus, libm)",
         "bookkeeping": "weights, log-sum, estimate and bootstrap (ais/runner, estimates, numerics)",
         "memory": "memory (vector growth/fill, memcpy/memset, malloc)",
         "kernel loops": "the step's own lines (kernels/*.cpp, ais/path_*.cpp: active lists, conversions, stores)",
         "rest": "rest (TBB, Eigen element-wise, other)"}
for b in BUCKETS:
    print(f"  {pct(by_bucket[b]):5.1f} %  {names[b]}")
print(f"  (of which the 200-resample bootstrap's own lines: {pct(boot):.1f} %)")
print("  top lines:")
for (b, where), ir in sorted(by_line.items(), key=lambda kv: -kv[1])[:8]:
    print(f"    {pct(ir):5.1f} %  {where}  [{b}]")
with open(summary, "a") as f:
    f.write("\t".join([label, str(round(total / sweeps))] + [f"{pct(by_bucket[b]):.1f}" for b in BUCKETS] + [f"{pct(boot):.1f}"]) + "\n")
PY
  done
done

echo
echo "## summary: share of the timed run's instructions (Ir), path $path_vg, --threads 1"
echo
echo "| case | Ir/chain-sweep | products | random | math | bookkeeping (bootstrap) | memory | step's own lines | rest |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
while IFS=$'\t' read -r label ir a b c d e f g boot; do
  printf '| %s | %s | %s | %s | %s | %s (%s) | %s | %s | %s |\n' "$label" "$ir" "$a" "$b" "$c" "$d" "$boot" "$e" "$f" "$g"
done < "$summary"
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
