#!/usr/bin/env python3
"""diffprivlib's side of the quantile accuracy in docs/aggregates.md ("Quantiles"): IBM's
diffprivlib 0.6.6 `tools.quantile` (its exponential mechanism over the intervals between the sorted
values) at pure epsilon 1 on scikit-learn's diabetes data, 300 seeded repetitions each: the median
of `target` on [0, 400] and the 90th percentile of `bmi` on [15, 50], as the mean relative error
against the ceil(q n)-th smallest value. scripts/quantile-accuracy.mjs gives dpnoise's side.

Install diffprivlib from its repository's snapshot (pip install --no-deps) with scikit-learn, then
run from the repository root: python3 scripts/quantile_accuracy_diffprivlib.py [seeds, default 300]
"""
import csv
import math
import sys

import numpy as np

import diffprivlib_shim  # noqa: E402,F401  (before diffprivlib)

from diffprivlib import BudgetAccountant  # noqa: E402
from diffprivlib.tools import quantile  # noqa: E402

seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 300
rows = list(csv.DictReader(open("examples/data/diabetes.csv")))
for column, bounds, q in (("target", (0, 400), 0.5), ("bmi", (15, 50), 0.9)):
    x = np.array([float(r[column]) for r in rows])
    truth = np.sort(x)[max(0, math.ceil(q * len(x)) - 1)]
    errors = [
        abs(quantile(x, q, epsilon=1, bounds=bounds, random_state=seed, accountant=BudgetAccountant()) - truth) / abs(truth)
        for seed in range(seeds)
    ]
    print("%s q %s: mean relative error %.3f%%" % (column, q, 100 * np.mean(errors)))
