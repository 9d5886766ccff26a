"""rbmscope in Python: the rbmscope-cli commands on models held in memory (docs/user/python.md).

    import numpy as np, rbmscope
    m = rbmscope.model(kind="brbm", W=W, b=b, c=c)       # or rbmscope.preset("four-mode")
    rbmscope.exact(m)["log_z"]
    rbmscope.ais(m, chains=1000, steps=10000, seed=3)    # the CLI's options as keywords
    rbmscope.loglik(m, data=X)                           # X: rows of visible values

Every function runs the CLI's command in this process (the same code as rbmscope-cli) and returns
the CLI's JSON result as a dict, with lists of numbers (and lists of equal-length lists of numbers)
as NumPy arrays; result["build"] names the build that made it. Bad input raises ValueError with the
CLI's message, an unknown keyword TypeError; Ctrl-C stops the command and raises KeyboardInterrupt
with the partial result as its ``result`` attribute.
"""

import json
import numbers
import os
import tempfile

import numpy as np

from . import _rbmscope as _ext

__all__ = ["Model", "model", "preset", "load", "run", "exact", "ais", "pt", "sample", "train", "loglik", "logz",
           "meanfield", "info", "build", "commands"]


class Model:
    """A model for the commands: arrays held in memory (model()), a preset (preset()) or a file (load())."""

    def __init__(self, handle=None, arg=None, options=None):
        self._handle = handle    # _rbmscope._Model, passed in memory
        self._arg = arg          # a preset name or a path, passed as the CLI's MODEL argument
        self._options = options or []
        if handle is None:
            handle = _ext.preset(arg) if not os.path.exists(arg) else None
        self._shape = (handle.kind, handle.n, handle.m) if handle is not None else None

    @property
    def kind(self):
        return self._shape[0] if self._shape else None

    @property
    def n(self):
        return self._shape[1] if self._shape else None

    @property
    def m(self):
        return self._shape[2] if self._shape else None

    def to_json(self):
        """The model file's JSON text (docs/reference/model-files.md), for a model held in memory or a preset."""
        h = self._handle if self._handle is not None else _ext.preset(self._arg) if self._shape else None
        if h is None:
            raise ValueError("a model read from a file: see the file itself (%s)" % self._arg)
        return h.to_json()

    def arrays(self):
        """The model's arrays ("W", "b", "c", ...) as NumPy arrays, and its other keys as they are."""
        return _numpy_result(json.loads(self.to_json()))

    def __repr__(self):
        where = self._arg if self._arg is not None else "in memory"
        return "rbmscope.Model(%s, kind=%s, n=%s, m=%s)" % (where, self.kind, self.n, self.m)


def _as_array(x):
    """A NumPy array of doubles from an array-like (PyTorch tensors through NumPy)."""
    if hasattr(x, "detach") and hasattr(x, "cpu"):  # a torch.Tensor
        x = x.detach().cpu().numpy()
    return np.asarray(x, dtype=np.float64)


def _json_value(x):
    """Arrays as nested lists of floats: the model file's JSON (NaN and inf stay, for the loader to refuse)."""
    return _as_array(x).tolist()


def model(kind, W=None, b=None, c=None, *, sigma=None, hidden_values=None, leakiness=None, mean=None, cov=None,
          anneal_from=None, name=None, notes=None):
    """A model from arrays (NumPy, PyTorch through NumPy, nested lists), checked as a model file is.

    W is n x m (visible x hidden); b (n) and c (m) default to zeros. GRBM: sigma (n), hidden_values;
    leaky: leakiness; gaussian: mean (n) and cov (n x n) instead of W, b, c. anneal_from: a Model of
    the same n to anneal from. Bad shapes or values raise ValueError with the loader's message.
    """
    doc = {"format": "rbmscope-model", "version": 1, "kind": kind}
    if name is not None:
        doc["name"] = name
    if notes is not None:
        doc["notes"] = notes
    for key, value in (("W", W), ("b", b), ("c", c), ("sigma", sigma), ("hidden_values", hidden_values),
                       ("mean", mean), ("cov", cov)):
        if value is not None:
            doc[key] = _json_value(value)
    if leakiness is not None:
        doc["leakiness"] = float(leakiness)
    if anneal_from is not None:
        if not isinstance(anneal_from, Model):
            raise TypeError("anneal_from must be an rbmscope.Model")
        doc["anneal_from"] = json.loads(anneal_from.to_json())
    return Model(handle=_ext.model_from_json(json.dumps(doc), "model(kind=%r)" % (kind,)))


