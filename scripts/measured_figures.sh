#!/usr/bin/env bash
# The docs' measured figures that no suite compares (every figure the docs
# shows comes from a command in the repository). Each subcommand reruns one measurement and prints
# every figure with a label; the Ctrl-C ones send the signal at a fixed delay and print the delay,
# what came out and the exit codes, and every one prints the machine's load (`uptime`), because
# timings and memory peaks vary with the machine. Some run a suite's case that prints its own
# timing (transport-esc, playback, tempering-playback, cancel-block, mpi-kill-rank) and keep those lines. The contracts
# behind them (exit 130, "complete": false, the partial fields, the bounds) are asserted by the
# suites the docs name next to each figure; this script only measures.
#
#   scripts/measured_figures.sh moments-ctrl-c [DELAY]  # ais on a 1000 x 1000 BRBM, SIGINT after DELAY s
#                                                       # (default 6) during its Gibbs target moments
#   scripts/measured_figures.sh cancel-block            # run_ais cancelled on a 400 x 400 GRBM, 2000 chains
#                                                       # (core.test_ais_runner's case, its printed line)
#   scripts/measured_figures.sh mpi-init [REPEATS]      # wall time of a plain CLI call and of the same call
#                                                       # with a singleton MPI_Init (RBMSCOPE_MPI=1), medians
#   scripts/measured_figures.sh mpi-ctrl-c [DELAY]      # mpirun -np 2 pt / ais, SIGINT to mpirun after DELAY s
#                                                       # (default 4)
#   scripts/measured_figures.sh mpi-kill-rank           # rank 1 of a 3-rank ais-sweep SIGKILLed: mpirun's message,
#                                                       # exit status and delay (cli.test_cli_mpi's case, its lines)
#   scripts/measured_figures.sh ais-check               # the digits training's AIS log-likelihood (100 chains x
#                                                       # 1000 steps) against 200 x 20 000 on the final models;
#                                                       # trains them first (minutes of CPU per run, see below)
#   scripts/measured_figures.sh transport-esc           # Esc during each view's job: GUI-thread time until Stopped
#                                                       # shows (tst_transport's keysDriveTheCurrentViewsJob, its lines)
#   scripts/measured_figures.sh playback                # the default four-mode AIS run: compute time, Space's replay
#                                                       # (tst_playback's defaultRunPlaysForSecondsWithMotion, its line)
#   scripts/measured_figures.sh tempering-playback      # four-mode tempering: compute time of the default run, and
#                                                       # a 1200-scan run shown at watch (tst_tempering_playback's lines)
#   scripts/measured_figures.sh unknown-key             # peak resident of `rbmscope-cli info` on a 30 MB model file
#                                                       # that is mostly an unknown key (test_cli_hostile's file)
#   scripts/measured_figures.sh npz-bomb                # peak resident and CPU of `rbmscope-cli info` refusing an .npz
#                                                       # whose (2, 2) member inflates to 1 GiB (test_cli_hostile's bomb)
#   scripts/measured_figures.sh notes5mb                # the app opening a session with 5 MB of notes and a 100 kB
#                                                       # name, offscreen, to a screenshot (wall and CPU time)
#   scripts/measured_figures.sh                         # the timing ones (all but ais-check)
#
# ais-check trains the digits table's 15 models with `scripts/readme_tables.sh digits-models` (OUT_DIR=
# keeps them, and with KEEP=1 a model already in OUT_DIR is not trained again), then runs `rbmscope-cli ais MODEL`
# (the base rate of the model's recorded training data, a linear schedule, as the training monitor
# does) at 100 x 1000 with the monitor's seed 4242, which must give the log's last log Z exactly,
# and at 200 x 20 000. Its figures are deterministic (fixed seeds, any thread count).
# Needs a Release build in build/ (BUILD_DIR= another) with rbmscope-cli, and for cancel-block
# tests/test_ais_runner, for mpi-kill-rank tests/cli_test_cli_mpi, for transport-esc, playback and
# tempering-playback tests/tst_transport, tests/tst_playback and tests/tst_tempering_playback, for notes5mb app/gui/rbmscope; builds nothing. MPI runs need mpirun; as root the script sets
# OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 and passes --oversubscribe.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$repo/build}"
cli="$build/app/cli/rbmscope-cli"
[ -x "$cli" ] || { echo "measured_figures.sh: $cli not found; build first (scripts/build.sh)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

load() { echo "uptime: $(uptime)"; }

# Runs a command with SIGINT at its default (a background job of a script would inherit it
# ignored), sends SIGINT after DELAY s and prints the delay, the time until it ended and its exit
# code; stdout goes to $tmp/out, stderr to $tmp/err.
interrupt_after() {  # DELAY COMMAND...
  python3 - "$tmp" "$@" <<'PY'
import signal, subprocess, sys, time
tmp, delay, cmd = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
with open(tmp + "/out", "wb") as out, open(tmp + "/err", "wb") as err:
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=out, stderr=err,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(max(0.0, delay - (time.monotonic() - t0)))
    alive = p.poll() is None
    sent = time.monotonic()
    if alive:
        p.send_signal(signal.SIGINT)
    code = p.wait()
    ended = time.monotonic()
code = 128 - code if code < 0 else code
print("SIGINT sent %.2f s after the start%s; ended %.3f s after the signal, exit code %d"
      % (sent - t0, "" if alive else " (it had already ended)", ended - sent, code))
PY
}

# A suite's case that prints its own measurement: SUITE CASE WHAT PATTERN. Runs
# build/tests/SUITE CASE (offscreen for Qt suites) and keeps the lines matching PATTERN, its
# verdict and the load before and after.
suite_case() {
  local t="$build/tests/$1"
  [ -x "$t" ] || { echo "measured_figures.sh: $t not found (ninja -C build $1)" >&2; exit 2; }
  echo "== $t \"$2\" ($3)"
  load
  QT_QPA_PLATFORM=offscreen "$t" "$2" 2>&1 | grep -E "$4|PASS|FAIL|^Totals" | sed 's/^QINFO *: *//'
  load
}

moments_ctrl_c() {
  local delay="${1:-6}" model="$tmp/brbm-1000x1000.json"
  # The model: n = m = 1000, W uniform in [-0.05, 0.05) from a fixed LCG (the 400 x 400 model of
  # cli.test_cli_interrupt's moments case, grown), zero biases: not enumerable, so `ais`'s default
  # --moments auto estimates the target moments by 100 Gibbs chains x 5100 sweeps.
  python3 - "$model" <<'PY'
import sys
n = m = 1000
s = 12345
def u():
    global s
    s = (s * 1103515245 + 12345) % 2**32
    return ((s >> 8) & 0xffff) / 65536.0 - 0.5
rows = ("[" + ",".join("%.6g" % (0.1 * u()) for _ in range(m)) + "]" for _ in range(n))
with open(sys.argv[1], "w") as f:
    f.write('{"format": "rbmscope-model", "version": 1, "kind": "brbm", "W": [' + ",".join(rows) + "], ")
    f.write('"b": [' + ",".join(["0"] * n) + '], "c": [' + ",".join(["0"] * m) + "]}")
PY
  echo "== moments-ctrl-c: rbmscope-cli ais BRBM-1000x1000 --progress jsonl, SIGINT after $delay s"
  load
  interrupt_after "$delay" "$cli" ais "$model" --progress jsonl
  python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
out = open(tmp + "/out").read()
lines = [json.loads(l) for l in open(tmp + "/err") if l.startswith("{")]
try:
    j = json.loads(out)
except ValueError:
    print("stdout is not one JSON object: %r" % out[:200]); sys.exit(1)
keys = ["complete", "phase", "moment_sweeps_done", "moment_sweeps", "moment_chains"]
print("stdout: {%s, ...}" % ", ".join('"%s": %s' % (k, json.dumps(j.get(k))) for k in keys))
rates = [l["chain_sweeps_per_s"] for l in lines if l.get("phase") == "moments" and "chain_sweeps_per_s" in l]
if rates:
    rate = rates[-1]
    total = j["moment_sweeps"] * j["moment_chains"] / rate
    print("moment phase: %.0f chain-sweeps/s (last progress line), so its %d x %d chain-sweeps take %.1f min"
          % (rate, j["moment_chains"], j["moment_sweeps"], total / 60))
print("progress lines: %d, last: %s" % (len(lines), json.dumps(lines[-1]) if lines else "none"))
PY
  load
}

cancel_block() {
  suite_case test_ais_runner "cancel during a long run" "400 x 400 GRBM, 2000 chains, cancelled after step 3" "cancelled after"
}

mpi_init() {
  local repeats="${1:-5}"
  command -v mpirun >/dev/null || { echo "measured_figures.sh: no mpirun" >&2; exit 2; }
  echo "== mpi-init: rbmscope-cli ais four-mode --steps 10 --chains 64 --seed 2, plain and with RBMSCOPE_MPI=1, $repeats runs each"
  load
  python3 - "$cli" "$repeats" <<'PY'
import os, statistics, subprocess, sys, time
cli, repeats = sys.argv[1], int(sys.argv[2])
cmd = [cli, "ais", "four-mode", "--steps", "10", "--chains", "64", "--seed", "2"]
for label, extra in (("plain call", {}), ("RBMSCOPE_MPI=1 (singleton MPI_Init)", {"RBMSCOPE_MPI": "1"})):
    env = dict(os.environ, **extra)
    walls = []
    for _ in range(repeats):
        t = time.monotonic()
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, check=True)
        walls.append(time.monotonic() - t)
    print("%-36s median %.2f s (min %.2f, max %.2f)" % (label, statistics.median(walls), min(walls), max(walls)))
PY
  load
}

