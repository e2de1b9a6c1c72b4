#!/usr/bin/env python3
"""test/fixtures/extreme-gaussian.json: epsilon(delta) of the Gaussian mechanism of distance mu at
the extremes where dpnoise's search once never ended (issue 47: mu below 1e-40, delta down to
1e-300), in mpmath at 800 digits (delta(0; mu) is about mu / sqrt(2 pi), a difference of two
numbers near 1/2: mu = 1e-300 needs some 320 digits to keep it). delta(eps; mu) = Q(eps/mu - mu/2) -
e^eps Q(eps/mu + mu/2), solved for eps by bisection below the closed form's bound mu (z + mu/2),
z = Q^-1(delta) by bisection too.

Run from the repository root: python3 scripts/extreme_gaussian_reference.py
"""
import mpmath as mp

import pinned
from write_fixture import write_fixture

pinned.check()
mp.mp.dps = 800

CASES = [(1e-50, 1e-300), (1e-100, 1e-300), (1e-60, 1e-100), (1e-40, 1e-60), (1e-170, 1e-180), (1e-30, 1e-300), (1e-240, 1e-10)]


def q(x):
    return mp.erfc(x / mp.sqrt(2)) / 2


def delta(eps, mu):
    return q(eps / mu - mu / 2) - mp.e**eps * q(eps / mu + mu / 2)


def q_inverse(target):
    lo, hi = mp.mpf(-40), mp.mpf(40)
    for _ in range(400):
        mid = (lo + hi) / 2
        if q(mid) > target:
            lo = mid
        else:
            hi = mid
    return hi


def epsilon(target, mu):
    if delta(mp.mpf(0), mu) <= target:
        return mp.mpf(0)
    lo, hi = mp.mpf(0), mu * (q_inverse(target) + mu / 2)
    for _ in range(400):
        mid = (lo + hi) / 2
        if delta(mid, mu) > target:
            lo = mid
        else:
            hi = mid
    return hi


cases = []
for mu, d in CASES:
    eps = epsilon(mp.mpf(d), mp.mpf(mu))
    cases.append({'mu': mu, 'delta': d, 'epsilon': float(eps)})
write_fixture('extreme-gaussian.json', {'generator': 'scripts/extreme_gaussian_reference.py', 'cases': cases})
