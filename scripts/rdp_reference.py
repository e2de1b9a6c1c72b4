#!/usr/bin/env python3
"""Reference values for dpnoise's RDP accountant (src/engine/rdp.ts, docs/rdp.md).

Writes test/fixtures/rdp.json with two kinds of values:

  dp_accounting   RDP curves at dp_accounting's DEFAULT_RDP_ORDERS from its RdpAccountant
                  (rdp_privacy_accountant.py, version 0.6.0), one per event, and epsilon(delta)
                  and delta(epsilon) from them with the optimal orders (compute_epsilon and
                  compute_delta): the values src/engine/rdp.ts ports.
  exact           Renyi divergences computed independently with mpmath at 50 digits, rounded
                  once to a double: the Laplace mechanism by quadrature of the divergence
                  integral; the Poisson-subsampled Gaussian and Laplace mechanisms in both
                  directions (add and remove), by quadrature and (integer orders) by the
                  binomial closed form; the discrete Laplace mechanism by direct summation; binary
                  randomized response; and the without-replacement bound of Wang, Balle &
                  Kasiviswanathan (2019, Theorem 27, as dp_accounting evaluates it) at 60 digits.
                  The exact divergences are what rdp.ts's upper bounds must never be below.

Python is used for fixtures only. This script is not part of `npm run generate`: like
scripts/accounting_reference.py it needs dp_accounting, installed as described there (the venv
/work/venvs/dpacc), and runs in about five minutes (mostly the quadratures):

    /work/venvs/dpacc/bin/python scripts/rdp_reference.py [--out FILE]

Deterministic: the same dp_accounting, numpy, scipy and mpmath write the same bytes.
"""

import argparse
import json
import math
import os

import mpmath
import numpy as np

import dp_accounting as dpa
from dp_accounting import dp_event
from dp_accounting.rdp import RdpAccountant
from dp_accounting.rdp import rdp_privacy_accountant as rdp_lib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(ROOT, 'test', 'fixtures', 'rdp.json')
ORDERS = [float(a) for a in rdp_lib.DEFAULT_RDP_ORDERS]
DPS = 50

mpmath.mp.dps = DPS
mp = mpmath.mpf


def num(x):
  x = float(x)
  return x if math.isfinite(x) else None  # JSON has no infinity: null means Infinity


# --------------------------------------------------------------------------------------
# dp_accounting curves
# --------------------------------------------------------------------------------------

def curve(event, relation=dpa.NeighboringRelation.ADD_OR_REMOVE_ONE):
  acc = RdpAccountant(neighboring_relation=relation)
  acc.compose(event)
  rdp = acc._rdp  # pylint: disable=protected-access
  conversions = []
  for delta in (1e-5, 1e-10):
    eps, order = rdp_lib.compute_epsilon(ORDERS, rdp, delta)
    conversions.append({'query': 'epsilon', 'delta': delta, 'epsilon': num(eps), 'order': num(order)})
  for eps in (1.0, 5.0):
    delta, order = rdp_lib.compute_delta(ORDERS, rdp, eps)
    conversions.append({'query': 'delta', 'epsilon': eps, 'delta': num(delta), 'order': num(order)})
  return [num(r) for r in rdp], conversions


def dp_curves():
  cases = []

  def add(kind, params, event, relation=dpa.NeighboringRelation.ADD_OR_REMOVE_ONE):
    rdp, conversions = curve(event, relation)
    cases.append({'kind': kind, **params, 'rdp': rdp, 'conversions': conversions})

  for z in (0.5, 1.0, 2.0, 5.0):
    add('gaussian', {'noise_multiplier': z}, dp_event.GaussianDpEvent(z))
  for b in (0.5, 1.0, 2.0, 10.0, 100.0):
    add('laplace', {'scale': b}, dp_event.LaplaceDpEvent(b))
  for s in (1.0, 3.0, 10.0):
    for d in (1, 2):
      add('discrete_gaussian', {'sigma': s, 'sensitivity': d}, dp_event.DiscreteGaussianDpEvent(s, d))
  for rho in (0.01, 0.5):
    add('zcdp', {'rho': rho}, dp_event.ZCDpEvent(rho))
  for q, z in ((0.01, 1.1), (0.004, 0.8), (0.01, 1.0), (0.1, 2.0), (0.001, 0.6), (0.5, 1.0), (0.9, 3.0),
               (1e-5, 0.5), (0.02, 5.0), (0.25, 0.3)):
    add('poisson_gaussian', {'sampling_probability': q, 'noise_multiplier': z},
        dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(z)))
  for m, n, z in ((256, 60000, 1.1), (100, 10000, 2.0), (3, 10, 0.7), (1, 1000, 5.0)):
    add('without_replacement_gaussian', {'sample_size': m, 'source_dataset_size': n, 'noise_multiplier': z},
        dp_event.SampledWithoutReplacementDpEvent(n, m, dp_event.GaussianDpEvent(z)),
        dpa.NeighboringRelation.REPLACE_ONE)
  return cases


# --------------------------------------------------------------------------------------
# Exact divergences (mpmath)
# --------------------------------------------------------------------------------------

