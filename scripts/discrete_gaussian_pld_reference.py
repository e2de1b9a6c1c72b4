#!/usr/bin/env python3
"""Reference values for Poisson-subsampled discrete Gaussian releases (docs/accounting.md,
"Discrete Gaussian pair"), by Google's dp_accounting: its PLD library's
from_discrete_gaussian_mechanism(sigma, sensitivity, value_discretization_interval=1e-5,
sampling_prob=q, use_connect_dots=True), self-composed T times, epsilon at delta 1e-6.
(Its PLDAccountant does not take DiscreteGaussianDpEvent, so the library is called directly.)
Writes test/fixtures/discrete-gaussian-pld.json.

Environment: the dp_accounting 0.6.0 virtual environment described in
scripts/accounting_reference.py. From the repository root (a few seconds):

    /work/venvs/dpacc/bin/python scripts/discrete_gaussian_pld_reference.py
"""

import dp_accounting
from dp_accounting.pld import privacy_loss_distribution as pld

from write_fixture import write_fixture

CASES = [  # sigma, sensitivity, sampling probability, steps
    (10.0, 1, 0.01, 1000),
    (3.0, 1, 0.1, 100),
    (5.0, 2, 0.05, 200),
]
INTERVAL = 1e-5
DELTA = 1e-6


def main():
    cases = []
    for sigma, d, q, steps in CASES:
        dist = pld.from_discrete_gaussian_mechanism(
            sigma, sensitivity=d, value_discretization_interval=INTERVAL, sampling_prob=q, use_connect_dots=True)
        eps = dist.self_compose(steps).get_epsilon_for_delta(DELTA)
        cases.append({'sigma': sigma, 'sensitivity': d, 'rate': q, 'steps': steps, 'delta': DELTA, 'epsilon': eps})
        print(cases[-1], flush=True)
    out = {
        'source': 'scripts/discrete_gaussian_pld_reference.py: dp_accounting from_discrete_gaussian_mechanism, '
                  f'connect the dots, value_discretization_interval {INTERVAL:g}, add/remove neighbours',
        'dp_accounting': getattr(dp_accounting, '__version__', '0.6.0'),
        'cases': cases,
    }
    write_fixture('discrete-gaussian-pld.json', out)


if __name__ == '__main__':
    main()
