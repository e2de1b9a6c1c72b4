#!/usr/bin/env python3
"""Reference values for dpnoise's privacy accountant, computed by Google's dp_accounting.

Writes test/fixtures/accounting.json: epsilon(delta) and delta(epsilon) for a set of
mechanisms and compositions (Gaussian, Laplace, Poisson-subsampled Gaussian and Laplace,
sampling without replacement, discrete Gaussian and Laplace, mixtures, a DP-SGD schedule),
from dp_accounting's PLD accountant (several value_discretization_intervals) and its RDP
accountant (default orders), plus exact values where a closed form exists (mpmath). Each
case also carries its DpEvent as JSON (DpEvent.to_named_tuple(), nested named tuples
turned into objects), so the TypeScript side can test reading dp_accounting's events.

Python is used for fixtures only: dpnoise itself does not depend on Python or on
dp_accounting. This script is not part of `npm run generate` (it needs dp_accounting, which
is not on PyPI here, and runs for about 15 minutes).

Set up the environment (dp_accounting 0.6.0 from google/differential-privacy, commit
SNAPSHOT_COMMIT below; PyPI need not be reachable, numpy/scipy/mpmath come from the
system Python):

    git clone https://github.com/google/differential-privacy /tmp/dp && \
      git -C /tmp/dp checkout b5b0286e313b64a692abfc8c528d54ef47d960a0
    python3 -m venv /work/venvs/dpacc --system-site-packages
    /work/venvs/dpacc/bin/pip install --no-deps /tmp/dp/python/dp_accounting
    /work/venvs/dpacc/bin/pip install absl-py        # rdp_privacy_accountant imports absl.logging

(dp_accounting also declares attrs<24 and dm-tree; attrs 26 works, dm-tree is only used by
its own tests.) Then, from the repository root:

    /work/venvs/dpacc/bin/python scripts/accounting_reference.py [--out FILE] [--skip-slow]

Everything except the top-level `timings` field is deterministic: the same dp_accounting,
numpy, scipy and mpmath give the same bytes on every run. `timings` holds wall-clock
seconds (informative only; tests must not compare them). --skip-slow leaves out the
~10-minute PLD run of the 1000-step schedule at interval 1e-4 (and marks it as skipped).

Conventions of the output: neighbouring relation ADD_OR_REMOVE_ONE unless a case says
otherwise; each case has `results`, a flat list of records
    {"method": "pld", "value_discretization_interval": 1e-4, "query": "epsilon", "delta": 1e-5, "epsilon": ...}
    {"method": "pld", "value_discretization_interval": 1e-4, "query": "delta", "epsilon": 1.0, "delta": ...}
    {"method": "rdp", "query": "epsilon", "delta": 1e-5, "epsilon": ..., "optimal_order": ...}
    {"method": "exact", ...}          closed form, mpmath (50 digits), rounded once to a double
    {"method": "pld_direct", ...}     dp_accounting.pld.privacy_loss_distribution used directly
                                      (for mechanisms that have a PLD but no PLDAccountant event)
PLD values are pessimistic (upper bounds on epsilon/delta, up to discretisation); RDP
values are upper bounds (loose); "exact" values are exact up to double rounding.
"""

import argparse
import collections
import hashlib
import importlib.metadata
import json
import math
import os
import platform
import sys
import time

import mpmath
import numpy as np
import scipy

import dp_accounting as dpa
from dp_accounting import dp_event
from dp_accounting.pld import PLDAccountant
from dp_accounting.pld import privacy_loss_distribution as pld_lib
from dp_accounting.rdp import RdpAccountant
from dp_accounting.rdp import rdp_privacy_accountant

# The snapshot of github.com/google/differential-privacy the venv was installed from.
SNAPSHOT_COMMIT = 'b5b0286e313b64a692abfc8c528d54ef47d960a0'  # HEAD, 2026-08-06
DP_ACCOUNTING_LAST_COMMIT = '1e2abd46a3e64df86dac912b2aee1d47cebacae6'  # last one touching python/dp_accounting

ADD_REMOVE = dpa.NeighboringRelation.ADD_OR_REMOVE_ONE
REPLACE_ONE = dpa.NeighboringRelation.REPLACE_ONE

FINE = 1e-4     # PLDAccountant's default value_discretization_interval in this version
COARSE = 1e-3
FINEST = 1e-5   # only where it is cheap (seconds)