def renyi(log_a, alpha):
  return log_a / (mp(alpha) - 1)


def laplace_quad(eps, alpha):
  """D_alpha(Lap(0, 1/eps) || Lap(1, 1/eps)) by quadrature over (-inf, 0], [0, 1], [1, inf)."""
  eps, a = mp(eps), mp(alpha)
  f = lambda x: eps / 2 * mpmath.exp(-eps * (a * abs(x) + (1 - a) * abs(x - 1)))
  return renyi(mpmath.log(mpmath.quad(f, [-mpmath.inf, 0, 1, mpmath.inf])), alpha)


def laplace_closed(eps, alpha):
  eps, a = mp(eps), mp(alpha)
  return renyi(mpmath.log(a / (2 * a - 1) * mpmath.exp((a - 1) * eps) + (a - 1) / (2 * a - 1) * mpmath.exp(-a * eps)), alpha)


def randomized_response(eps, alpha):
  eps, a = mp(eps), mp(alpha)
  return renyi(mpmath.log((mpmath.exp(a * eps) + mpmath.exp((1 - a) * eps)) / (1 + mpmath.exp(eps))), alpha)


def discrete_laplace(scale, d, alpha):
  """D_alpha(DLap(0) || DLap(d)), P(y) ~ exp(-|y|/scale), by summing the series directly."""
  t, a = mp(scale), mp(alpha)
  r = mpmath.exp(-1 / t)
  norm = (1 - r) / (1 + r)
  p = lambda y: norm * r ** abs(y)
  # y <= 0 and y >= d are geometric series, summed in closed form; 0 < y < d term by term.
  left = norm ** 1 * r ** ((1 - a) * d) / (1 - r)       # sum_{y<=0} p(y)^a p(y-d)^(1-a)
  right = norm * r ** (a * d) / (1 - r)                 # sum_{y>=d}
  middle = sum(p(y) ** a * p(y - d) ** (1 - a) for y in range(1, d))
  # Check the closed forms of the two tails against partial sums.
  tail = sum(p(y) ** a * p(y - d) ** (1 - a) for y in range(-4000, 1))
  assert abs(tail / left - 1) < mpmath.mpf(10) ** -30 or scale > 100, (scale, d, alpha)
  return renyi(mpmath.log(left + right + middle), alpha)


def gaussian_pdf(z, mean, sigma):
  return mpmath.exp(-(z - mean) ** 2 / (2 * sigma ** 2)) / (sigma * mpmath.sqrt(2 * mpmath.pi))


def subsampled_quad(p0, p1, q, alpha, points):
  """Both directions for the pair (P, (1-q)P + qQ) with densities p0, p1: (add, remove)."""
  q, a = mp(q), mp(alpha)
  mix = lambda z: (1 - q) * p0(z) + q * p1(z)
  add = mpmath.quad(lambda z: mix(z) ** a * p0(z) ** (1 - a), points)
  remove = mpmath.quad(lambda z: p0(z) ** a * mix(z) ** (1 - a), points)
  return renyi(mpmath.log(add), alpha), renyi(mpmath.log(remove), alpha)


def sampled_gaussian(q, z, alpha):
  sigma = mp(z)
  p0 = lambda x: gaussian_pdf(x, 0, sigma)
  p1 = lambda x: gaussian_pdf(x, 1, sigma)
  # Break points every half standard deviation over where the integrands put their mass: the add
  # direction's peaks near z = 0 and z = alpha, the remove direction's near z <= 0.
  step = min(sigma, 1) / 2
  lo, hi = -12 * sigma - 2, alpha + 12 * sigma + 2
  points = [-mpmath.inf] + [lo + k * step for k in range(int((hi - lo) / step) + 1)] + [mpmath.inf]
  return subsampled_quad(p0, p1, q, alpha, points)


def sampled_gaussian_int(q, z, alpha):
  """The add direction at integer alpha in closed form (Mironov, Talwar & Zhang 2019)."""
  q, s = mp(q), mp(z)
  total = mpmath.fsum(mpmath.binomial(alpha, i) * q ** i * (1 - q) ** (alpha - i) * mpmath.exp((i * i - i) / (2 * s * s))
                      for i in range(alpha + 1))
  return renyi(mpmath.log(total), alpha)


def sampled_laplace(q, eps, alpha):
  e = mp(eps)
  p0 = lambda x: e / 2 * mpmath.exp(-e * abs(x))
  p1 = lambda x: e / 2 * mpmath.exp(-e * abs(x - 1))
  span = int(60 / float(eps)) + 2
  return subsampled_quad(p0, p1, q, alpha, [-mpmath.inf, -span, 0, 1, span + 1, mpmath.inf])


