#!/usr/bin/env python3
"""Train a small binary RBM with CD-1 in NumPy, then evaluate it with rbmscope (docs/user/python.md).

The data are the 14 bars-and-stripes patterns of a 3x3 image. The model stays in NumPy arrays;
rbmscope.model() hands them to rbmscope, whose loglik gives the exact average log-likelihood
(9 visible units: log Z is enumerable) and whose ais estimates log Z as it would for a model too
large to enumerate. Run from the build tree with PYTHONPATH=build/python.
"""
import os

import numpy as np

import rbmscope


def bars_and_stripes(d):
    """Every d x d image whose rows are all on or off, or whose columns are (flattened, 0/1)."""
    rows = set()
    for k in range(2 ** d):
        bits = np.array([(k >> i) & 1 for i in range(d)], dtype=float)
        rows.add(tuple(np.repeat(bits, d)))  # horizontal bars: row i is all bits[i]
        rows.add(tuple(np.tile(bits, d)))    # vertical stripes: column j is all bits[j]
    return np.array(sorted(rows))


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def train_cd1(X, hidden, epochs, lr, rng):
    """CD-1 (Hinton 2002): one Gibbs step from the data for the negative phase, full batch."""
    n = X.shape[1]
    W = rng.normal(0, 0.1, (n, hidden))
    b = np.zeros(n)
    c = np.zeros(hidden)
    for _ in range(epochs):
        ph = sigmoid(X @ W + c)
        h = (rng.random(ph.shape) < ph).astype(float)
        pv = sigmoid(h @ W.T + b)
        v = (rng.random(pv.shape) < pv).astype(float)
        nh = sigmoid(v @ W + c)
        W += lr * (X.T @ ph - v.T @ nh) / len(X)
        b += lr * (X - v).mean(axis=0)
        c += lr * (ph - nh).mean(axis=0)
    return W, b, c


def main():
    quick = os.environ.get("RBMSCOPE_EXAMPLE_QUICK") == "1"  # the test suite runs a shorter version
    rng = np.random.default_rng(1)
    X = bars_and_stripes(3)
    W, b, c = train_cd1(X, hidden=8, epochs=500 if quick else 5000, lr=0.1, rng=rng)

    model = rbmscope.model(kind="brbm", W=W, b=b, c=c, name="CD-1 on bars-and-stripes 3x3")
    ll = rbmscope.loglik(model, data=X)
    print("average log-likelihood %.4f (log Z %.4f, %s); the best possible is log(1/14) = %.4f"
          % (ll["log_likelihood"], ll["log_z"], ll["log_z_method"], -np.log(len(X))))
    est = rbmscope.ais(model, chains=200, steps=1000 if quick else 10000, seed=1)
    print("AIS log Z %.4f, 95%% interval [%.4f, %.4f]; exact %.4f"
          % (est["log_z"], est["ci95"][0], est["ci95"][1], ll["log_z"]))
    print("made by rbmscope %s (commit %s, %s)" % (est["build"]["version"], est["build"]["commit"], est["build"]["simd"]))


if __name__ == "__main__":
    main()
