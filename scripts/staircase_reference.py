#!/usr/bin/env python3
"""Reference values for the staircase mechanism (test/fixtures/staircase.json), in mpmath.

Formulas: docs/staircase.md. For the 1-D staircase of sensitivity 1, budget eps (b = e^-eps) and
shape gamma, the moment E|X|^p is summed here straight from the density, step by step, without
the closed forms the library uses:
  E|X|^p = 2 a sum_k [ b^k int_k^(k+gamma) x^p dx + b^(k+1) int_(k+gamma)^(k+1) x^p dx ],
  a = (1 - b) / (2 (gamma + b (1 - gamma))).
The optimal shapes minimise it over gamma (golden-section search, checked against a scan of 201
shapes, for p = 1, 2, 3, 4 and 8); the i.n.i.d. allocation for a profile lambda solves lambda_i V_1'(eps_i) = -nu with
sum eps_i = eps (l1 error); the 2-D l1 staircase (the journal's Table V-4 row) minimises its closed form over
its shape. Run from the repository root: python3 scripts/staircase_reference.py (a few seconds).
"""
import json
import os

import pinned

pinned.check()
from mpmath import diff, exp, inf, mp, mpf, nsum  # noqa: E402

mp.dps = 30
OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "test", "fixtures", "staircase.json")


def moment(p, gamma, eps):
    b = exp(-eps)
    a = (1 - b) / (2 * (gamma + b * (1 - gamma)))
    term = lambda k: (b**k * ((k + gamma) ** (p + 1) - k ** (p + 1)) + b ** (k + 1) * ((k + 1) ** (p + 1) - (k + gamma) ** (p + 1))) / (p + 1)
    return 2 * a * nsum(term, [0, inf])


def golden(f, lo, hi, steps=160):
    """The minimiser of a unimodal f on [lo, hi] by golden-section search (no derivatives)."""
    r = (mp.sqrt(5) - 1) / 2
    a, b = mpf(lo), mpf(hi)
    c, d = b - r * (b - a), a + r * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(steps):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - r * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + r * (b - a)
            fd = f(d)
    return (a + b) / 2


def best_shape(p, eps):
    """The gamma in [0, 1] minimising moment(p, ., eps), and the minimum."""
    gamma = golden(lambda g: moment(p, g, eps), 0, 1)
    return gamma, moment(p, gamma, eps)


def cost(p, eps):
    return best_shape(p, eps)[1]


def cost_slope(p, eps):
    """V_p'(eps): the moment's derivative in eps at the optimal shape (the envelope theorem)."""
    gamma = best_shape(p, eps)[0]
    return diff(lambda e: moment(p, gamma, e), eps)


def inid(lam, eps):
    """The optimal split of eps over a profile lambda for the l1 error: lambda_i V_1'(eps_i) = -nu with
    sum eps_i = eps, from V_1(e) = e^(e/2) / (e^e - 1) = 1 / (2 sinh(e/2)) (checked against the series
    in main) and its derivative, -cosh(e/2) / (4 sinh(e/2)^2)."""
    slope = lambda e: -mp.cosh(e / 2) / (4 * mp.sinh(e / 2) ** 2)

    def bisect(decreasing, target, lo, hi):
        """The x in [lo, hi] (geometric bisection) where a decreasing function crosses target."""
        for _ in range(300):
            mid = mp.sqrt(lo * hi)
            lo, hi = (mid, hi) if decreasing(mid) > target else (lo, mid)
        return mp.sqrt(lo * hi)

    def split(nu):
        return [bisect(lambda e: -l * slope(e), nu, mpf(10) ** -30, mpf(10) ** 6) for l in lam]

    nu = bisect(lambda n: sum(split(n)), eps, mpf(10) ** -30, mpf(10) ** 30)
    eps_i = split(nu)
    return eps_i, sum(l / (2 * mp.sinh(e / 2)) for l, e in zip(lam, eps_i))


def two_d(eps):
    """E||X||_1 of the 2-D l1-shell staircase (l1 sensitivity 1), minimised over its shape g."""
    q = exp(-eps)
    S0, S1, S2 = 1 / (1 - q), q / (1 - q) ** 2, q * (1 + q) / (1 - q) ** 3

    def error(g):
        A, B, C = g + q * (1 - g), g**2 + q * (1 - g**2), g**3 + q * (1 - g**3)
        return mpf(2) / 3 * (3 * A * S2 + 3 * B * S1 + C * S0) / (2 * A * S1 + B * S0)

    g = golden(error, 0, 1)
    return g, error(g)


def main():
    f = lambda x: float(x)
    moments = [
        {"p": p, "gamma": g, "epsilon": e, "moment": f(moment(p, mpf(g), mpf(e)))}
        for p in (1, 2, 3, 4, 8)
        for g in (0.0, 0.1, 0.3, 0.5, 0.9, 1.0)
        for e in (0.05, 0.5, 1.0, 3.0, 10.0)
    ]
    shapes = []
    for p in (1, 2, 3, 4, 8):
        for e in (0.05, 0.2, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 20.0):
            gamma, value = best_shape(p, mpf(e))
            # Golden section assumes one minimum; a scan of 201 shapes must find none lower.
            assert all(moment(p, mpf(k) / 200, mpf(e)) >= value * (1 - mpf(10) ** -20) for k in range(201)), (p, e)
            shapes.append({"p": p, "epsilon": e, "gamma": f(gamma), "cost": f(value), "slope": f(cost_slope(p, mpf(e)))})
            if p == 1:  # the closed forms of docs/staircase.md against the series
                assert abs(gamma - 1 / (1 + exp(mpf(e) / 2))) < mpf(10) ** -12, (e, gamma)
                assert abs(value - 1 / (2 * mp.sinh(mpf(e) / 2))) < mpf(10) ** -25 * value, (e, value)
    splits = []
    for e in (1.0, 3.0, 5.0, 10.0):
        eps_i, error = inid([mpf("0.15"), mpf("0.85")], mpf(e))
        splits.append({"p": 1, "sensitivity": [0.15, 0.85], "epsilon": e, "epsilons": [f(x) for x in eps_i], "error": f(error)})
    table = [{"epsilon": e, **dict(zip(("shape", "error"), map(f, two_d(mpf(e)))))} for e in (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 5.0)]
    data = {"generator": "scripts/staircase_reference.py", "mpmath": mp.__class__.__module__.split(".")[0], "dps": mp.dps,
            "moments": moments, "shapes": shapes, "splits": splits, "twoDimensional": table}
    with open(OUT, "w", encoding="utf-8", newline="\n") as out:
        json.dump(data, out, indent=1)
        out.write("\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