def preset(name):
    """A bundled toy model by name (rbmscope.run("presets") lists them). Unknown names raise ValueError."""
    if not isinstance(name, str):
        raise TypeError("preset() takes the preset's name")
    _ext.preset("preset:" + name)
    return Model(arg="preset:" + name)


def load(path, map=None):
    """A model file (.json, .npz, .npy, .mat, .h5), read by the command as the CLI reads it; map= as --map."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise ValueError("%s: no such file" % path)
    return Model(arg=path, options=["--map", _option_text(map)] if map is not None else [])


def _option_text(value):
    if isinstance(value, dict):
        return ",".join("%s=%s" % kv for kv in value.items())
    if isinstance(value, (list, tuple, np.ndarray)):
        return ",".join(_option_text(v) for v in np.asarray(value).ravel().tolist()) \
            if isinstance(value, np.ndarray) else ",".join(_option_text(v) for v in value)
    if isinstance(value, (np.generic,)):
        value = value.item()
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))  # the shortest text that reads back to the same double
    return os.fspath(value) if hasattr(value, "__fspath__") else str(value)


def _argv(kwargs):
    """steps=1000 -> --steps 1000; True -> --flag; False or None -> left out; lists comma-separated."""
    out = []
    for key, value in kwargs.items():
        if value is None or value is False:
            continue
        option = "--" + key.replace("_", "-")
        if value is True:
            out.append(option)
        else:
            out += [option, _option_text(value)]
    return out


def _is_number_list(v):
    return len(v) > 0 and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v)


def _numpy_result(v):
    """Lists of numbers, and lists of equal-length lists of numbers, as NumPy arrays; the rest as is."""
    if isinstance(v, dict):
        return {k: _numpy_result(x) for k, x in v.items()}
    if isinstance(v, list):
        if _is_number_list(v):
            return np.array(v, dtype=np.float64 if any(isinstance(x, float) for x in v) else np.int64)
        if v and all(isinstance(r, list) and _is_number_list(r) and len(r) == len(v[0]) for r in v):
            floats = any(isinstance(x, float) for r in v for x in r)
            return np.array(v, dtype=np.float64 if floats else np.int64)
        return [_numpy_result(x) for x in v]
    return v


class _DataFile:
    """data= given as an array: the rows written to a temporary CSV file (17 significant digits, so
    every double reads back to the same bits) that the command reads as it reads any CSV."""

    def __init__(self, data):
        self.path = None
        if data is None or isinstance(data, (str, os.PathLike)):
            self.spec = None if data is None else os.fspath(data)
            return
        X = _as_array(data)
        if X.ndim == 1:
            X = X.reshape(1, -1)
        if X.ndim != 2:
            raise ValueError("data must be a 2-D array (rows = examples), got shape %s" % (X.shape,))
        fd, self.path = tempfile.mkstemp(prefix="rbmscope-data-", suffix=".csv")
        with os.fdopen(fd, "w") as f:
            np.savetxt(f, X, fmt="%.17g", delimiter=",")
        self.spec = self.path

    def options(self):
        if self.spec is None:
            return []
        return ["--data", self.spec] + (["--csv-header", "no"] if self.path else [])

    def close(self):
        if self.path:
            os.unlink(self.path)
            self.path = None


def run(command, *models, progress=None, **kwargs):
    """Runs any rbmscope-cli command: run("ais", model, steps=100) is `rbmscope-cli ais MODEL --steps 100`.

    models are Model objects or strings (paths, preset names) for the command's positionals.
    progress: called with each progress record (a dict: phase, fraction, elapsed_s, eta_s, ...).
    data= may be an array (rows = examples) as well as a data spec.
    """
    argv, handles = [], []
    for m in models:
        if isinstance(m, Model):
            if m._handle is not None:
                argv.append("%s%d" % (_ext.in_memory_prefix, len(handles)))
                handles.append(m._handle)
            else:
                argv.append(m._arg)
            argv += m._options
        else:
            argv.append(os.fspath(m) if hasattr(m, "__fspath__") else str(m))
    data = _DataFile(kwargs.pop("data", None))
    try:
        if data.path and kwargs.get("csv_header") is not None:
            raise ValueError("csv_header describes a data file; data= given as an array has none")
        argv += data.options() + _argv(kwargs)
        callback = None
        if progress is not None:
            if not callable(progress):
                raise TypeError("progress must be callable")
            callback = lambda text: progress(json.loads(text))  # noqa: E731
        text, partial, interrupted = _ext.run(command, argv, handles, callback)
    finally:
        data.close()
    result = _numpy_result(json.loads(text))
    if interrupted:
        e = KeyboardInterrupt("rbmscope %s interrupted; its partial result is in this exception's .result" % command)
        e.result = result
        raise e
    return result


def exact(model, **kwargs):
    """exact: log Z and the exact quantities of a small model, as `rbmscope-cli exact MODEL`."""
    return run("exact", model, **kwargs)


def ais(model, **kwargs):
    """ais: an annealed importance sampling estimate of log Z (chains=, steps=, seed=, ...)."""
    return run("ais", model, **kwargs)


def pt(model, **kwargs):
    """pt: parallel tempering (log Z from the ladder, swap rates, ...)."""
    return run("pt", model, **kwargs)


def sample(model, **kwargs):
    """sample: the chains' final states (or exact samples with exact=True)."""
    return run("sample", model, **kwargs)