mpi_ctrl_c() {
  local delay="${1:-4}" args
  command -v mpirun >/dev/null || { echo "measured_figures.sh: no mpirun" >&2; exit 2; }
  for args in "pt four-mode --chains 4 --sweeps 100000000" "ais four-mode --chains 128 --steps 5000000"; do
    echo "== mpi-ctrl-c: mpirun --oversubscribe -np 2 rbmscope-cli $args --threads 1, SIGINT to mpirun after $delay s"
    load
    # shellcheck disable=SC2086
    interrupt_after "$delay" mpirun --oversubscribe -np 2 "$cli" $args --threads 1
    python3 - "$tmp" <<'PY'
import json, sys
out = open(sys.argv[1] + "/out").read()
try:
    j = json.loads(out)
except ValueError:
    print("stdout is not one JSON object: %r" % out[:300]); sys.exit(1)
keys = [k for k in ("complete", "scans_done", "steps_done", "steps", "beta_reached") if k in j]
print("rank 0's stdout: {%s, ...}" % ", ".join('"%s": %s' % (k, json.dumps(j[k])) for k in keys))
PY
  done
  load
}

mpi_kill_rank() {
  suite_case cli_test_cli_mpi "a rank SIGKILLed mid-sweep" \
    "mpirun -np 3 ais-sweep, rank 1 killed after rank 0's first checkpoint" "mpirun said|mpirun ended"
}

