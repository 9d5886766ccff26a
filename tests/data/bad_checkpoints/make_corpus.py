#!/usr/bin/env python3
"""Writes the checkpoint bad-file corpus (hostile input): one edited field per file, each refused by
`rbmscope-cli train --resume` / `ais-sweep --resume` with exit 2 and the message listed in
EXPECTED.tsv (tests/cli/test_cli_hostile.cpp runs them). Also refreshes the seed corpora of
fuzz/fuzz_train_checkpoint.cpp and fuzz/fuzz_sweep_checkpoint.cpp.

    python3 make_corpus.py path/to/rbmscope-cli      (run in this directory)

The commands below must match TRAIN_DATA and SWEEP in test_cli_hostile.cpp."""
import copy, json, os, subprocess, sys, tempfile

cli = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
fuzz = os.path.join(here, "..", "fuzz")
tmp = tempfile.mkdtemp()

def run(args):
    subprocess.run([cli] + args, check=True, stdout=subprocess.DEVNULL)

def base_train(method, extra):
    path = os.path.join(tmp, method + ".json")
    run(["train", "--data", "bars:3", "--hidden", "3", "--method", method, "--batch", "7", "--updates", "6",
         "--monitor-every", "3", "--seed", "2", "--checkpoint", path, "--out", os.path.join(tmp, "m.json")] + extra)
    return json.load(open(path))

SWEEP = ["ais-sweep", "four-mode", "--methods", "geometric:moment", "--steps", "10,20", "--chains", "20",
         "--repeats", "2", "--seed", "5"]
sweep_path = os.path.join(tmp, "sweep.json")
run(SWEEP + ["--checkpoint", sweep_path])
sweep = json.load(open(sweep_path))
lpt = base_train("lpt", ["--rungs", "2", "--chains", "4"])
pcd = base_train("pcd", ["--chains", "5"])

def put(doc, path, value):
    d = copy.deepcopy(doc)
    cur = d
    for k in path[:-1]:
        cur = cur[k]
    if value is DELETE:
        del cur[path[-1]]
    else:
        cur[path[-1]] = value
    return d

DELETE = object()
entries = []  # (file name, document or raw text, expected message)

def bad(name, doc, expected):
    entries.append((name, doc, expected))

