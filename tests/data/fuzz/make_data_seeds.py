# Writes the seed corpora of fuzz_idx and fuzz_csv (run from this directory:
# python3 make_data_seeds.py). fuzz_idx reads images bytes, optionally "#labels#" and labels bytes;
# fuzz_csv reads one option byte (see fuzz/fuzz_csv.cpp) and then the file.
import gzip
import struct

def idx(name, data):
    with open("idx/" + name, "wb") as f:
        f.write(data)

images = bytes([0, 10, 20, 30, 40, 50, 255, 0, 255, 0, 255, 0, 1, 2, 3, 4, 5, 6])  # 3 images, 2 x 3
img = struct.pack(">IIII", 0x803, 3, 2, 3) + images
lab = struct.pack(">II", 0x801, 3) + bytes([7, 0, 9])
idx("tiny", img)
idx("tiny-labels", img + b"#labels#" + lab)
idx("one-pixel", struct.pack(">IIII", 0x803, 1, 1, 1) + b"\x80")
idx("absurd", struct.pack(">IIII", 0x803, 60000, 100000, 100000) + bytes(16))
idx("truncated", img[:-8])
idx("too-long", img + b"\x00")
idx("zero-dim", struct.pack(">IIII", 0x803, 3, 0, 3))
idx("wrong-magic", struct.pack(">IIII", 0x80D, 3, 2, 3) + images)
idx("two-dims", struct.pack(">III", 0x802, 3, 6) + images)
idx("short-header", b"\x00\x00\x08\x03\x00")
idx("labels-count", img + b"#labels#" + struct.pack(">II", 0x801, 2) + bytes([7, 0]))
idx("labels-magic", img + b"#labels#" + struct.pack(">II", 0x803, 3) + bytes([7, 0, 9]))
idx("regression-size-beyond-2e63", bytes.fromhex("00000803e000209b00009b000000f90000000001"))  # found by fuzz_idx
idx("labels-short", img + b"#labels#" + struct.pack(">II", 0x801, 3) + bytes([7]))

def csv(name, mode, text):
    with open("csv/" + name, "wb") as f:
        f.write(bytes([mode]) + text)

HEADER_YES, HEADER_NO, LABEL_LAST, LABEL_FIRST, SEMI, TAB, SPACE, GZ = 1, 2, 4, 8, 16, 32, 48, 64
csv("tiny", LABEL_LAST, b"a,b,c,d,label\n0,1,0,1,3\n\n1,1,0,0,5\n0.5,-2,1e3,0,7\n")
csv("no-header", HEADER_NO, b"0,1\n1,0\r\n")
csv("semicolon", SEMI | LABEL_FIRST, b"1;0;1\n2;1;1\n")
csv("tab", TAB | HEADER_YES, b"x\ty\n 1\t+2 \n")
csv("space-image", SPACE, b"1 0 0 1\n0 1 1 0\n")
csv("broken-number", 0, b"1,2,3\n4,5,x\n")
csv("ragged", 0, b"1,2,3,4\n5,6,7\n")
csv("nan", 0, b"1,nan\n")
csv("inf", 0, b"1,inf\n")
csv("header-only", HEADER_YES, b"a,b\n")
csv("empty", 0, b"")
csv("label-fraction", LABEL_LAST, b"1,2,3.5\n")
csv("label-huge", LABEL_LAST, b"1,2,1e300\n")
csv("label-only", LABEL_LAST, b"3\n4\n")
digits = b"".join(b",".join(str((r * 7 + c) % 17).encode() for c in range(64)) + b"," + str(r % 10).encode() + b"\n"
                  for r in range(3))
csv("digits-gz", GZ, gzip.compress(digits, mtime=0))
csv("digits-gz-truncated", GZ, gzip.compress(digits, mtime=0)[:-12])
csv("digits-gz-range", GZ, gzip.compress(b"17," * 64 + b"1\n", mtime=0))
csv("digits-gz-columns", GZ, gzip.compress(b"1,2,3\n", mtime=0))
csv("not-gzip", GZ, b"1,2,3\n")