def meanfield(model, **kwargs):
    """meanfield: mean-field estimates of log Z."""
    return run("meanfield", model, **kwargs)


def info(model, **kwargs):
    """info: what the model is (kind, sizes, what can be computed exactly)."""
    return run("info", model, **kwargs)


def logz(model, **kwargs):
    """logz: one verdict on log Z -- forward and reverse AIS, tempering and exact side by side (budget=, no_exact=)."""
    return run("logz", model, **kwargs)


def loglik(model, data=None, **kwargs):
    """loglik: the average log-likelihood of data= (an array of rows, or a data spec)."""
    return run("loglik", model, data=data, **kwargs)


def train(data, **kwargs):
    """train: an RBM trained on data= (an array of rows, or a data spec).

    Without out=, result["model"] is the trained model in memory (an rbmscope.Model) instead of the
    path of the file the CLI wrote; with out=, it is that path as in the CLI."""
    out = kwargs.get("out")
    tmp = None
    if out is None:
        fd, tmp = tempfile.mkstemp(prefix="rbmscope-model-", suffix=".json")
        os.close(fd)
        kwargs["out"] = tmp
    try:
        try:
            result = run("train", data=data, **kwargs)
        except KeyboardInterrupt as e:  # train still writes --out when stopped
            if tmp is not None and hasattr(e, "result") and os.path.getsize(tmp) > 0:
                e.result["model"] = _read_model(tmp)
            raise
        if tmp is not None:
            result["model"] = _read_model(tmp)
        return result
    finally:
        if tmp is not None:
            os.unlink(tmp)


def _read_model(path):
    with open(path) as f:
        return Model(handle=_ext.model_from_json(f.read(), "trained model"))


def build():
    """Which build this module is (version, commit, compiler, SIMD path): the results' "build"."""
    return json.loads(_ext.build())


def commands():
    """The commands run() takes (as `rbmscope-cli --help` lists them)."""
    return list(_ext.commands())
