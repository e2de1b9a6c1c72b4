#!/usr/bin/env python3
"""Copy scikit-learn's bundled breast cancer data (UCI "Breast Cancer Wisconsin (Diagnostic)",
W. H. Wolberg, W. N. Street and O. L. Mangasarian, 1995; CC BY 4.0) into
examples/data/breast_cancer.csv for bench/training-accuracy.mjs.

The file is scikit-learn's own sklearn/datasets/data/breast_cancer.csv, byte for byte: a first line
"569,30,malignant,benign", then 569 rows of 30 features (means, standard errors and worst values of
ten measurements of cell nuclei) and the class (0 malignant, 1 benign). This script checks it
against sklearn.datasets.load_breast_cancer before writing it.

Run from the repository root:   python3 scripts/breast-cancer.py   (scikit-learn 1.9.1 was used)
"""

import importlib.resources
import io
import os

import numpy as np
import sklearn
from sklearn.datasets import load_breast_cancer

source = importlib.resources.files("sklearn.datasets") / "data" / "breast_cancer.csv"
data = source.read_bytes()
text = data.decode("ascii")
assert text.splitlines()[0] == "569,30,malignant,benign", text.splitlines()[0]
rows = np.loadtxt(io.StringIO(text), delimiter=",", skiprows=1)
cancer = load_breast_cancer()
assert rows.shape == (569, 31), rows.shape
assert np.array_equal(rows[:, :30], cancer.data) and np.array_equal(rows[:, 30], cancer.target)
out = os.path.join("examples", "data", "breast_cancer.csv")
with open(out, "wb") as f:
    f.write(data)
print(f"wrote {out} ({len(data)} bytes) from scikit-learn {sklearn.__version__}")