# Training checkpoints: first the edits that used to crash a resumed run.
bad("train-updates-done-negative.json", put(lpt, ["updates_done"], -1), "updates_done must be an integer from 0 to 6, got -1")
bad("train-updates-done-huge.json", put(lpt, ["updates_done"], 1e30), "updates_done must be an integer from 0 to 6, got 1e+30")
bad("train-updates-done-fraction.json", put(lpt, ["updates_done"], 150.5), "updates_done must be an integer from 0 to 6, got 150.5")
bad("train-updates-done-string.json", put(lpt, ["updates_done"], "6"), "updates_done must be an integer from 0 to 6, got \"6\"")
bad("train-replica-negative.json", put(lpt, ["sampler", "replica_at", 0], -1), "sampler.replica_at[0] must be an integer from 0 to 65535, got -1")
r = copy.deepcopy(lpt["sampler"]["replica_at"]); r[1] = r[0]
bad("train-replica-not-permutation.json", put(lpt, ["sampler", "replica_at"], r), "replica_at of chain 0 is not a permutation of the replicas 0..2")
r = copy.deepcopy(lpt["sampler"]["replica_at"]); r[0] = 7
bad("train-replica-out-of-range.json", put(lpt, ["sampler", "replica_at"], r), "replica_at of chain 0 is not a permutation of the replicas 0..2")
bad("train-replica-short.json", put(lpt, ["sampler", "replica_at"], lpt["sampler"]["replica_at"][:-1]), "tempering state does not fit this sampler")
bad("train-lifted-direction.json", put(lpt, ["sampler", "lifted", 0, 1], 0), "lifted[0] must have a rung from 0 to 2 and a direction of 1 or -1")
bad("train-lifted-rung.json", put(lpt, ["sampler", "lifted", 0, 0], 9), "lifted[0] must have a rung from 0 to 2")
bad("train-end-state.json", put(lpt, ["sampler", "end_state", 0], 9), "sampler.end_state[0] must be an integer from 0 to 3, got 9")
bad("train-scan-index.json", put(lpt, ["sampler", "scan_index"], -3), "sampler.scan_index must be an integer from 0 to")
bad("train-sampler-rows.json", put(lpt, ["sampler", "V", "rows"], 11), "sampler.V.rows must be an integer from 12 to 12, got 11")
bad("train-sampler-missing.json", put(lpt, ["sampler"], DELETE), "sampler is missing")
bad("train-sampler-null.json", put(lpt, ["sampler"], None), "sampler is missing its state (null) for method lpt")
bad("train-options-hidden.json", put(lpt, ["options", "hidden"], 4), "does not match the options and data")
bad("train-options-hidden-zero.json", put(lpt, ["options", "hidden"], 0), "options.hidden must be an integer from 1 to 100000, got 0")
bad("train-options-hidden-huge.json", put(lpt, ["options", "hidden"], 10**12), "options.hidden must be an integer from 1 to 100000, got 1000000000000")
bad("train-options-k-fraction.json", put(lpt, ["options", "k"], 1.5), "options.k must be an integer from 1 to 100000, got 1.5")
bad("train-options-seed-negative.json", put(lpt, ["options", "seed"], -1), "options.seed must be an integer from 0 to 2^64 - 1, got -1")
bad("train-options-method.json", put(lpt, ["options", "method"], "sgd"), "options.method must be cd, pcd, pt, lpt, deo, leaky or mix, got \"sgd\"")
bad("train-options-lr-string.json", put(lpt, ["options", "learning_rate"], "0.1"), "options.learning_rate must be a finite number >= 0, got \"0.1\"")
bad("train-options-momentum.json", put(lpt, ["options", "momentum"], 2), "options.momentum must be a number from 0 to 1, got 2")
bad("train-options-temperatures.json", put(lpt, ["options", "temperatures"], 5000), "options.temperatures must be an integer from 0 to 1000, got 5000")
bad("train-options-missing.json", put(lpt, ["options", "batch"], DELETE), "options.batch is missing")
bad("train-velocity-shape.json", put(lpt, ["velocity", "b"], lpt["velocity"]["b"][:-1]), "velocity.b must be an array of 9 entries")
bad("train-velocity-W-rows.json", put(lpt, ["velocity", "W", "rows"], 2.5), "velocity.W.rows must be an integer")
bad("train-gradient-null.json", put(lpt, ["last_gradient", "c", 0], None), "last_gradient.c[0] must be a finite number, got null")
bad("train-status.json", put(lpt, ["status"], "paused"), "status must be running, finished, diverged or cancelled, got \"paused\"")
bad("train-acceptance-length.json", put(lpt, ["acceptance_sum"], [0.5] * 5), "acceptance_sum must be an array of 2 entries")
bad("train-acceptance-updates.json", put(lpt, ["acceptance_updates"], 99), "acceptance_updates must be an integer from 0 to 6, got 99")
bad("train-projected.json", put(lpt, ["projected"], "0x1"), "projected must be a string of 0 characters 0 or 1")
bad("train-seconds.json", put(lpt, ["seconds"], -1), "seconds must be a finite number >= 0, got -1")
bad("train-log-update.json", put(lpt, ["log", 0, "update"], 40), "log[0].update must be an integer from 0 to 6, got 40")
bad("train-log-not-object.json", put(lpt, ["log", 0], 3), "log[0] must be an object, got 3")
bad("train-model-kind.json", put(lpt, ["model", "kind"], "grbm"), "does not match the options and data")
bad("train-data-rows.json", put(lpt, ["data", "rows"], -5), "data.rows must be an integer from 0 to")
bad("train-pcd-chains-shape.json", put(pcd, ["sampler", "chains", "rows"], 6), "sampler.chains.rows must be an integer from 5 to 5, got 6")
bad("train-pcd-chains-cols.json", put(pcd, ["sampler", "chains", "cols"], 8), "sampler.chains: row 1 does not hold 8 numbers")
bad("train-version.json", put(lpt, ["version"], 2), "unsupported checkpoint version (expected 1)")
bad("train-lifted-past-end.json", put(lpt, ["sampler", "lifted", 0], [2, 1]), "lifted[0] moves up from the top rung 2, where there is no pair to propose")
bad("train-not-json.json", "{\"format\": \"rbmscope-train-checkpoint\", ", "not JSON (")
# ais-sweep checkpoints.
bad("sweep-steps-negative.json", put(sweep, ["runs", 0, "steps"], -1), "runs[0].steps must be an integer from 1 to")
bad("sweep-steps-fraction.json", put(sweep, ["runs", 0, "steps"], 10.5), "runs[0].steps must be an integer from 1 to")
bad("sweep-repeat-huge.json", put(sweep, ["runs", 0, "repeat"], 1e30), "runs[0].repeat must be an integer from 0 to 999999, got 1e+30")
bad("sweep-log-z-text.json", put(sweep, ["runs", 0, "log_z"], "abc"), "runs[0].log_z must be a number or \"nan\", \"inf\", \"-inf\", got \"abc\"")
bad("sweep-ess-null.json", put(sweep, ["runs", 1, "ess"], None), "runs[1].ess must be a number or")
bad("sweep-method-number.json", put(sweep, ["runs", 0, "method"], 3), "runs[0].method must be a string, got 3")
bad("sweep-missing-path-name.json", put(sweep, ["runs", 0, "path_name"], DELETE), "runs[0].path_name is missing")
bad("sweep-duplicate-run.json", put(sweep, ["runs", 1], sweep["runs"][0]), "runs[1] repeats run (geometric:moment, K = 10, repeat 0)")
bad("sweep-runs-object.json", put(sweep, ["runs"], {}), "runs must be an array, got {}")
bad("sweep-option-changed.json", put(sweep, ["options", 3, "value"], "10,30"), "--steps differs from the checkpoint's (10,30 there, 10,20 here)")
bad("sweep-option-number.json", put(sweep, ["options", 3, "value"], 7), "--steps differs from the checkpoint's (7 there, 10,20 here)")
bad("sweep-options-short.json", put(sweep, ["options"], sweep["options"][:2]), "differs from the checkpoint's ((not given) there")
# Non-finite or out-of-range numbers of a finished run (printed as null, or a mean ESS fraction above 1, before).
bad("sweep-log-z-inf.json", put(sweep, ["runs", 0, "log_z"], "inf"), "runs[0].log_z is inf; a finished run records a finite number")
bad("sweep-log-z-nan.json", put(sweep, ["runs", 1, "log_z"], "nan"), "runs[1].log_z is nan; a finished run records a finite number")
bad("sweep-ess-minus-inf.json", put(sweep, ["runs", 0, "ess"], "-inf"), "runs[0].ess is -inf; a finished run records a finite number")
bad("sweep-ci-nan.json", put(sweep, ["runs", 0, "ci95_high"], "nan"), "runs[0].ci95_high is nan; a finished run records a finite number")
bad("sweep-ess-fraction-5.json", put(sweep, ["runs", 0, "ess_fraction"], 5), "runs[0].ess_fraction must lie in [0, 1], got 5.0")

with open(os.path.join(here, "EXPECTED.tsv"), "w") as f:
    f.write("# file\tsubstring the one-line error must contain (tests/cli/test_cli_hostile.cpp); made by make_corpus.py\n")
    for name, doc, expected in entries:
        text = doc if isinstance(doc, str) else json.dumps(doc, indent=1)
        open(os.path.join(here, name), "w").write(text + ("" if isinstance(doc, str) else "\n"))
        f.write(name + "\t" + expected + "\n")

# Seeds: the valid checkpoints and a few broken ones per fuzz target.
for target, valid, prefix in (("train_checkpoint", {"lpt.json": lpt, "pcd.json": pcd}, "train-"),
                              ("sweep_checkpoint", {"sweep.json": sweep}, "sweep-")):
    d = os.path.join(fuzz, target)
    os.makedirs(d, exist_ok=True)
    for name, doc in valid.items():
        open(os.path.join(d, name), "w").write(json.dumps(doc, indent=1) + "\n")
    mine = [e for e in entries if e[0].startswith(prefix)]
    for name, doc, _ in mine[::4]:
        open(os.path.join(d, name), "w").write(doc if isinstance(doc, str) else json.dumps(doc, indent=1) + "\n")
print(len(entries), "corpus files")
