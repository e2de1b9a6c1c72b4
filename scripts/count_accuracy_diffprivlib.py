#!/usr/bin/env python3
"""diffprivlib's side of the accuracy in bench/RESULTS.md ("Counts and variances against diffprivlib"):
IBM's diffprivlib 0.6.6 at pure epsilon 1 on scikit-learn's diabetes data, seeds 0 to seeds - 1:
the number of rows of each `sex` (tools.count_nonzero, one release per group: each row is in one)
and the histogram of `age` over the bins [0, 10), ..., [90, 100] (tools.histogram). Both draw
GeometricTruncated noise (discrete Laplace of scale 1 / epsilon, sensitivity 1, truncated to
[0, n]). Prints the mean absolute error of the counts and of the bins. Then the variance of `bmi`
on [15, 50] and of `age` on [0, 100] (tools.var: LaplaceBoundedDomain with sensitivity
((U - L) / n)^2 (n - 1), the data set's size n taken as public), as the mean relative error against
the population variance. bench/counts.mjs gives dpnoise's side.

Install diffprivlib from its repository's snapshot (pip install --no-deps) with scikit-learn, then
run from the repository root: python3 scripts/count_accuracy_diffprivlib.py [seeds, default 300]
"""
import csv
import sys

import numpy as np

import diffprivlib_shim  # noqa: F401  (before diffprivlib)
from diffprivlib import BudgetAccountant  # noqa: E402
from diffprivlib.tools import count_nonzero, histogram, var  # noqa: E402

EDGES = list(range(0, 101, 10))

seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 300
rows = list(csv.DictReader(open("examples/data/diabetes.csv")))
sex = np.array([int(r["sex"]) for r in rows])
age = np.array([float(r["age"]) for r in rows])
truth_bins, _ = np.histogram(age, bins=EDGES)

count_errors = []
bin_errors = []
for seed in range(seeds):
    for g in (1, 2):
        released = count_nonzero(sex == g, epsilon=1, random_state=seed * 2 + g, accountant=BudgetAccountant())
        count_errors.append(abs(released - np.sum(sex == g)))
    released, _ = histogram(age, epsilon=1, bins=EDGES, range=(0, 100), random_state=seed, accountant=BudgetAccountant())
    bin_errors.extend(np.abs(released - truth_bins))
print("count: mean absolute error %.4f" % np.mean(count_errors))
print("histogram: mean absolute error %.4f" % np.mean(bin_errors))
for column, bounds in (("bmi", (15, 50)), ("age", (0, 100))):
    x = np.array([float(r[column]) for r in rows])
    truth = np.var(x)
    errors = [abs(var(x, epsilon=1, bounds=bounds, random_state=seed, accountant=BudgetAccountant()) - truth) / truth for seed in range(seeds)]
    print("variance(%s): mean relative error %.4f" % (column, np.mean(errors)))
