#!/usr/bin/env python3
"""The diffprivlib rows of the README's accuracy tables (scripts/aggregate-accuracy.mjs prints the
rest): IBM's diffprivlib tools, one mechanism per statistic with the budget split evenly, at pure
epsilon 1, on scikit-learn's diabetes data and on the 1e7 synthetic rows of aggregate-accuracy.mjs.

Per group (count and the means of the columns), each statistic gets epsilon / (1 + columns): a
row is in one group only, so the groups compose in parallel and each group's statistics add up to
epsilon, as a diffprivlib user would argue (dpnoise too counts a row in one group when each row is
its own unit). The count is tools.count_nonzero(group == g) over all rows, the mean tools.mean of
the group's values with the declared bounds: its sensitivity (upper - lower) / n takes the group's
size n as known, which dpnoise does not (its means divide by the noisy count).

The diabetes rows call the tools themselves. The synthetic rows draw the mechanisms those tools
draw (GeometricTruncated for the count, LaplaceTruncated with sensitivity (upper - lower) / n for
the mean) on the exact aggregates, computed once; on the diabetes data with the same seeds that
simulation is checked to give the tools' own releases.

Run from the repository root (diffprivlib 0.6.6 was used; about 15 s):
    python3 scripts/aggregate_accuracy_diffprivlib.py --json /tmp/diffprivlib.json
and pass the JSON to scripts/aggregate-accuracy.mjs. Without --json it prints its own tables.
"""

import argparse
import json
import os

import numpy as np

import diffprivlib_shim  # noqa: E402,F401  (before diffprivlib)

import diffprivlib  # noqa: E402
from diffprivlib import BudgetAccountant  # noqa: E402
from diffprivlib.mechanisms import GeometricTruncated, LaplaceTruncated  # noqa: E402
from diffprivlib.tools import count_nonzero, mean  # noqa: E402

EPSILON = 1.0
REPS = 1000
DIABETES = {"age": (0, 100), "bmi": (15, 50), "bp": (50, 150), "target": (0, 400)}
SYNTHETIC = {"age": (0, 100), "income": (0, 500000), "hours": (0, 80)}
# The synthetic rows: the same counter-based hash and formulas as aggregate-accuracy.mjs.
ROWS = 10_000_000
SEED = 20261125
SHARES = np.cumsum([0.4, 0.3, 0.15, 0.1, 0.05])
LABEL = "diffprivlib tools, epsilon / {k} per statistic"
PRIVACY = "epsilon 1, Laplace (geometric for counts)"


def hash32(x):
    # lowbias32 (C. Wellons) on uint32 arrays: the multiplications wrap as Math.imul's do.
    x = x ^ (x >> np.uint32(16))
    x = x * np.uint32(0x7FEB352D)
    x = x ^ (x >> np.uint32(15))
    x = x * np.uint32(0x846CA68B)
    return x ^ (x >> np.uint32(16))


def synthetic():
    """The synthetic table: group index (0 to 4) and the three columns."""
    i = np.arange(ROWS, dtype=np.uint32)
    u = [(hash32(hash32(np.uint32(4) * i + np.uint32(j)) ^ np.uint32(SEED)).astype(np.float64) + 0.5) / 2**32 for j in range(4)]
    g = np.searchsorted(SHARES, u[0], side="right")
    gf = g.astype(np.float64)
    return g, {
        "age": 18 + 62 * u[1] + 3 * gf,
        "income": 10000 + 150000 * u[2] * u[2] * (1 + 0.2 * gf),
        "hours": 5 + 55 * u[3] + 2 * gf,
    }


def relative_errors(released, truth):
    """Mean over groups and repetitions of |released - true| / |true|, per statistic."""
    return {s: float(np.mean(np.abs(released[s] - truth[s]) / np.abs(truth[s]))) for s in truth}