ais_check() {
  local out="${OUT_DIR:-$tmp/digits}" m s
  mkdir -p "$out"
  echo "== ais-check: the digits table's 15 models (${EPOCHS:-100} epochs) in $out"
  load
  # Trained exactly as the digits table of docs/user/training.md (scripts/readme_tables.sh, its 15 runs).
  BUILD_DIR="$build" OUT_DIR="$out" "$repo/scripts/readme_tables.sh" digits-models
  for m in cd pcd pt lpt deo; do
    for s in 1 2 3; do
      "$cli" ais "$out/d_${m}_$s.json" --steps 1000 --chains 100 --seed 4242 --checkpoints 1 >"$out/ais_small_${m}_$s.json"
      "$cli" ais "$out/d_${m}_$s.json" --steps 20000 --chains 200 --seed 1 --checkpoints 1 >"$out/ais_big_${m}_$s.json"
    done
  done
  python3 - "$out" <<'PY'
import csv, json, sys
out, methods, seeds = sys.argv[1], "cd pcd pt lpt deo".split(), "1 2 3".split()
worst, bad = 0.0, 0
print("%-8s %8s %12s %14s %16s %14s" % ("run", "update", "log-lik", "log Z 100x1000", "log Z 200x20000", "log-lik change"))
for m in methods:
    for s in seeds:
        rec = list(csv.DictReader(open("%s/d_%s_%s.csv" % (out, m, s))))[-1]
        small = json.load(open("%s/ais_small_%s_%s.json" % (out, m, s)))
        big = json.load(open("%s/ais_big_%s_%s.json" % (out, m, s)))
        # The log's log Z must be the 100 x 1000 run's (same path, schedule and seed).
        same = abs(float(rec["log_z"]) - small["log_z"]) <= 1e-6 * max(1.0, abs(small["log_z"]))
        bad += not same
        diff = small["log_z"] - big["log_z"]  # log-likelihood(200 x 20 000) - log-likelihood(100 x 1000)
        worst = max(worst, abs(diff))
        print("%-8s %8s %12.3f %14.3f %16.3f %+14.3f%s" % ("%s_%s" % (m, s), rec["update"], float(rec["log_likelihood"]),
              small["log_z"], big["log_z"], diff, "" if same else "  (log's log Z %s differs!)" % rec["log_z"]))
print("largest |log-lik(100 x 1000) - log-lik(200 x 20 000)| over %d final models: %.3f nats"
      % (len(methods) * len(seeds), worst))
sys.exit(1 if bad else 0)
PY
  load
}

