# Writes the IDX fixtures of tests/data/train (run from this directory: python3 make_fixtures.py).
import struct

images = bytes([0, 10, 20, 30, 40, 50,   255, 0, 255, 0, 255, 0,   1, 2, 3, 4, 5, 6])  # 3 images, 2 x 3
with open("tiny-images-idx3-ubyte", "wb") as f:
    f.write(struct.pack(">IIII", 0x00000803, 3, 2, 3) + images)
with open("tiny-labels-idx1-ubyte", "wb") as f:
    f.write(struct.pack(">II", 0x00000801, 3) + bytes([7, 0, 9]))
# Header claims 60000 images of 100000 x 100000 pixels: must be refused before allocating.
with open("absurd-images-idx3-ubyte", "wb") as f:
    f.write(struct.pack(">IIII", 0x00000803, 60000, 100000, 100000) + bytes(16))
# Header fine, data cut short.
with open("truncated-images-idx3-ubyte", "wb") as f:
    f.write(struct.pack(">IIII", 0x00000803, 3, 2, 3) + images[:10])