def wor_gaussian_bound(q, z, alpha):
  """log A of dp_accounting's _compute_rdp_sample_wor_gaussian_int (WBK19 Theorem 27 / 9) in mpmath."""
  q, s = mp(q), mp(z)
  cgf = lambda x: x * (x + 1) / (2 * s * s)
  values = {}
  def f(x):  # f(-1) = 1 as dp_accounting's padding
    if x not in values:
      values[x] = mpmath.exp(cgf(x))
    return values[x]
  deltas = {}
  def delta(k):  # log |Delta^(k+1) f(-1)|
    if k not in deltas:
      m = k + 1
      deltas[k] = mpmath.log(abs(mpmath.fsum((-1) ** (m - j) * mpmath.binomial(m, j) * f(j - 1) for j in range(m + 1))))
    return deltas[k]
  log_f2m1 = mpmath.log(mpmath.expm1(1 / (s * s)))
  terms = [mp(1)]
  for i in range(2, alpha + 1):
    if i == 2:
      t = min(4 * mpmath.exp(log_f2m1), 2 * mpmath.exp(1 / (s * s)))
    elif alpha <= 256:
      lo, hi = delta(2 * (i // 2) - 1), delta(2 * ((i + 1) // 2) - 1)
      t = min(4 * mpmath.exp((lo + hi) / 2), 2 * mpmath.exp(cgf(i - 1)))
    else:
      t = 2 * mpmath.exp(cgf(i - 1))
    terms.append(q ** i * mpmath.binomial(alpha, i) * t)
  return mpmath.log(mpmath.fsum(terms))


def exact_values():
  out = {}
  out['laplace'] = [
      {'epsilon': eps, 'alpha': a, 'quad': num(laplace_quad(eps, a)), 'closed': num(laplace_closed(eps, a))}
      for eps in (1e-3, 0.01, 0.1, 0.5, 1.0, 2.0, 10.0)
      for a in (1.1, 1.5, 2.0, 4.7, 10.0, 32.0, 1024.0)]
  for row in out['laplace']:
    assert abs(row['quad'] / row['closed'] - 1) < 1e-14, row
  out['randomized_response'] = [
      {'epsilon': eps, 'alpha': a, 'rdp': num(randomized_response(eps, a))}
      for eps in (1e-3, 0.1, 1.0, 5.0) for a in (1.1, 2.0, 4.7, 64.0, 1024.0)]
  out['discrete_laplace'] = [
      {'scale': t, 'sensitivity': d, 'alpha': a, 'rdp': num(discrete_laplace(t, d, a))}
      for t in (0.5, 1.0, 3.0, 20.0) for d in (1, 2, 5) for a in (1.1, 2.0, 4.7, 16.0, 256.0)]
  rows = []
  for q, z in ((0.01, 1.1), (0.1, 2.0), (0.5, 1.0), (0.001, 0.6), (0.25, 0.3)):
    for a in (1.1, 1.5, 2.0, 2.5, 4.7, 8.0, 10.9):
      add, remove = sampled_gaussian(q, z, a)
      row = {'sampling_probability': q, 'noise_multiplier': z, 'alpha': a, 'add': num(add), 'remove': num(remove)}
      if float(a).is_integer():
        closed = sampled_gaussian_int(q, z, int(a))
        assert abs(closed / add - 1) < mpmath.mpf(10) ** -25, (q, z, a, add, closed)
      rows.append(row)
    for a in (16, 63, 256, 1024):
      rows.append({'sampling_probability': q, 'noise_multiplier': z, 'alpha': float(a),
                   'add': num(sampled_gaussian_int(q, z, a))})
  out['poisson_gaussian'] = rows
  out['poisson_laplace'] = []
  for q, eps in ((0.01, 0.5), (0.05, 1.0), (0.2, 2.0), (0.5, 0.1)):
    for a in (1.5, 2.0, 3.0, 4.7, 8.0, 16.0):
      add, remove = sampled_laplace(q, eps, a)
      out['poisson_laplace'].append({'sampling_probability': q, 'epsilon': eps, 'alpha': a,
                                     'add': num(add), 'remove': num(remove)})
  mpmath.mp.dps = 60
  out['without_replacement_bound'] = [
      {'sampling_probability': m / n, 'sample_size': m, 'source_dataset_size': n, 'noise_multiplier': z,
       'alpha': a, 'log_a': num(wor_gaussian_bound(mp(m) / n, z, a))}
      for m, n, z in ((256, 60000, 1.1), (100, 10000, 2.0), (3, 10, 0.7), (1, 1000, 5.0))
      for a in (2, 3, 4, 12, 34, 63, 128, 256, 512)]
  mpmath.mp.dps = DPS
  return out


def main():
  parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
  parser.add_argument('--out', default=DEFAULT_OUT)
  args = parser.parse_args()
  data = {
      'source': {
          'generator': 'scripts/rdp_reference.py',
          'dp_accounting': 'rdp_privacy_accountant.py of dp_accounting 0.6.0 (see scripts/accounting_reference.py)',
          'orders': ORDERS,
          'null': 'Infinity',
          'exact': 'mpmath at %d digits (without_replacement_bound at 60), rounded once to a double' % DPS,
          'versions': {'numpy': np.__version__, 'mpmath': mpmath.__version__},
      },
      'dp_accounting': dp_curves(),
      'exact': exact_values(),
  }
  with open(args.out, 'w', encoding='utf-8') as f:
    json.dump(data, f, indent=1)
    f.write('\n')


if __name__ == '__main__':
  main()
