#!/usr/bin/env python3
"""Copy scikit-learn's bundled 8x8 digits (UCI "Optical Recognition of Handwritten Digits", test
set; CC BY 4.0) into examples/data/digits.csv.gz for examples/dpsgd-digits.mjs.

The file is scikit-learn's own sklearn/datasets/data/digits.csv.gz, byte for byte: 1797 rows of 64
pixel intensities (0 to 16) and the digit (0 to 9), no header. This script checks it against
sklearn.datasets.load_digits before writing it.

Run from the repository root:   python3 scripts/digits.py   (scikit-learn 1.9.1 was used)
"""

import gzip
import importlib.resources
import os

import numpy as np
import sklearn
from sklearn.datasets import load_digits

source = importlib.resources.files("sklearn.datasets") / "data" / "digits.csv.gz"
data = source.read_bytes()
rows = np.loadtxt(gzip.decompress(data).decode().splitlines(), delimiter=",")
digits = load_digits()
assert rows.shape == (1797, 65), rows.shape
assert np.array_equal(rows[:, :64], digits.data) and np.array_equal(rows[:, 64], digits.target)
out = os.path.join("examples", "data", "digits.csv.gz")
with open(out, "wb") as f:
    f.write(data)
print(f"wrote {out} ({len(data)} bytes) from scikit-learn {sklearn.__version__}")