transport_esc() {
  suite_case tst_transport keysDriveTheCurrentViewsJob "Esc during each view's job, speed limit 1000 units/s" "Stopped shown"
}

playback() {
  suite_case tst_playback defaultRunPlaysForSecondsWithMotion "four-mode, Annealing view, default run, then Space" "computed in"
}

tempering_playback() {
  suite_case tst_tempering_playback defaultRunReplaysScrubsAndSteps "four-mode, Tempering view, default run" "computed and shown"
  suite_case tst_tempering_playback showIsPacedEngineIsNot "four-mode, Tempering view, 1200 scans at watch" "engine done after"
}

# Runs `rbmscope-cli info FILE` under /usr/bin/time (GNU time: peak resident set and CPU) and prints
# them with the exit code and the first line of stderr.
time_info() {  # FILE
  local rc=0
  /usr/bin/time -o "$tmp/time" -f "%M %U %S %e" "$cli" info "$1" >"$tmp/out" 2>"$tmp/err" || rc=$?
  python3 - "$1" "$rc" "$tmp" <<'PY'
import os, sys
path, rc, tmp = sys.argv[1], int(sys.argv[2]), sys.argv[3]
kb, user, sys_, wall = open(tmp + "/time").read().split()[-4:]
size = os.path.getsize(path)
print("rbmscope-cli info %s (%.1f MB): exit code %d, peak resident %.1f MB (%.2f x the file), CPU %.2f s (user %s + sys %s), wall %s s"
      % (os.path.basename(path), size / 1e6, rc, int(kb) / 1e3, int(kb) * 1024.0 / size, float(user) + float(sys_), user, sys_, wall))
err = open(tmp + "/err").read().strip().splitlines()
if err:
    print("stderr: %s" % err[0])
PY
}

unknown_key() {
  local f="$tmp/mostly-unknown.json"
  # test_cli_hostile's file: a 1 x 2 BRBM and a top-level key "extra" holding 5 million numbers.
  python3 - "$f" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write('{"kind": "brbm", "W": [[0.5, -0.25]], "b": [0.1], "c": [0, 0], "extra": [')
    f.write(",".join(["0.125"] * 5000000))
    f.write('], "name": "big but small"}\n')
PY
  echo "== unknown-key: /usr/bin/time rbmscope-cli info on a model file that is mostly an unknown key"
  load
  time_info "$f"
  load
}

npz_bomb() {
  local f="$tmp/bomb.npz"
  # test_cli_hostile's bomb: one member W.npy whose .npy header declares (2, 2) float64, followed
  # by zeros up to 1 GiB, deflated (about a megabyte).
  python3 - "$f" <<'PY'
import struct, sys, zlib
total = 1 << 30
d = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }"
d += " " * (64 - (10 + len(d) + 1) % 64) + "\n"
head = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(d)) + d.encode() + b"\0" * 32
z = zlib.compressobj(9, zlib.DEFLATED, -15, 9, zlib.Z_RLE)
crc = zlib.crc32(head)
parts = [z.compress(head)]
zeros = b"\0" * (1 << 20)
fed = len(head)
while fed + len(zeros) < total:
    crc = zlib.crc32(zeros, crc)
    parts.append(z.compress(zeros))
    fed += len(zeros)
