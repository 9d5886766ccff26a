"""The Python module against the CLI (ctest python.test_module; docs/user/python.md).

Each result of the module must equal the CLI's JSON for the same arguments and seed, number for
number (both print the same doubles through the same code), apart from wall-clock timings and the
fields that name how the command was called. Environment: PYTHONPATH holds the build's python/
directory, RBMSCOPE_CLI the rbmscope-cli binary, RBMSCOPE_SOURCE_DIR the source tree.
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import numpy as np

import rbmscope

CLI = os.environ.get("RBMSCOPE_CLI", "rbmscope-cli")
SOURCE = os.environ.get("RBMSCOPE_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))

# Wall-clock measurements differ between any two runs; the call's own description differs between
# the CLI (a path, a preset) and the module (python:0).
TIMINGS = {"seconds", "chain_sweeps_per_s", "timing", "elapsed_s", "update_s", "monitor_s", "monitor_share",
           "wall_s", "sweeps_per_s"}
CALL = {"argv", "command_line", "model_file"}


def cli(*args):
    out = subprocess.run([CLI] + [str(a) for a in args], capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise AssertionError("rbmscope-cli %s failed (%d): %s" % (" ".join(map(str, args)), out.returncode, out.stderr))
    return json.loads(out.stdout)


def plain(v, drop):
    """The module's result as JSON values (arrays as lists), without the keys in `drop`."""
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, dict):
        return {k: plain(x, drop) for k, x in v.items() if k not in drop}
    if isinstance(v, list):
        return [plain(x, drop) for x in v]
    if isinstance(v, rbmscope.Model):
        return "Model"
    return v


