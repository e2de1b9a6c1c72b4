#!/usr/bin/env python3
"""Reference values for grid mode's discrete Gaussian noise (docs/accounting.md, "Discrete
Gaussian"), written to test/fixtures/discrete-gaussian.json.

`exact`: delta(eps) of one discrete Gaussian pair, P = N_Z(0, sigma^2) and Q = N_Z(d, sigma^2)
(P(x) proportional to exp(-x^2 / (2 sigma^2)) on the integers), by summing max(0, P(x) - e^eps Q(x))
over |x| <= 60 sigma + d in mpmath at 50 digits (the rest is below 1e-700), rounded once to a double.
The tests check that it lies between the Gaussian curves at distances d / sqrt(sigma^2 + 16) and
d / sqrt(sigma^2 - 16), as the comparison in the docs proves.

Run from the repository root:   python3 scripts/discrete_gaussian_reference.py   (a few seconds)
"""

import json
import os

import mpmath

mpmath.mp.dps = 50


def exact_delta(sigma, d, eps):
  sigma, e = mpmath.mpf(sigma), mpmath.exp(mpmath.mpf(eps))
  span = int(60 * sigma) + d
  weights = {x: mpmath.exp(-mpmath.mpf(x) ** 2 / (2 * sigma**2)) for x in range(-span - d, span + d + 1)}
  norm = mpmath.fsum(weights[x] for x in range(-span - d, span + d + 1))
  total = mpmath.fsum(max(mpmath.mpf(0), weights[x] - e * weights[x - d]) for x in range(-span, span + 1))
  return total / norm


def main():
  exact = []
  for sigma, d in [(8.0, 1), (8.0, 5), (10.5, 3), (20.0, 7), (64.0, 40), (12.0, 30)]:
    mu = d / sigma
    for eps in [0.0, 0.25 * mu, mu, 2 * mu + 0.5 * mu * mu, 4 * mu + mu * mu]:
      delta = exact_delta(sigma, d, eps)
      if delta > mpmath.mpf('1e-250'):
        exact.append({'sigma': sigma, 'sensitivity': d, 'epsilon': float(eps), 'delta': float(delta)})
  out = {'about': 'scripts/discrete_gaussian_reference.py', 'mpmath': mpmath.__version__, 'exact': exact}
  path = os.path.join('test', 'fixtures', 'discrete-gaussian.json')
  with open(path, 'w') as f:
    json.dump(out, f, indent=1)
    f.write('\n')
  print(f'wrote {path}: {len(exact)} values')


main()