mpmath.mp.dps = 50

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(ROOT, 'test', 'fixtures', 'accounting.json')

TIMINGS = {'per_computation_seconds': [], 'benchmarks': []}
START = time.perf_counter()


def log(msg):
  print(f'[{time.perf_counter() - START:7.1f}s] {msg}', file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------
# DpEvent <-> JSON
# --------------------------------------------------------------------------------------

def event_to_json(event):
  """DpEvent -> plain JSON object, via dp_accounting's own DpEvent.to_named_tuple().

  dp_accounting 0.6.0 has no JSON helper; its serialisable form is the NamedTuple of
  to_named_tuple(): fields module_name, class_name, then the attrs fields in declaration
  order, nested events as nested named tuples. We keep exactly those fields and order.
  """
  def convert(value):
    if isinstance(value, dp_event.DpEventNamedTuple):
      return {field: convert(getattr(value, field)) for field in value._fields}
    if isinstance(value, (list, tuple)):
      return [convert(v) for v in value]
    if isinstance(value, np.generic):
      return value.item()
    return value

  obj = convert(event.to_named_tuple())
  assert json_to_event(json.loads(json.dumps(obj))) == event, 'DpEvent JSON does not round-trip'
  return obj


def json_to_event(obj):
  """The inverse of event_to_json, through DpEvent.from_named_tuple()."""
  def convert(value):
    if isinstance(value, dict):
      cls = collections.namedtuple('_' + value['class_name'], list(value))
      return cls(**{k: convert(v) for k, v in value.items()})
    if isinstance(value, list):
      return [convert(v) for v in value]
    return value
  return dpa.DpEvent.from_named_tuple(convert(obj))


# --------------------------------------------------------------------------------------
# Accountant runs
# --------------------------------------------------------------------------------------

def timed(label, fn):
  t0 = time.perf_counter()
  result = fn()
  seconds = time.perf_counter() - t0
  TIMINGS['per_computation_seconds'].append({'what': label, 'seconds': round(seconds, 3)})
  log(f'{label}: {seconds:.2f}s')
  return result


def num(x):
  """A finite Python float for JSON (dp_accounting returns numpy floats)."""
  x = float(x)
  if not math.isfinite(x):
    raise ValueError(f'non-finite value {x}')
  return x


def pld_results(case_id, event, intervals, deltas=(), epsilons=(), relation=ADD_REMOVE):
  out = []
  for interval in intervals:
    def run():
      acc = PLDAccountant(relation, value_discretization_interval=interval)
      acc.compose(event)
      return ([acc.get_epsilon(d) for d in deltas], [acc.get_delta(e) for e in epsilons])
    eps_values, delta_values = timed(f'{case_id} pld {interval:g}', run)
    for d, e in zip(deltas, eps_values):
      out.append({'method': 'pld', 'value_discretization_interval': interval,
                  'query': 'epsilon', 'delta': d, 'epsilon': num(e)})
    for e, d in zip(epsilons, delta_values):
      out.append({'method': 'pld', 'value_discretization_interval': interval,
                  'query': 'delta', 'epsilon': e, 'delta': num(d)})
  return out


def rdp_results(case_id, event, deltas=(), epsilons=(), relation=ADD_REMOVE):
  acc = RdpAccountant(neighboring_relation=relation)
  timed(f'{case_id} rdp', lambda: acc.compose(event))
  out = []
  for d in deltas:
    eps, order = acc.get_epsilon_and_optimal_order(d)
    out.append({'method': 'rdp', 'query': 'epsilon', 'delta': d, 'epsilon': num(eps),
                'optimal_order': num(order)})
  for e in epsilons:
    delta, order = acc.get_delta_and_optimal_order(e)
    out.append({'method': 'rdp', 'query': 'delta', 'epsilon': e, 'delta': num(delta),
                'optimal_order': num(order)})
  return out


def supported(event, relation=ADD_REMOVE):
  return {'pld': PLDAccountant(relation).supports(event),
          'rdp': RdpAccountant(neighboring_relation=relation).supports(event)}


def make_case(case_id, group, description, inputs, event, results, relation=ADD_REMOVE,
              include_event=True, notes=None):
  case = {'id': case_id, 'group': group, 'description': description,
          'neighboring_relation': relation.name, 'inputs': inputs,
          'supported': supported(event, relation)}
  if include_event:
    case['event'] = event_to_json(event)
  if notes:
    case['notes'] = notes
  case['results'] = results
  return case


# --------------------------------------------------------------------------------------
# Exact values (mpmath)
# --------------------------------------------------------------------------------------

def bisect_decreasing(f, target, lo, hi, iterations=400):
  """x in [lo, hi] with f(x) = target, f decreasing; bisection in mpmath precision."""
  lo, hi = mpmath.mpf(lo), mpmath.mpf(hi)
  assert f(lo) >= target >= f(hi), 'root not bracketed'
  for _ in range(iterations):
    mid = (lo + hi) / 2
    if f(mid) > target:
      lo = mid
    else:
      hi = mid
  return (lo + hi) / 2


def gaussian_delta_exact(eps, mu):
  eps, mu = mpmath.mpf(eps), mpmath.mpf(mu)
  return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)