def simulate(truth, sizes, total, bounds, seed_of):
    """The tools' mechanisms on exact aggregates: per repetition and group, count then means."""
    k = 1 + len(bounds)
    out = {s: np.empty((REPS, len(sizes))) for s in truth}
    for r in range(REPS):
        rng = np.random.RandomState(seed_of(r))
        for g, n in enumerate(sizes):
            m = GeometricTruncated(epsilon=EPSILON / k, sensitivity=1, lower=0, upper=total, random_state=rng)
            out["count"][r, g] = m.randomise(int(truth["count"][g]))
            for c, (lower, upper) in bounds.items():
                m = LaplaceTruncated(epsilon=EPSILON / k, delta=0, sensitivity=(upper - lower) / n, lower=lower, upper=upper, random_state=rng)
                out[f"mean({c})"][r, g] = m.randomise(truth[f"mean({c})"][g])
    return out


def diabetes():
    with open(os.path.join("examples", "data", "diabetes.csv")) as f:
        header = f.readline().strip().split(",")
        table = np.loadtxt(f, delimiter=",")
    col = {name: table[:, j] for j, name in enumerate(header)}
    groups = [1, 2]
    k = 1 + len(DIABETES)
    members = [col["sex"] == g for g in groups]
    truth = {"count": np.array([m.sum() for m in members], dtype=np.float64)}
    for c, b in DIABETES.items():
        assert np.all((b[0] <= col[c]) & (col[c] <= b[1])), c  # nothing is clipped: the mean is the true one
        truth[f"mean({c})"] = np.array([col[c][m].mean() for m in members])
    tools = {s: np.empty((REPS, len(groups))) for s in truth}
    for r in range(REPS):
        rng = np.random.RandomState(r)
        for g, m in enumerate(members):
            accountant = BudgetAccountant()  # one group's statistics: epsilon in all
            tools["count"][r, g] = count_nonzero(m, epsilon=EPSILON / k, random_state=rng, accountant=accountant)
            for c, b in DIABETES.items():
                tools[f"mean({c})"][r, g] = mean(col[c][m], epsilon=EPSILON / k, bounds=b, random_state=rng, accountant=accountant)
            assert accountant.total()[0] <= EPSILON + 1e-12
    simulated = simulate(truth, truth["count"], len(table), DIABETES, lambda r: r)
    difference = max(float(np.max(np.abs(tools[s] - simulated[s]))) for s in truth)
    assert difference == 0, f"the simulation differs from the tools by {difference}"
    return {
        "truth": {s: v.tolist() for s, v in truth.items()},
        "rows": [
            {"method": LABEL.format(k=k), "privacy": PRIVACY, "errors": relative_errors(tools, truth)},
        ],
    }


def synthetic_rows():
    g, columns = synthetic()
    k = 1 + len(SYNTHETIC)
    sizes = np.bincount(g, minlength=len(SHARES)).astype(np.float64)
    truth = {"count": sizes}
    for c, b in SYNTHETIC.items():
        assert np.all((b[0] <= columns[c]) & (columns[c] <= b[1])), c
        truth[f"mean({c})"] = np.bincount(g, weights=columns[c], minlength=len(SHARES)) / sizes
    simulated = simulate(truth, sizes, ROWS, SYNTHETIC, lambda r: 10**6 + r)
    return {
        "truth": {s: v.tolist() for s, v in truth.items()},
        "rows": [
            {"method": LABEL.format(k=k), "privacy": PRIVACY, "errors": relative_errors(simulated, truth)},
        ],
    }


def markdown(name, data):
    names = list(data["truth"])
    print(f"\n{name}\n\n| method | privacy | {' | '.join(names)} | average |\n| --- | --- |{' ---: |' * (len(names) + 1)}")
    for row in data["rows"]:
        e = row["errors"]
        cells = [f"{100 * x:.2g}%" for x in [*(e[s] for s in names), np.mean(list(e.values()))]]
        print(f"| {row['method']} | {row['privacy']} | {' | '.join(cells)} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the rows here for scripts/aggregate-accuracy.mjs")
    args = parser.parse_args()
    result = {"diffprivlib": diffprivlib.__version__, "reps": REPS, "diabetes": diabetes(), "synthetic": synthetic_rows()}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
        print(f"wrote {args.json}")
    else:
        markdown("diabetes", result["diabetes"])
        markdown("synthetic", result["synthetic"])
