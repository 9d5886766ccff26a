#!/usr/bin/env python3
"""Makes the NumPy fixtures of tests/core/test_model_io.cpp with real NumPy (kept for the record;
the test suite itself never runs Python).

  tests/data/models/*.npz, *.npy   valid files; the test checks their exact values
  tests/data/bad/*.npz, *.npy      broken files; tests/data/bad/EXPECTED.tsv lists the message
                                   each must produce (the .json files there are hand-written)

Run from anywhere:  /usr/bin/python3 tests/data/models/make_fixtures.py   (NumPy 1.24 was used)
"""
import io
import os
import struct
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
BAD = os.path.join(HERE, "..", "bad")


def out(name):
    return os.path.join(HERE, name)


def bad(name):
    return os.path.join(BAD, name)


def npy_bytes(arr, version=None):
    f = io.BytesIO()
    np.lib.format.write_array(f, arr, version=version)
    return f.getvalue()


def raw_npy(header, data=b"", version=(1, 0)):
    """A .npy file with a hand-written header dict (padded like numpy does)."""
    major, minor = version
    hlen_size = 2 if major == 1 else 4
    h = header.encode("latin1")
    pre = 6 + 2 + hlen_size
    pad = (64 - (pre + len(h) + 1) % 64) % 64
    h = h + b" " * pad + b"\n"
    fmt = "<H" if hlen_size == 2 else "<I"
    return b"\x93NUMPY" + bytes([major, minor]) + struct.pack(fmt, len(h)) + h + data


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def zip_members(path, members, compression=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w", compression=compression) as z:
        for name, data in members.items():
            z.writestr(name, data)


# ---------------------------------------------------------------- valid fixtures

# float32, Fortran order, kind as a 1-element '<U4' array. W[i, j] = (3i + j)/4 - 0.5.
W = np.asfortranarray((np.arange(6, dtype=np.float64).reshape(2, 3) / 4 - 0.5).astype(np.float32))
assert W.flags.f_contiguous and not W.flags.c_contiguous
np.savez(out("brbm-f32-fortran.npz"), W=W, b=np.array([0.25, -0.5], np.float32),
         c=np.array([1, 2, 3], np.float32), kind=np.array(["brbm"]))

# GRBM with hidden values {-1, 0, 1} stored as int64, per-unit sigma, kind as a 0-d '<U4' array.
np.savez(out("grbm-hidden3.npz"),
         W=np.array([[0.1, -0.2], [1 / 3, 0.7], [2.5, -1.25]]),
         b=np.array([0.5, -1.0, 2.0]), c=np.array([-0.3, 0.4]),
         sigma=np.array([1.0, 0.5, 2.0]), hidden_values=np.array([-1, 0, 1], np.int64),
         kind=np.array("grbm"))

# No kind: 0-d leakiness makes it leaky; compressed (deflate) members; no b (defaults to 0).
np.savez_compressed(out("leaky-inferred.npz"),
                    W=np.array([[0.3, -0.2], [0.1, 0.4], [-0.25, 0.05]]),
                    c=np.array([0.5, -0.5]), leakiness=np.float64(0.05))

# No kind: sigma makes it a GRBM with hidden values {0, 1}.
np.savez(out("grbm-inferred.npz"), W=np.array([[1.5], [-0.5]]), sigma=np.array([0.5, 2.0]))

# No kind and nothing else: a BRBM. Integer W ('<i4'), uint8 b, bool c, an unknown array.
np.savez(out("brbm-int-dtypes.npz"), W=np.array([[1, -2], [3, -4], [5, 6]], np.int32),
         b=np.array([0, 1, 255], np.uint8), c=np.array([True, False]),
         extra=np.array([1.0, 2.0]))

# A Gaussian with its annealing start stored under the "anneal_from/" prefix.
np.savez(out("gaussian-anneal.npz"), kind=np.array(["gaussian"]), mean=np.array([10.0, 0.0]),
         cov=np.array([[1.0, 0.85], [0.85, 1.0]]), name=np.array(["Zwei Gaußsche ✓"]),
         **{"anneal_from/kind": np.array(["gaussian"]), "anneal_from/mean": np.array([-10.0, 0.0]),
            "anneal_from/cov": np.array([[1.0, -0.85], [-0.85, 1.0]])})

# Lone .npy files: W of a BRBM with zero biases, in several encodings. W[i, j] = i - 2j + 0.125.
Wn = np.array([[i - 2 * j + 0.125 for j in range(2)] for i in range(3)])
np.save(out("W.npy"), Wn)
np.save(out("W-bigendian.npy"), Wn.astype(">f8"))
write(out("W-v2.npy"), npy_bytes(np.asfortranarray(Wn), version=(2, 0)))
write(out("W-v3.npy"), npy_bytes(Wn, version=(3, 0)))
np.save(out("W-int8.npy"), np.array([[-128, 127], [0, -1]], np.int8))

# ---------------------------------------------------------------- broken NumPy files

os.makedirs(BAD, exist_ok=True)
write(bad("empty.npz"), b"")
write(bad("empty.npy"), b"")
write(bad("not-a-zip.npz"), b"W = [[1, 2], [3, 4]]\n")
good = io.BytesIO()
np.savez(good, W=np.ones((4, 4)), b=np.zeros(4), c=np.zeros(4))
write(bad("truncated.npz"), good.getvalue()[: len(good.getvalue()) // 2])
np.savez(bad("no-W.npz"), b=np.zeros(3))
np.savez(bad("W-1d.npz"), W=np.ones(6))
np.savez(bad("kind-unknown.npz"), W=np.ones((2, 2)), kind=np.array(["xyz"]))
np.savez(bad("kind-number.npz"), W=np.ones((2, 2)), kind=np.float64(3))
zip_members(bad("huge-W.npz"), {"W.npy": raw_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1048576, 1048576), }")})
np.savez(bad("object-dtype.npz"), W=np.array([{"a": 1}, None], dtype=object))
np.savez(bad("complex-dtype.npz"), W=np.ones((2, 2), np.complex128))
np.savez(bad("sigma-zero.npz"), W=np.ones((2, 2)), sigma=np.array([1.0, 0.0]))
np.savez(bad("b-length.npz"), W=np.ones((2, 2)), b=np.zeros(3))
np.savez(bad("W-nan.npz"), W=np.array([[1.0, np.nan], [0.0, 1.0]]))
np.savez(bad("ambiguous-kind.npz"), W=0.1 * np.ones((2, 2)), sigma=np.ones(2), leakiness=np.float64(0.1))
np.savez(bad("leakiness-vector.npz"), W=0.1 * np.ones((2, 2)), leakiness=np.array([0.1, 0.2]))
zip_members(bad("garbage-member.npz"), {"W.npy": b"this is not an array"})
np.savez(bad("leaky-singular.npz"), W=np.array([[1.0, 0.0], [0.0, 0.5]]), kind=np.array(["leaky"]))
np.savez(bad("hidden-values-duplicate.npz"), W=np.ones((2, 2)), hidden_values=np.array([-1.0, 1.0, -1.0]))
np.savez(bad("cov-not-pd.npz"), kind=np.array(["gaussian"]), mean=np.zeros(2), cov=np.array([[1.0, 2.0], [2.0, 1.0]]))
np.savez(bad("anneal-from-bad.npz"), kind=np.array(["gaussian"]), mean=np.zeros(2), cov=np.eye(2),
         **{"anneal_from/kind": np.array(["gaussian"]), "anneal_from/mean": np.zeros(2)})
# A stored member with one data byte flipped: the zip CRC no longer matches.
crc = io.BytesIO()
zip_members(crc, {"W.npy": npy_bytes(np.ones((2, 2)))})
raw = bytearray(crc.getvalue())
at = raw.index(b"\x00\x00\x00\x00\x00\x00\xf0\x3f")  # the first 1.0
raw[at + 7] ^= 0x01
write(bad("crc-mismatch.npz"), bytes(raw))

f8 = np.ones((2, 3)).tobytes()
write(bad("bad-magic.npy"), b"\x93NUMPZ" + npy_bytes(np.ones((2, 3)))[6:])
write(bad("bad-version.npy"), b"\x93NUMPY\x04\x00" + npy_bytes(np.ones((2, 3)))[8:])
write(bad("truncated-data.npy"), npy_bytes(np.ones((2, 3)))[:-8])
write(bad("truncated-header.npy"), npy_bytes(np.ones((2, 3)))[:40])
write(bad("trailing-bytes.npy"), npy_bytes(np.ones((2, 3))) + b"\x00" * 8)
write(bad("no-shape.npy"), raw_npy("{'descr': '<f8', 'fortran_order': False, }", f8))
write(bad("header-syntax.npy"), raw_npy("{'descr': '<f8', 'fortran_order': False 'shape': (2, 3), }", f8))
write(bad("unknown-header-key.npy"), raw_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), 'x': 1, }", f8))
write(bad("huge-shape.npy"), raw_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1048576, 1048576), }"))
write(bad("negative-shape.npy"), raw_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (-2, 3), }", f8))
write(bad("fortran-not-bool.npy"), raw_npy("{'descr': '<f8', 'fortran_order': 1, 'shape': (2, 3), }", f8))
np.save(bad("three-d.npy"), np.ones((2, 2, 2)))
np.save(bad("one-d.npy"), np.ones(4))
np.save(bad("strings.npy"), np.array([["a", "b"], ["c", "d"]]))
write(bad("bool-byte.npy"), raw_npy("{'descr': '|b1', 'fortran_order': False, 'shape': (2, 2), }", b"\x00\x01\x02\x00"))
np.save(bad("structured.npy"), np.zeros((2,), dtype=[("x", "<f8"), ("y", "<f8")]))
np.save(bad("float16.npy"), np.ones((2, 2), np.float16))
np.save(bad("W-inf.npy"), np.array([[1.0, np.inf], [0.0, 1.0]]))
write(bad("model.txt"), b"not a model\n")
print("fixtures written")