def gaussian_epsilon_exact(delta, mu):
  f = lambda e: gaussian_delta_exact(e, mu)
  if f(0) <= delta:
    return mpmath.mpf(0)
  hi = mpmath.mpf(1)
  while f(hi) > delta:
    hi *= 2
  return bisect_decreasing(f, delta, 0, hi)


def laplace_delta_exact(eps, b, sensitivity=1):
  """One Laplace mechanism: delta(eps) = 1 - exp((eps - eps0)/2) for eps < eps0 = sensitivity/b."""
  eps0 = mpmath.mpf(sensitivity) / b
  return -mpmath.expm1((mpmath.mpf(eps) - eps0) / 2) if eps < eps0 else mpmath.mpf(0)


def laplace_epsilon_exact(delta, b, sensitivity=1):
  return max(mpmath.mpf(0), mpmath.mpf(sensitivity) / b + 2 * mpmath.log1p(-mpmath.mpf(delta)))


def discrete_laplace_delta_exact(eps, a, count):
  """T-fold discrete Laplace DLap(a), sensitivity 1: the privacy loss is +-a, so
  L_T = a (2K - T) with K ~ Binomial(T, p), p = 1/(1 + e^-a) (symmetric in add/remove)."""
  a, eps = mpmath.mpf(a), mpmath.mpf(eps)
  p = 1 / (1 + mpmath.exp(-a))
  total = mpmath.mpf(0)
  for k in range(count + 1):
    loss = a * (2 * k - count)
    if loss > eps:
      total += mpmath.binomial(count, k) * p**k * (1 - p)**(count - k) * -mpmath.expm1(eps - loss)
  return total


def discrete_laplace_epsilon_exact(delta, a, count):
  f = lambda e: discrete_laplace_delta_exact(e, a, count)
  if f(0) <= delta:
    return mpmath.mpf(0)
  return bisect_decreasing(f, delta, 0, mpmath.mpf(a) * count)


def exact_records(eps_of_delta, delta_of_eps, deltas=(), epsilons=(), formula=''):
  out = []
  for d in deltas:
    out.append({'method': 'exact', 'query': 'epsilon', 'delta': d,
                'epsilon': float(eps_of_delta(d)), 'formula': formula})
  for e in epsilons:
    out.append({'method': 'exact', 'query': 'delta', 'epsilon': e,
                'delta': float(delta_of_eps(e)), 'formula': formula})
  return out


# --------------------------------------------------------------------------------------
# The cases
# --------------------------------------------------------------------------------------

def poisson_gaussian(z, q, count):
  return dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(z)), count)


def cases_gaussian():
  out = []
  for z in (0.5, 1.0, 2.0, 5.0):
    for count in (1, 10, 100):
      event = dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(z), count)
      cid = f'gaussian_z{z:g}_T{count}'
      mu = mpmath.sqrt(count) / z
      deltas, epsilons = (1e-5, 1e-8), (1.0,)
      results = pld_results(cid, event, (FINE, COARSE), deltas, epsilons)
      results += rdp_results(cid, event, deltas, epsilons)
      results += exact_records(lambda d: gaussian_epsilon_exact(d, mu),
                               lambda e: gaussian_delta_exact(e, mu), deltas, epsilons,
                               'mu = sqrt(T)/z; delta = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)')
      out.append(make_case(cid, 'gaussian', f'{count} x Gaussian, noise multiplier {z:g}',
                           {'noise_multiplier': z, 'count': count, 'mu': float(mu)}, event, results,
                           notes=['PLDAccountant composes T Gaussians exactly as one Gaussian of '
                                  'standard deviation z/sqrt(T) (no numerical composition).']))
  return out


