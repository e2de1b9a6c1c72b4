#!/usr/bin/env python3
"""dp_accounting's figures for the accountant's edges (test/accounting/edges.test.ts): epsilon at
delta 1e-10 for 1000 Laplace releases (scales 100, 10 and 1) and for 1000 Poisson-sampled
Gaussian steps (noise multiplier 1, rate 1e-3), by its PLD accountant at value discretization
interval 1e-4 (pessimistic, an upper bound up to its floating point) and its RDP accountant.

Set up dp_accounting as scripts/accounting_reference.py says (pip install --no-deps from the
google/differential-privacy snapshot, plus absl-py), then from the repository root:

    python scripts/accountant_edges_reference.py > test/fixtures/accountant-edges.json
"""
import json

import dp_accounting
from dp_accounting import pld, rdp

DELTA = 1e-10
CASES = [
    ("1000 Laplace, scale 100", dp_accounting.SelfComposedDpEvent(dp_accounting.LaplaceDpEvent(100.0), 1000)),
    ("1000 Laplace, scale 10", dp_accounting.SelfComposedDpEvent(dp_accounting.LaplaceDpEvent(10.0), 1000)),
    ("1000 Laplace, scale 1", dp_accounting.SelfComposedDpEvent(dp_accounting.LaplaceDpEvent(1.0), 1000)),
    (
        "1000 Poisson-sampled Gaussian steps, multiplier 1, rate 1e-3",
        dp_accounting.SelfComposedDpEvent(dp_accounting.PoissonSampledDpEvent(1e-3, dp_accounting.GaussianDpEvent(1.0)), 1000),
    ),
]

out = []
for name, event in CASES:
    accountant = pld.PLDAccountant(value_discretization_interval=1e-4)
    accountant.compose(event)
    renyi = rdp.RdpAccountant()
    renyi.compose(event)
    out.append(
        {
            "name": name,
            "delta": DELTA,
            "pld": accountant.get_epsilon(DELTA),
            "rdp": renyi.get_epsilon(DELTA),
        }
    )
print(json.dumps({"generator": "scripts/accountant_edges_reference.py", "dp_accounting": "0.6.0", "cases": out}, indent=2))