class Module(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Results name their build; a module older than the CLI (only one target rebuilt) differs in it.
        # (threads and ranks describe the run, not the build: left out)
        def which(b):
            return {k: v for k, v in b.items() if k not in ("threads", "ranks")}
        cli_build, module_build = which(cli("exact", "preset:four-mode")["build"]), which(rbmscope.build())
        if cli_build != module_build:
            raise AssertionError("the module and rbmscope-cli come from different builds (%s, %s): build both "
                                 "(cmake --build build --target rbmscope-cli rbmscope_python)"
                                 % (module_build["commit"], cli_build["commit"]))

    def assertSameResult(self, module_result, cli_result, drop=TIMINGS):
        a, b = plain(module_result, drop), plain(cli_result, drop)
        self.assertEqual(sorted(a), sorted(b))
        for key in a:
            self.assertEqual(a[key], b[key], "field %r differs" % key)

    # --- the same numbers as the CLI ---

    def test_exact_preset_is_the_clis_result(self):
        r = rbmscope.exact(rbmscope.preset("four-mode"))
        self.assertIsInstance(r["log_z"], float)
        self.assertIsInstance(r["mean_v"], np.ndarray)
        self.assertEqual(r["cov_v"].shape, (2, 2))
        # Every field, the call's description and the build included (the same argv as given).
        self.assertSameResult(r, cli("exact", "preset:four-mode"), drop=set())
        self.assertEqual({k: v for k, v in r["build"].items() if k not in ("threads", "ranks")}, rbmscope.build())
        self.assertEqual(r["build"]["ranks"], 1)  # the module runs as one process
        self.assertGreaterEqual(r["build"]["threads"], 1)
        self.assertEqual(r["build"]["version"], cli("exact", "preset:four-mode")["build"]["version"])

    def test_ais_same_seed_same_numbers(self):
        m = rbmscope.preset("four-mode")
        r = rbmscope.ais(m, chains=64, steps=200, seed=7, reverse=True)
        c = cli("ais", "preset:four-mode", "--chains", 64, "--steps", 200, "--seed", 7, "--reverse")
        self.assertSameResult(r, c)
        self.assertEqual(r["log_z"], c["log_z"])  # bitwise

    def test_pt_sample_same_seed_same_numbers(self):
        m = rbmscope.preset("four-mode")
        self.assertSameResult(rbmscope.pt(m, chains=2, sweeps=300, seed=5),
                              cli("pt", "preset:four-mode", "--chains", 2, "--sweeps", 300, "--seed", 5))
        s = rbmscope.sample(m, chains=6, sweeps=20, seed=4)
        self.assertSameResult(s, cli("sample", "preset:four-mode", "--chains", 6, "--sweeps", 20, "--seed", 4))

    def test_logz_verdict_is_the_clis(self):
        r = rbmscope.logz(rbmscope.preset("four-mode"), budget="quick", no_exact=True, seed=3)
        c = cli("logz", "preset:four-mode", "--budget", "quick", "--no-exact", "--seed", 3)
        self.assertSameResult(r, c)
        self.assertEqual(r["log_z"], c["log_z"])  # bitwise
        self.assertIsInstance(r["agree"], bool)

    def test_model_from_arrays_equals_the_model_file(self):
        rng = np.random.default_rng(11)
        W, b, c = rng.normal(0, 0.7, (6, 4)), rng.normal(0, 0.3, 6), rng.normal(0, 0.3, 4)
        m = rbmscope.model(kind="brbm", W=W, b=b, c=c)
        self.assertEqual((m.kind, m.n, m.m), ("brbm", 6, 4))
        np.testing.assert_array_equal(m.arrays()["W"], W)  # every bit kept on the way in
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.json")
            with open(path, "w") as f:
                json.dump({"format": "rbmscope-model", "version": 1, "kind": "brbm", "W": W.tolist(),
                           "b": b.tolist(), "c": c.tolist()}, f)
            self.assertSameResult(rbmscope.exact(m), cli("exact", path), drop=TIMINGS | CALL)
            self.assertSameResult(rbmscope.ais(m, chains=32, steps=100, seed=3),
                                  cli("ais", path, "--chains", 32, "--steps", 100, "--seed", 3), drop=TIMINGS | CALL)
            # The same file read by the module (load) is the CLI's call exactly.
            self.assertSameResult(rbmscope.exact(rbmscope.load(path)), cli("exact", path), drop=set())
        r = rbmscope.exact(m)
        self.assertEqual(r["model_file"]["in_memory"], "python:0")

    def test_torch_like_tensors_go_through_numpy(self):
        class Tensor:  # what rbmscope uses of a torch.Tensor: detach().cpu().numpy()
            def __init__(self, a):
                self.a = a

            def detach(self):
                return self

            def cpu(self):
                return self

            def numpy(self):
                return self.a

        W = np.array([[1.0, -0.5], [0.25, 0.5], [0.0, 2.0]])
        a = rbmscope.exact(rbmscope.model(kind="brbm", W=Tensor(W), b=Tensor(np.zeros(3)), c=Tensor(np.ones(2))))
        b = rbmscope.exact(rbmscope.model(kind="brbm", W=W, b=np.zeros(3), c=np.ones(2)))
        self.assertEqual(a["log_z"], b["log_z"])
        # The closed sum over the 2^3 visible states: log sum_v exp(b.v) prod_j (1 + exp(c_j + v.W_j)).
        states = np.array([[(k >> i) & 1 for i in range(3)] for k in range(8)], dtype=float)
        log_terms = np.sum(np.logaddexp(0, 1.0 + states @ W), axis=1)
        self.assertAlmostEqual(a["log_z"], float(np.logaddexp.reduce(log_terms)), places=12)

    def test_loglik_of_array_data_equals_the_clis_file(self):
        rng = np.random.default_rng(3)
        X = (rng.random((25, 16)) < 0.3).astype(float)
        m = rbmscope.preset("bars-and-stripes")
        r = rbmscope.loglik(m, data=X)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "x.csv")
            np.savetxt(path, X, fmt="%.17g", delimiter=",")
            c = cli("loglik", "preset:bars-and-stripes", "--data", path, "--csv-header", "no")
        self.assertSameResult(r, c, drop=TIMINGS | CALL | {"data"})
        self.assertEqual(r["rows"], 25)
        self.assertSameResult(rbmscope.loglik(m, data="bars:4"), cli("loglik", "preset:bars-and-stripes", "--data",
                                                                        "bars:4"))

    def test_train_same_seed_same_model(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "t.json")
            c = cli("train", "--data", "bars:3", "--hidden", 4, "--updates", 40, "--seed", 2, "--out", path)
            r = rbmscope.train(data="bars:3", hidden=4, updates=40, seed=2)
            self.assertSameResult(r, c, drop=TIMINGS | CALL | {"model"})
            trained = r["model"]
            self.assertIsInstance(trained, rbmscope.Model)
            with open(path) as f:
                self.assertEqual(json.loads(trained.to_json())["W"], json.load(f)["W"])
            self.assertSameResult(rbmscope.exact(trained), cli("exact", path), drop=TIMINGS | CALL)

    # --- bad input: a clear Python exception ---

    def test_bad_arrays_raise_value_error(self):
        with self.assertRaisesRegex(ValueError, "b"):
            rbmscope.model(kind="brbm", W=np.zeros((3, 2)), b=np.zeros(4), c=np.zeros(2))
        W = np.zeros((3, 2))
        W[1, 1] = np.nan
        with self.assertRaises(ValueError):
            rbmscope.model(kind="brbm", W=W)
        with self.assertRaisesRegex(ValueError, "kind"):
            rbmscope.model(kind="nope", W=np.zeros((3, 2)))
        with self.assertRaisesRegex(ValueError, "preset"):
            rbmscope.preset("no-such-preset")
        with self.assertRaisesRegex(ValueError, "2-D"):
            rbmscope.loglik(rbmscope.preset("bars-and-stripes"), data=np.zeros((2, 2, 2)))
        with self.assertRaisesRegex(ValueError, "16"):  # the data's width is not the model's n
            rbmscope.loglik(rbmscope.preset("bars-and-stripes"), data=np.zeros((3, 5)))

    def test_bad_options_raise(self):
        m = rbmscope.preset("four-mode")
        with self.assertRaisesRegex(TypeError, "'stepz'.*did you mean 'steps'"):
            rbmscope.ais(m, stepz=10)
        with self.assertRaisesRegex(ValueError, "--steps"):
            rbmscope.ais(m, steps=-3)
        with self.assertRaisesRegex(ValueError, "--path"):
            rbmscope.ais(m, path="bogus")
        with self.assertRaisesRegex(ValueError, "unknown command"):
            rbmscope.run("exactt", m)
        # The module keeps working after errors.
        self.assertIn("log_z", rbmscope.exact(m))

    # --- Ctrl-C and progress ---

    def test_ctrl_c_stops_a_long_ais(self):
        # SIGINT from a timer thread once the annealing runs (the moment phase before it has its own,
        # coarser, checks: the CLI answers it as late), as a Ctrl-C at the terminal would arrive.
        m = rbmscope.preset("bars-and-stripes")
        sent = []

        def interrupt():
            sent.append(time.monotonic())
            os.kill(os.getpid(), signal.SIGINT)

        timers = []

        def on_progress(record):
            if record["phase"] == "annealing" and not timers:
                timers.append(threading.Timer(0.3, interrupt))
                timers[0].start()

        with self.assertRaises(KeyboardInterrupt) as caught:
            rbmscope.ais(m, chains=2000, steps=500_000, seed=1, progress=on_progress)
        stopped = time.monotonic()
        timers[0].join()
        self.assertEqual(len(sent), 1)
        self.assertLess(stopped - sent[0], 1.0, "KeyboardInterrupt within a second of the signal")
        partial = caught.exception.result
        self.assertFalse(partial["complete"])
        self.assertGreater(partial["beta_reached"], 0.0)
        self.assertLess(partial["beta_reached"], 1.0)
        self.assertIn("build", partial)
        # The next command runs normally (the interrupt flag is reset).
        self.assertTrue(rbmscope.ais(m, chains=8, steps=10, seed=1)["complete"])

    def test_other_threads_run_while_a_command_runs(self):
        # The GIL is released: a Python thread counts while ais runs (with the GIL held it would
        # count only in the 50 ms polls' gaps, or not at all).
        counts, stop = [0], threading.Event()

        def count():
            while not stop.is_set():
                counts[0] += 1

        t = threading.Thread(target=count)
        t.start()
        start = time.monotonic()
        rbmscope.ais(rbmscope.preset("bars-and-stripes"), chains=500, steps=300, seed=1)
        ran = time.monotonic() - start
        before = counts[0]
        stop.set()
        t.join()
        self.assertGreater(ran, 0.2)
        self.assertGreater(before, 10000)

    def test_progress_callback(self):
        records = []
        r = rbmscope.ais(rbmscope.preset("four-mode"), chains=200, steps=2000, seed=2, progress=records.append)
        self.assertTrue(records)
        self.assertTrue(all("phase" in x and "fraction" in x for x in records))
        self.assertTrue(records[-1]["final"])
        self.assertEqual(records[-1]["log_z"], r["log_z"])

        def fail(record):
            raise RuntimeError("stop here")

        with self.assertRaisesRegex(RuntimeError, "stop here"):
            rbmscope.ais(rbmscope.preset("four-mode"), chains=200, steps=200000, seed=2, progress=fail)

    def test_the_docs_example_runs(self):
        example = os.path.join(SOURCE, "docs", "examples", "numpy_train_then_evaluate.py")
        out = subprocess.run([sys.executable, example], capture_output=True, text=True, timeout=600,
                             env=dict(os.environ, RBMSCOPE_EXAMPLE_QUICK="1"))
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("log-likelihood", out.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