def cases_laplace():
  out = []
  for b in (0.5, 1.0, 2.0, 10.0):
    for count in (1, 10, 100):
      event = dpa.SelfComposedDpEvent(dpa.LaplaceDpEvent(b), count)
      cid = f'laplace_b{b:g}_T{count}'
      deltas, epsilons = (1e-6,), (1.0,)
      results = pld_results(cid, event, (FINE, COARSE, FINEST), deltas, epsilons)
      results += rdp_results(cid, event, deltas, epsilons)
      if count == 1:
        results += exact_records(lambda d: laplace_epsilon_exact(d, b),
                                 lambda e: laplace_delta_exact(e, b), deltas, epsilons,
                                 'eps0 = 1/b; delta = 1 - exp((eps - eps0)/2) for eps < eps0')
      out.append(make_case(cid, 'laplace', f'{count} x Laplace, scale {b:g}, sensitivity 1',
                           {'scale': b, 'sensitivity': 1, 'count': count}, event, results))
  return out


def cases_poisson_gaussian():
  out = []
  for z, q, count in ((1.1, 0.01, 10_000), (0.8, 0.004, 5000), (1.0, 0.01, 100_000),
                      (2.0, 0.1, 1000), (0.6, 0.001, 10_000)):
    event = poisson_gaussian(z, q, count)
    cid = f'poisson_gaussian_z{z:g}_q{q:g}_T{count}'
    results = pld_results(cid, event, (FINE, COARSE, FINEST), (1e-5,))
    results += rdp_results(cid, event, (1e-5,))
    out.append(make_case(cid, 'poisson_gaussian',
                         f'{count} x Poisson-subsampled (q = {q:g}) Gaussian, noise multiplier {z:g}',
                         {'noise_multiplier': z, 'sampling_probability': q, 'count': count},
                         event, results))
  return out


def cases_poisson_laplace():
  out = []
  for b, q, count in ((2.0, 0.01, 1000), (1.0, 0.05, 100)):
    event = dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.LaplaceDpEvent(b)), count)
    cid = f'poisson_laplace_b{b:g}_q{q:g}_T{count}'
    results = pld_results(cid, event, (FINE, COARSE, FINEST), (1e-5,))
    assert not RdpAccountant().supports(event)
    out.append(make_case(cid, 'poisson_laplace',
                         f'{count} x Poisson-subsampled (q = {q:g}) Laplace, scale {b:g}',
                         {'scale': b, 'sensitivity': 1, 'sampling_probability': q, 'count': count},
                         event, results,
                         notes=['RdpAccountant: unsupported (PoissonSampledDpEvent only of Gaussian).']))
  return out


def cases_sampled_without_replacement():
  out = []
  for z, sample, population, count in ((1.1, 256, 60_000, 1000), (2.0, 100, 10_000, 100)):
    event = dpa.SelfComposedDpEvent(
        dpa.SampledWithoutReplacementDpEvent(population, sample, dpa.GaussianDpEvent(z)), count)
    cid = f'wor_gaussian_z{z:g}_n{sample}_N{population}_T{count}'
    assert not PLDAccountant(REPLACE_ONE).supports(event)
    results = rdp_results(cid, event, (1e-5,), relation=REPLACE_ONE)
    out.append(make_case(cid, 'sampled_without_replacement',
                         f'{count} x fixed batch of {sample} of {population} without replacement, '
                         f'Gaussian noise multiplier {z:g}, replace-one neighbours',
                         {'noise_multiplier': z, 'sample_size': sample,
                          'source_dataset_size': population, 'count': count},
                         event, results, relation=REPLACE_ONE,
                         notes=['PLDAccountant: unsupported (no SampledWithoutReplacementDpEvent). '
                                'RdpAccountant requires REPLACE_ONE for it (Wang, Balle, '
                                'Kasiviswanathan 2019 bound, q = sample/population).']))
  return out


