#!/usr/bin/env python3
"""Export scikit-learn's bundled diabetes data (Efron, Hastie, Johnstone and Tibshirani 2004) in
its original units to examples/data/diabetes.csv, for scripts/aggregate-accuracy.mjs.

load_diabetes(scaled=False): 442 patients, columns age, sex (1 or 2), bmi, bp, s1..s6 and target
(disease progression one year after baseline), with a header. Each value is written as the
shortest decimal that reads back as the same double (integers without ".0"), so the file is the
same on every platform and for every scikit-learn that ships the same data. The script checks
that the file reads back equal to load_diabetes before writing it.

Run from the repository root:   python3 scripts/diabetes.py   (scikit-learn 1.9.1 was used)
"""

import io
import os

import numpy as np
import sklearn
from sklearn.datasets import load_diabetes

diabetes = load_diabetes(scaled=False)
columns = [*diabetes.feature_names, "target"]
table = np.column_stack([diabetes.data, diabetes.target])
assert columns == ["age", "sex", "bmi", "bp", "s1", "s2", "s3", "s4", "s5", "s6", "target"], columns
assert table.shape == (442, 11), table.shape


def cell(x):
    # repr is the shortest round-tripping decimal: deterministic, and exact when read back.
    return str(int(x)) if x.is_integer() else repr(float(x))


text = ",".join(columns) + "\n" + "".join(",".join(cell(x) for x in row) + "\n" for row in table)
assert np.array_equal(np.loadtxt(io.StringIO(text), delimiter=",", skiprows=1), table)
out = os.path.join("examples", "data", "diabetes.csv")
with open(out, "w", encoding="ascii", newline="\n") as f:
    f.write(text)
print(f"wrote {out} ({len(text)} bytes, {table.shape[0]} rows) from scikit-learn {sklearn.__version__}")