rest = b"\0" * (total - fed)
crc = zlib.crc32(rest, crc)
parts += [z.compress(rest), z.flush()]
data = b"".join(parts)
name = b"W.npy"
local = struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, 0, 8, 0, 0x21, crc, len(data), total, len(name), 0) + name + data
central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 20, 20, 0, 8, 0, 0x21, crc, len(data), total, len(name),
                      0, 0, 0, 0, 0, 0) + name
end = struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 1, 1, len(central), len(local), 0)
open(sys.argv[1], "wb").write(local + central + end)
PY
  echo "== npz-bomb: /usr/bin/time rbmscope-cli info on an .npz whose W.npy declares (2, 2) and inflates to 1 GiB"
  load
  time_info "$f"
  load
}

notes5mb() {
  local app="$build/app/gui/rbmscope" s="$tmp/notes5mb.json" rc=0 wall user sys_ kb
  [ -x "$app" ] || { echo "measured_figures.sh: $app not found (ninja -C build rbmscope)" >&2; exit 2; }
  # tst_hostile_models' session: the four-mode preset with 5 MiB of notes and a 100 000-byte name.
  "$cli" convert four-mode "$tmp/four-mode.json" >/dev/null
  python3 - "$tmp/four-mode.json" "$s" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
line = "A line of notes, with <markup> & entities. "
notes = line * -(-(5 << 20) // len(line))  # as the test's loop: whole lines up to at least 5 MiB
m["notes"], m["name"] = notes, "n" * 100000
json.dump({"format": "rbmscope-session", "version": 1, "model": m}, open(sys.argv[2], "w"))
PY
  echo "== notes5mb: QT_QPA_PLATFORM=offscreen rbmscope --session notes5mb.json ($(stat -c %s "$s") bytes) --screenshot out.png"
  load
  QT_QPA_PLATFORM=offscreen RBMSCOPE_CONFIG_DIR="$tmp/config" /usr/bin/time -o "$tmp/time" -f "%e %U %S %M" \
    "$app" --session "$s" --screenshot "$tmp/out.png" >/dev/null 2>"$tmp/err" || rc=$?
  read -r wall user sys_ kb <"$tmp/time"
  echo "exit code $rc, screenshot $(stat -c %s "$tmp/out.png" 2>/dev/null || echo 0) bytes; wall $wall s, CPU $user s user + $sys_ s sys, peak resident $((kb / 1000)) MB"
  load
}

[ $# -gt 0 ] || set -- moments-ctrl-c cancel-block mpi-init mpi-ctrl-c mpi-kill-rank \
  transport-esc playback tempering-playback unknown-key npz-bomb notes5mb
while [ $# -gt 0 ]; do
  w="$1"; shift
  arg=()
  if [ $# -gt 0 ] && [[ "$1" =~ ^[0-9.]+$ ]]; then arg=("$1"); shift; fi  # DELAY or REPEATS
  case "$w" in
    moments-ctrl-c) moments_ctrl_c "${arg[@]}" ;;
    cancel-block) cancel_block ;;
    mpi-init) mpi_init "${arg[@]}" ;;
    mpi-ctrl-c) mpi_ctrl_c "${arg[@]}" ;;
    mpi-kill-rank) mpi_kill_rank ;;
    ais-check) ais_check ;;
    transport-esc) transport_esc ;;
    playback) playback ;;
    tempering-playback) tempering_playback ;;
    unknown-key) unknown_key ;;
    npz-bomb) npz_bomb ;;
    notes5mb) notes5mb ;;
    *) echo "measured_figures.sh: unknown subcommand '$w' (moments-ctrl-c, cancel-block, mpi-init, mpi-ctrl-c," \
         "mpi-kill-rank, ais-check, transport-esc, playback, tempering-playback, unknown-key, npz-bomb, notes5mb)" >&2; exit 2 ;;
  esac
done