def cases_discrete():
  out = []
  for sigma in (1.0, 3.0, 10.0):
    for sensitivity in (1, 2):
      for count in (1, 10):
        event = dpa.SelfComposedDpEvent(
            dpa.DiscreteGaussianDpEvent(sigma=sigma, sensitivity=sensitivity, dimension=1), count)
        cid = f'discrete_gaussian_s{sigma:g}_d{sensitivity}_T{count}'
        assert not PLDAccountant().supports(event)
        results = rdp_results(cid, event, (1e-6,))
        for interval in (FINE, COARSE):
          def run():
            pld = pld_lib.from_discrete_gaussian_mechanism(
                sigma, sensitivity=sensitivity, value_discretization_interval=interval)
            return pld.self_compose(count).get_epsilon_for_delta(1e-6)
          eps = timed(f'{cid} pld_direct {interval:g}', run)
          results.append({'method': 'pld_direct', 'value_discretization_interval': interval,
                          'query': 'epsilon', 'delta': 1e-6, 'epsilon': num(eps),
                          'call': f'privacy_loss_distribution.from_discrete_gaussian_mechanism('
                                  f'{sigma:g}, sensitivity={sensitivity}, value_discretization_interval='
                                  f'{interval:g}).self_compose({count})'})
        out.append(make_case(cid, 'discrete_gaussian',
                             f'{count} x discrete Gaussian, sigma {sigma:g}, sensitivity {sensitivity}',
                             {'sigma': sigma, 'sensitivity': sensitivity, 'count': count},
                             event, results,
                             notes=['PLDAccountant: DiscreteGaussianDpEvent unsupported; pld_direct uses '
                                    'the PLD library (truncated at mass 1e-30, add/remove).',
                                    'RdpAccountant: zCDP bound rho = sensitivity^2/(2 sigma^2) '
                                    '(Canonne-Kamath-Steinke Prop. 5), an upper bound.']))
  for scale in (1.0, 3.0):
    a = 1 / scale
    for count in (1, 10):
      event = dpa.SelfComposedDpEvent(dp_event.DiscreteLaplaceDpEvent(noise_parameter=a, sensitivity=1), count)
      cid = f'discrete_laplace_t{scale:g}_T{count}'
      assert not RdpAccountant().supports(event)
      results = pld_results(cid, event, (FINE, COARSE, FINEST), (1e-6,))
      results += exact_records(lambda d: discrete_laplace_epsilon_exact(d, a, count),
                               lambda e: discrete_laplace_delta_exact(e, a, count), (1e-6,), (),
                               'loss = a(2K - T), K ~ Binomial(T, 1/(1 + e^-a))')
      out.append(make_case(cid, 'discrete_laplace',
                           f'{count} x discrete Laplace, pmf ~ exp(-|x|/{scale:g}), sensitivity 1',
                           {'scale': scale, 'noise_parameter': a, 'sensitivity': 1, 'count': count},
                           event, results,
                           notes=['noise_parameter a = 1/t: pmf exp(-a|x|) tanh(a/2).',
                                  'RdpAccountant: DiscreteLaplaceDpEvent unsupported.']))
  return out


def cases_mixtures():
  out = []
  event = dpa.ComposedDpEvent([dpa.SelfComposedDpEvent(dpa.LaplaceDpEvent(10.0), 10),
                               dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(2.0), 10)])
  cid = 'mixture_10laplace_b10_10gaussian_z2'
  results = pld_results(cid, event, (FINE, COARSE, FINEST), (1e-6,))
  results += rdp_results(cid, event, (1e-6,))
  out.append(make_case(cid, 'mixture', '10 x Laplace scale 10 + 10 x Gaussian noise multiplier 2',
                       {'laplace_scale': 10.0, 'laplace_count': 10, 'noise_multiplier': 2.0,
                        'gaussian_count': 10}, event, results))

  # Gaussian alone (0.5, 1e-6)-DP: dp_accounting's calibration, checked against mpmath.
  z = dpa.get_sigma_gaussian(0.5, 1e-6)
  z_exact = 1 / bisect_decreasing(lambda m: -gaussian_delta_exact(0.5, m), -1e-6, 1e-3, 10)
  assert abs(z / float(z_exact) - 1) < 1e-9, (z, z_exact)
  event = dpa.ComposedDpEvent([dpa.LaplaceDpEvent(2.0), dpa.GaussianDpEvent(z)])
  cid = 'mixture_laplace_eps0.5_gaussian_eps0.5_delta1e-6'
  results = pld_results(cid, event, (FINE, COARSE, FINEST), (1e-6,))
  results += rdp_results(cid, event, (1e-6,))
  out.append(make_case(cid, 'mixture',
                       'Laplace (eps 0.5, scale 2) + Gaussian that alone is (0.5, 1e-6)-DP',
                       {'laplace_scale': 2.0, 'noise_multiplier': z,
                        'noise_multiplier_exact': float(z_exact),
                        'noise_multiplier_from': 'dp_accounting.get_sigma_gaussian(0.5, 1e-6)'},
                       event, results))

  event = dpa.SelfComposedDpEvent(dpa.LaplaceDpEvent(100.0), 100)
  cid = 'laplace_100coords_eps0.01'
  results = pld_results(cid, event, (FINE, COARSE, FINEST), (1e-6,))
  results += rdp_results(cid, event, (1e-6,))
  out.append(make_case(cid, 'mixture', '100 Laplace coordinates, each epsilon 0.01 (scale 100)',
                       {'scale': 100.0, 'sensitivity': 1, 'count': 100}, event, results))
  return out


