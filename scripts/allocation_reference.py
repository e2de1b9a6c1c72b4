"""Reference values for random allocation of Gaussian releases (src/engine/allocation.ts),
by numerical integration, independent of the accountant's grids and transforms.

Each record is in exactly one of t steps, chosen uniformly; each step adds N(0, 1) noise to a sum
of sensitivity mu (mu = 1/z for noise multiplier z). The likelihood ratio of the whole output is
S/t with S = sum_i e^(l_i), where l_i ~ N(mu^2/2, mu^2) at the record's step under the law with the
record (P) and l_i ~ N(-mu^2/2, mu^2) otherwise and under the law without it (Q). So

    remove: delta(eps) = P(S > t e^eps) - e^eps Q(S > t e^eps)
    add:    delta(eps) = Q(S < t e^-eps) - e^eps P(S < t e^-eps)

and epsilon(delta) is the smallest eps with the larger of the two at most delta. For t = 2 and 3
the tails of S are integrals over the terms' normal laws (scipy's quad, nested for t = 3), with
tolerances far below the deltas asked. Writes test/fixtures/allocation.json.

Run: python3 scripts/allocation_reference.py
"""
import math

import numpy as np
import scipy
from scipy import integrate, optimize, special

from write_fixture import write_fixture

TOL = dict(epsabs=1e-15, epsrel=1e-11, limit=400)


def term_laws(mu):
    """The means of a term's exponent with the record (b) and without (d); both have sd mu."""
    return mu * mu / 2, -mu * mu / 2


def upper(mean, mu, x):
    """P(e^N(mean, mu^2) > x)."""
    if x <= 0:
        return 1.0
    return special.ndtr(-(math.log(x) - mean) / mu)


def lower(mean, mu, x):
    return 1.0 - upper(mean, mu, x)


def sum_tail(means, mu, x, above):
    """P(sum of e^N(mean_i, mu^2) > x) (above) or < x, by conditioning on all terms but the last."""
    if len(means) == 1:
        return upper(means[0], mu, x) if above else lower(means[0], mu, x)
    first, rest = means[0], means[1:]
    # The first term's exponent y: the others must make up x - e^y.
    cut = math.log(x) if x > 0 else -np.inf
    density = lambda y: math.exp(-0.5 * ((y - first) / mu) ** 2) / (mu * math.sqrt(2 * math.pi))
    lo, hi = first - 12 * mu, first + 12 * mu
    inside = lambda y: density(y) * sum_tail(rest, mu, x - math.exp(y), above)
    top = min(cut, hi)
    mass = integrate.quad(inside, lo, top, points=None, **TOL)[0] if top > lo else 0.0
    beyond = special.ndtr(-(cut - first) / mu) if x > 0 else 1.0
    # With the first term alone above x: the sum is above x for sure.
    return mass + (beyond if above else 0.0)


def deltas(mu, t, eps):
    b, d = term_laws(mu)
    with_record = [b] + [d] * (t - 1)
    without = [d] * t
    c = t * math.exp(eps)
    remove = sum_tail(with_record, mu, c, True) - math.exp(eps) * sum_tail(without, mu, c, True)
    c = t * math.exp(-eps)
    add = sum_tail(without, mu, c, False) - math.exp(eps) * sum_tail(with_record, mu, c, False)
    return remove, add


def epsilon(mu, t, delta):
    f = lambda eps: math.log(max(deltas(mu, t, eps))) - math.log(delta)
    hi = 1.0
    while f(hi) > 0:
        hi *= 2
    return optimize.brentq(f, 1e-9, hi, xtol=1e-12, rtol=1e-10)


def main():
    cases = []
    for z in (2.0, 1.0):
        for t in (2, 3):
            mu = 1 / z
            for delta in (1e-5, 1e-6):
                eps = epsilon(mu, t, delta)
                r, a = deltas(mu, t, eps)
                cases.append({'z': z, 'steps': t, 'delta': delta, 'epsilon': eps, 'removeDelta': r, 'addDelta': a})
                print(cases[-1], flush=True)
    out = {
        'source': 'scripts/allocation_reference.py: numerical integration (scipy.integrate.quad)',
        'versions': {'numpy': np.__version__, 'scipy': scipy.__version__},
        'neighbours': 'add/remove; epsilon is the smallest eps with both directions\' delta at most delta',
        'cases': cases,
    }
    write_fixture('allocation.json', out)


if __name__ == '__main__':
    main()
