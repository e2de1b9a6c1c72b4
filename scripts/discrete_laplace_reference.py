#!/usr/bin/env python3
"""Reference values for the discrete Laplace privacy-loss distribution (docs/accounting.md,
"Discrete Laplace"), written to test/fixtures/discrete-laplace.json.

- `exact`: delta(eps) of one discrete Laplace pair, P = DLap(0, t), Q = DLap(d, t) with
  P(x) proportional to exp(-|x| / t), by summing max(0, P(x) - e^eps Q(x)) over the outputs
  in mpmath (60 digits; the tails beyond the shift are geometric series, summed in closed form),
  then rounded once to a double.
- `pld`: epsilon(delta) of compositions and Poisson subsamplings of discrete Laplace pairs from
  Google's dp_accounting 0.6.0 (privacy_loss_distribution.from_discrete_laplace_mechanism with
  parameter 1/t, connect-the-dots, interval 1e-4; an upper bound up to its discretization).

Set up dp_accounting as scripts/accounting_reference.py says, then from the repository root:

    /work/venvs/dpacc/bin/python scripts/discrete_laplace_reference.py

Deterministic; runs in about a minute.
"""

import importlib.metadata
import json
import os

import mpmath
from dp_accounting.pld import privacy_loss_distribution as pld_lib

mpmath.mp.dps = 60


def exact_delta(t, d, eps):
  """sum over outputs x of max(0, P(x) - e^eps Q(x)), P = DLap(0, t), Q = DLap(d, t)."""
  t, eps = mpmath.mpf(t), mpmath.mpf(eps)
  r = mpmath.exp(-1 / t)
  c = (1 - r) / (1 + r)
  e = mpmath.exp(eps)
  # x <= 0: P = c r^-x, Q = c r^(d - x): P - e^eps Q = c r^-x (1 - e^eps r^d), summed: / (1 - r).
  total = max(mpmath.mpf(0), (1 - e * r**d) / (1 + r))
  for x in range(1, d):
    total += max(mpmath.mpf(0), c * r**x - e * c * r ** (d - x))
  # x >= d: P - e^eps Q = c r^x (1 - e^eps r^-d) < 0 for eps >= 0; counted when positive.
  tail = (r**d - e) / (1 + r)
  return total + max(mpmath.mpf(0), tail)


def main():
  exact = []
  for t, d in [(0.5, 1), (1.0, 1), (2.0, 3), (10.0, 7), (3.0, 40), (100.0, 64), (25.0, 30)]:
    eps0 = d / t
    for frac in [-0.5, 0.0, 0.1, 0.37, 0.5, 0.9, 0.999]:
      eps = float(mpmath.mpf(eps0) * frac)
      exact.append({'scale': t, 'sensitivity': d, 'epsilon': eps, 'delta': float(exact_delta(t, d, eps))})
  pld = []
  for t, d, rate, times in [(2.0, 3, 1.0, 10), (10.0, 7, 1.0, 100), (0.5, 1, 0.1, 200), (25.0, 30, 0.01, 1000), (40.0, 5, 1.0, 1)]:
    dist = pld_lib.from_discrete_laplace_mechanism(1 / t, sensitivity=d, value_discretization_interval=1e-4, sampling_prob=rate, use_connect_dots=True)
    if times > 1:
      dist = dist.self_compose(times)
    for delta in [1e-3, 1e-6, 1e-9]:
      pld.append({'scale': t, 'sensitivity': d, 'rate': rate, 'times': times, 'delta': delta, 'epsilon': float(dist.get_epsilon_for_delta(delta))})
  out = {
    'about': 'scripts/discrete_laplace_reference.py',
    'dp_accounting': importlib.metadata.version('dp_accounting'),
    'mpmath': mpmath.__version__,
    'exact': exact,
    'pld': pld,
  }
  path = os.path.join('test', 'fixtures', 'discrete-laplace.json')
  with open(path, 'w') as f:
    json.dump(out, f, indent=1)
    f.write('\n')
  print(f'wrote {path}: {len(exact)} exact, {len(pld)} pld')


main()
