#!/usr/bin/env python3
"""diffprivlib's side of scripts/private-bounds-accuracy.mjs: the mean absolute error of
diffprivlib.tools.mean with bounds=None, at epsilon 1, over 300 seeded repetitions, on the columns
age, bmi, bp and target of scikit-learn's diabetes data (examples/data/diabetes.csv).

With bounds=None diffprivlib takes the column's minimum and maximum from the data itself and warns
(PrivacyLeakWarning): those bounds are not private, so this is a baseline that spends nothing on
them, and its mean's sensitivity (max - min) / n takes n as known.

Run from the repository root (diffprivlib 0.6.6 was used):
    python3 scripts/private_bounds_diffprivlib.py > /tmp/private-bounds-diffprivlib.json
"""

import csv
import json
import warnings

import numpy as np
import sklearn.tree._tree

# diffprivlib 0.6.6 imports these two dtypes of scikit-learn's tree module at import time (for its
# forests); scikit-learn 1.9 no longer has them. The tools used here never touch trees.
for name, dtype in (("DTYPE", np.float32), ("DOUBLE", np.float64)):
    if not hasattr(sklearn.tree._tree, name):
        setattr(sklearn.tree._tree, name, dtype)

import diffprivlib  # noqa: E402
from diffprivlib.tools import mean  # noqa: E402

EPSILON = 1.0
REPS = 300
COLUMNS = ["age", "bmi", "bp", "target"]

with open("examples/data/diabetes.csv", newline="") as f:
    rows = list(csv.DictReader(f))

out = {"diffprivlib": diffprivlib.__version__, "epsilon": EPSILON, "reps": REPS, "columns": {}}
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # PrivacyLeakWarning: bounds from the data, the point of this baseline
    for column in COLUMNS:
        x = np.array([float(r[column]) for r in rows])
        truth = float(np.mean(x))
        errors = [abs(float(mean(x, epsilon=EPSILON, bounds=None, random_state=rep)) - truth) for rep in range(REPS)]
        out["columns"][column] = {"truth": truth, "min": float(x.min()), "max": float(x.max()), "mae": float(np.mean(errors))}
print(json.dumps(out, indent=2))
