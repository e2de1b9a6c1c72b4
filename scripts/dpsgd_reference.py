"""dp_accounting's calibrated DP-SGD noise multipliers, the reference for dpnoise's `dpsgd` plan.

For each plan (batch sampling, steps, epsilon, delta) dp_accounting 0.6.0 finds the smallest
noise multiplier z that meets (epsilon, delta) with `calibrate_dp_mechanism`: its PLD accountant
(connect the dots, value_discretization_interval 1e-4) for Poisson batches, its RDP accountant
(replace-one neighbours) for fixed-size batches drawn without replacement. dp_accounting is not on
PyPI here: install it from the google/differential-privacy sources with
`pip install --no-deps python/dp_accounting` into a virtual environment, with its dependencies
(numpy, scipy, mpmath, absl-py, attrs, dm-tree).

Run: python scripts/dpsgd_reference.py > test/fixtures/dpsgd.json   (about a minute)
"""
import json
import sys
import time

import dp_accounting
from dp_accounting import dp_event, mechanism_calibration
from dp_accounting.pld import pld_privacy_accountant
from dp_accounting.rdp import rdp_privacy_accountant

INTERVAL = 1e-4
TOL = 1e-5

CASES = [
    {"id": "poisson_q0.01_T10000_eps3", "batch": {"rate": 0.01}, "steps": 10000, "epsilon": 3.0, "delta": 1e-5},
    {"id": "poisson_q0.004_T5000_eps1", "batch": {"rate": 0.004}, "steps": 5000, "epsilon": 1.0, "delta": 1e-5},
    {"id": "poisson_q0.02_T1000_eps8", "batch": {"rate": 0.02}, "steps": 1000, "epsilon": 8.0, "delta": 1e-6},
    {"id": "wor_256_of_60000_T1000_eps2", "batch": {"size": 256, "population": 60000}, "steps": 1000, "epsilon": 2.0, "delta": 1e-5},
]


def event(case, z):
    gaussian = dp_event.GaussianDpEvent(z)
    batch = case["batch"]
    if "rate" in batch:
        step = dp_event.PoissonSampledDpEvent(batch["rate"], gaussian)
    else:
        step = dp_event.SampledWithoutReplacementDpEvent(batch["population"], batch["size"], gaussian)
    return dp_event.SelfComposedDpEvent(step, case["steps"])


def accountant(case):
    if "rate" in case["batch"]:
        return lambda: pld_privacy_accountant.PLDAccountant(value_discretization_interval=INTERVAL)
    relation = dp_accounting.NeighboringRelation.REPLACE_ONE
    return lambda: rdp_privacy_accountant.RdpAccountant(neighboring_relation=relation)


def main():
    out = []
    for case in CASES:
        started = time.time()
        make = accountant(case)
        z = mechanism_calibration.calibrate_dp_mechanism(
            make,
            lambda z, case=case: event(case, z),
            case["epsilon"],
            case["delta"],
            mechanism_calibration.LowerEndpointAndGuess(0.1, 1.0),
            tol=TOL,
        )
        spent = make().compose(event(case, z)).get_epsilon(case["delta"])
        out.append({
            **case,
            "method": "pld" if "rate" in case["batch"] else "rdp",
            "value_discretization_interval": INTERVAL if "rate" in case["batch"] else None,
            "noise_multiplier": z,
            "epsilon_at_noise_multiplier": spent,
            "seconds": round(time.time() - started, 1),
        })
        print(case["id"], z, spent, file=sys.stderr)
    json.dump({"dp_accounting": "0.6.0", "tolerance": TOL, "cases": out}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