def schedule_event():
  return dpa.ComposedDpEvent([dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(0.8 + 0.4 * t / 999))
                              for t in range(1000)])


def case_schedule(skip_slow):
  event = schedule_event()
  cid = 'dpsgd_schedule_q0.01_z0.8_to_1.2_T1000'
  intervals = (COARSE,) if skip_slow else (FINE, COARSE)
  results = pld_results(cid, event, intervals, (1e-5,))
  if skip_slow:
    results.append({'method': 'pld', 'value_discretization_interval': FINE, 'query': 'epsilon',
                    'delta': 1e-5, 'skipped': 'run without --skip-slow (about 10 minutes)'})
  results += rdp_results(cid, event, (1e-5,))
  case = make_case(cid, 'schedule',
                   '1000 Poisson-subsampled Gaussian steps, q = 0.01, z_t = 0.8 + 0.4 t/999 (t = 0..999)',
                   {'sampling_probability': 0.01, 'count': 1000, 'noise_multiplier_first': 0.8,
                    'noise_multiplier_last': 0.8 + 0.4 * 999 / 999,
                    'noise_multiplier_formula': 'z_t = 0.8 + 0.4 * t / 999 in IEEE doubles, '
                                                'evaluated as 0.8 + ((0.4 * t) / 999)'},
                   event, results, include_event=False,
                   notes=['ComposedDpEvent of 1000 different PoissonSampledDpEvents: the PLD accountant '
                          'convolves them one by one (slow). `event_first_3` is the JSON of the first '
                          'three steps as a ComposedDpEvent (the full event is not stored).'])
  case['event_first_3'] = event_to_json(dpa.ComposedDpEvent(event.events[:3]))
  return case


# --------------------------------------------------------------------------------------
# Timings (informative)
# --------------------------------------------------------------------------------------

def benchmarks(repeats=3):
  """PLDAccountant on T identical Poisson-subsampled Gaussian steps; best of `repeats` runs."""
  out = []
  for count in (10_000, 100_000):
    for interval in (FINE, COARSE):
      event = poisson_gaussian(1.1, 0.01, count)
      compose_s, query_s = [], []
      for _ in range(repeats):
        t0 = time.perf_counter()
        acc = PLDAccountant(value_discretization_interval=interval)
        acc.compose(event)
        t1 = time.perf_counter()
        eps = acc.get_epsilon(1e-5)
        t2 = time.perf_counter()
        compose_s.append(t1 - t0)
        query_s.append(t2 - t1)
      out.append({'what': f'PLDAccountant, SelfComposed({count}, PoissonSampled(0.01, Gaussian(1.1))), '
                          f'best of {repeats}',
                  'value_discretization_interval': interval,
                  'compose_seconds': round(min(compose_s), 3),
                  'get_epsilon_seconds': round(min(query_s), 3),
                  'epsilon_at_1e-5': float(eps)})
      log(f'benchmark {count} steps at {interval:g}: {min(compose_s):.2f}s + {min(query_s):.2f}s')
  return out


# --------------------------------------------------------------------------------------

def package_digest():
  """sha256 over dp_accounting's non-test .py files (sorted by path): identifies the install."""
  root = os.path.dirname(dpa.__file__)
  h = hashlib.sha256()
  for dirpath, _, files in sorted(os.walk(root)):
    for name in sorted(files):
      if name.endswith('.py') and not name.endswith('_test.py'):
        path = os.path.join(dirpath, name)
        h.update(os.path.relpath(path, root).encode() + b'\0')
        with open(path, 'rb') as f:
          h.update(f.read())
  return h.hexdigest()


def main():
  parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
  parser.add_argument('--out', default=DEFAULT_OUT, help='output file (default: test/fixtures/accounting.json)')
  parser.add_argument('--skip-slow', action='store_true',
                      help='skip the ~10 min PLD run of the 1000-step schedule at interval 1e-4')
  args = parser.parse_args()

  cases = []
  for make in (cases_gaussian, cases_laplace, cases_poisson_gaussian, cases_poisson_laplace,
               cases_sampled_without_replacement, cases_discrete, cases_mixtures):
    cases += make()
  cases.append(case_schedule(args.skip_slow))
  ids = [c['id'] for c in cases]
  assert len(ids) == len(set(ids)), 'duplicate case ids'

  schedule = cases[-1]['id']
  TIMINGS['benchmarks'] = benchmarks() + [
      {'what': f'PLDAccountant, case {schedule} (1000 distinct subsampled Gaussians), '
               f'compose + get_epsilon, one run',
       'value_discretization_interval': interval,
       'seconds': next(t['seconds'] for t in TIMINGS['per_computation_seconds']
                       if t['what'] == f'{schedule} pld {interval:g}')}
      for interval in (FINE, COARSE) if not (args.skip_slow and interval == FINE)] + [
      {'what': f'RdpAccountant, case {schedule}, compose, one run',
       'seconds': next(t['seconds'] for t in TIMINGS['per_computation_seconds']
                       if t['what'] == f'{schedule} rdp')}]
  TIMINGS['machine'] = {'platform': platform.platform(), 'processor': platform.machine(),
                        'cpu_count': os.cpu_count(), 'python': platform.python_version()}
  TIMINGS['total_seconds'] = round(time.perf_counter() - START, 1)

  fixture = {
      'source': {
          'generator': 'scripts/accounting_reference.py',
          'library': 'dp_accounting (Google, github.com/google/differential-privacy, python/dp_accounting)',
          'dp_accounting_version': importlib.metadata.version('dp-accounting'),
          'snapshot_commit': SNAPSHOT_COMMIT,
          'dp_accounting_last_commit': DP_ACCOUNTING_LAST_COMMIT,
          'package_sha256': package_digest(),
          'versions': {'python': platform.python_version(), 'numpy': np.__version__,
                       'scipy': scipy.__version__, 'mpmath': mpmath.__version__,
                       'attrs': importlib.metadata.version('attrs')},
          'settings': {
              'neighboring_relation': 'ADD_OR_REMOVE_ONE unless a case says otherwise',
              'pld': 'dp_accounting.pld.PLDAccountant(neighboring_relation, value_discretization_interval); '
                     'intervals 1e-4 (the default of this version), 1e-3, and 1e-5 where cheap; '
                     'pessimistic estimates, connect-the-dots (library defaults)',
              'rdp': 'dp_accounting.rdp.RdpAccountant() with DEFAULT_RDP_ORDERS',
              'rdp_orders': [float(o) for o in rdp_privacy_accountant.DEFAULT_RDP_ORDERS],
              'exact': 'mpmath at 50 digits, bisection, rounded once to a double',
              'event_json': 'DpEvent.to_named_tuple() with nested named tuples as objects '
                            '(module_name, class_name, then the fields in order); '
                            'DpEvent.from_named_tuple() reads it back',
          },
      },
      'cases': cases,
      'unsupported': [
          {'what': 'random allocation / balls-in-bins (each example in exactly one of k steps)',
           'reason': 'not in dp_accounting 0.6.0 at this commit (no RandomAllocation event or '
                     'accountant; searched the whole repository)'},
          {'what': 'PLD of SampledWithoutReplacementDpEvent', 'reason': 'PLDAccountant does not support it'},
          {'what': 'RDP of PoissonSampledDpEvent(LaplaceDpEvent)', 'reason': 'RdpAccountant supports only Gaussian sub-events'},
          {'what': 'PLDAccountant with DiscreteGaussianDpEvent',
           'reason': 'unsupported event; the PLD library function is used directly (method pld_direct)'},
          {'what': 'RdpAccountant with DiscreteLaplaceDpEvent', 'reason': 'unsupported event'},
      ],
      'timings': TIMINGS,
  }
  os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
  with open(args.out, 'w', encoding='utf-8') as f:
    json.dump(fixture, f, indent=1, allow_nan=False)
    f.write('\n')
  log(f'wrote {args.out} ({len(cases)} cases)')


if __name__ == '__main__':
  main()
