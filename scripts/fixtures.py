#!/usr/bin/env python3
"""Generate the high-precision reference fixtures in test/fixtures/ for dpnoise.

Writes three JSON files (formulas: docs/math.md, docs/accounting.md and docs/calibration.md):
  test/fixtures/special.json    erfc, normalSf (Q), normalLogSf (log Q), normalIsf (Q^-1)
  test/fixtures/privacy.json    gaussianDelta delta(eps; mu), gaussianMu mu0(eps, delta),
                                gaussianEpsilon eps(mu, delta)
  test/fixtures/calibrate.json  Gaussian / Laplace scale allocations (optimal, iid, spr)

Rerun from the repository root:   npm run generate   (this script and scripts/ziggurat.py)
or   python3 scripts/fixtures.py [--out DIR]   (DIR defaults to test/fixtures). Needs only
Python >= 3.9 and the mpmath pinned in scripts/requirements.txt (scripts/pinned.py checks it);
npm test fails when the committed files are not this script's output (scripts/check-generated.mjs).
Deterministic (no randomness, no timestamps; the same bytes on every run). Every input is an exact
double; every expected value is computed with mpmath at >= 50 significant digits (more
where cancellation needs it, checked at run time), recomputed at a higher precision as a
check, and rounded once to the nearest double. Roots are found with bracketed methods
(mpmath findroot 'anderson' on a sign-verified bracket, bisection as fallback) and their
residuals are checked before anything is written; a sample of delta(eps; mu) values is
also checked against a cancellation-free quadrature. The script asserts the reference
numbers of docs/accounting.md ("Calibration", "Figures of merit") and prints which error power p the published Laplace
gains (dB) correspond to. Runs in about 20 s.
"""

import argparse
import json
import math
import os
import sys
import time

import pinned

pinned.check()  # before the import: a clear message if mpmath is missing or another version
from mpmath import mp, mpf  # noqa: E402

BASE_DPS = 50          # digits for direct function values
ROOT_DPS = 60          # digits for root finding
CHECK_EXTRA = 30       # extra digits of the independent re-computation
MIN_NORMAL = 2.2250738585072014e-308
GENERATOR = "scripts/fixtures.py"

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(REPO, "test", "fixtures")

mp.dps = BASE_DPS


# ---------------------------------------------------------------------------
# Input grids. Generated in mpmath and rounded to doubles, so they do not depend
# on the platform's libm; every value written is an exact double.
# ---------------------------------------------------------------------------

def double_below(x):
    """The largest double <= x."""
    f = float(x)
    return f if mpf(f) <= x else math.nextafter(f, -math.inf)


def double_above(x):
    """The smallest double >= x."""
    f = float(x)
    return f if mpf(f) >= x else math.nextafter(f, math.inf)


def linspace(a, b, n):
    with mp.workdps(40):
        a, b = mpf(a), mpf(b)
        return [float(a + (b - a) * i / (n - 1)) for i in range(n)]


def geomspace(a, b, n):
    """n log-spaced doubles from a to b (a, b > 0); the endpoints are a and b exactly."""
    with mp.workdps(40):
        la, lb = mp.log(mpf(a)), mp.log(mpf(b))
        out = [float(mp.exp(la + (lb - la) * i / (n - 1))) for i in range(n)]
    out[0], out[-1] = float(a), float(b)
    return out


def dedup(xs):
    seen, out = set(), []
    for x in xs:
        key = (x, str(x))  # keeps 0.0 and -0.0 apart
        if key not in seen:
            seen.add(key)
            out.append(x)
    return out


def both_signs(mags):
    out = []
    for m in mags:
        out += [m, -m]
    return out


def is_normal(v):
    return v != 0 and abs(v) >= MIN_NORMAL and abs(v) != float("inf")


# ---------------------------------------------------------------------------
# mpmath functions (evaluated at the current mp precision)
# ---------------------------------------------------------------------------

def Q(x):
    return mp.erfc(x / mp.sqrt(2)) / 2


def logQ(x):
    if x < 0:
        return mp.log1p(-Q(-x))   # Q(x) = 1 - Q(-x); keeps the tiny log exact
    return mp.log(Q(x))


def halve(g, a, b, fa):
    """One bisection step on [a, b], where g changes sign and g(a) = fa: returns the half
    bracket (a, b, g(a)) and the midpoint; the bracket collapses to the midpoint if g is 0 there."""
    m = (a + b) / 2
    fm = g(m)
    if fm == 0:
        return m, m, fm, m
    if (fm > 0) == (fa > 0):
        return m, b, fm, m
    return a, m, fa, m


def solve_bracketed(g, lo, hi):
    """Root of a monotone g on [lo, hi]; the bracket is verified by sign first.
    Uses mpmath findroot (Anderson-Bjoerk, a safeguarded regula falsi); falls back to
    bisection if that does not converge inside the bracket."""
    glo, ghi = g(lo), g(hi)
    if glo == 0:
        return lo
    if ghi == 0:
        return hi
    if glo * ghi > 0:
        raise AssertionError("bracket [%s, %s] has no sign change" % (lo, hi))
    a, b = min(lo, hi), max(lo, hi)
    fa = g(a)
    # a few bisection steps first: regula falsi converges slowly on a wide bracket where g
    # is strongly curved (e.g. log delta over several decades of mu)
    while b - a > mpf(1) / 64 * max(1, abs(a), abs(b)):
        a, b, fa, _ = halve(g, a, b, fa)
    if a == b:
        return a
    tol = mpf(10) ** (-(mp.dps - 6))
    try:
        r = mp.findroot(g, (a, b), solver="anderson", tol=tol, maxsteps=400, verify=False)
        if a <= r <= b and abs(g(r)) < mpf(10) ** (-(mp.dps - 12)):
            return r
    except (ValueError, ZeroDivisionError):
        pass
    # bisection fallback
    solve_bracketed.fallbacks += 1
    width_tol = mpf(10) ** (-(mp.dps - 3))
    for _ in range(20 * mp.dps):
        a, b, fa, m = halve(g, a, b, fa)
        if b - a <= width_tol * max(1, abs(m)):
            break
    return (a + b) / 2


solve_bracketed.fallbacks = 0


def delta_mp(eps, mu):
    """delta(eps; mu) = Q(eps/mu - mu/2) - e^eps Q(eps/mu + mu/2), to the current mp.dps
    relative accuracy. The subtraction cancels (badly for tiny mu); the working precision
    is raised until the digits lost to cancellation are covered with a margin."""
    if mu == 0:
        return mpf(0)
    if eps == 0:
        return mp.erf(mu / (2 * mp.sqrt(2)))
    base = mp.dps
    work = base + 15
    while True:
        with mp.workdps(work):
            a = eps / mu - mu / 2
            b = eps / mu + mu / 2
            qa = Q(a)
            d = qa - mp.exp(eps) * Q(b)
            if d > 0:
                lost = float(mp.log10(qa / d))
                if work - lost >= base + 12:
                    return d
            else:
                lost = work
        if work > 20000:
            raise AssertionError("delta(%s; %s): cancellation too large" % (eps, mu))
        work = int(base + 25 + 1.2 * lost) if base + 25 + 1.2 * lost > work else 2 * work


def quad_pieces(f, pts):
    """sum of int f over [pts[i], pts[i+1]] (the last point may be +inf). mpmath's quad
    stops on an absolute error of about 10^-dps, so each piece is mapped to a unit
    interval and divided by the size of f there before integrating."""
    total = mpf(0)
    for p, q in zip(pts[:-1], pts[1:]):
        if q == mp.inf:
            m = abs(f(p)) or mpf(1)
            total += m * mp.quad(lambda t: f(p + t) / m, [0, 1, 4, 16, mp.inf])
        else:
            L = q - p
            m = max(abs(f(p)), abs(f(q)), abs(f(p + L / 2))) or mpf(1)
            total += L * m * mp.quad(lambda t: f(p + L * t) / m, [0, 1])
    return total


def delta_integral(eps, mu):
    """Independent, cancellation-free check (eps > 0): since d delta / d mu = phi(eps/mu - mu/2)
    and delta(eps; 0) = 0, delta(eps; mu) = int_0^mu phi(eps/t - t/2) dt. Substituting
    u = eps/t - t/2 gives int_{a0}^inf phi(u) h(u) du with a0 = eps/mu - mu/2 and
    h(u) = 1 - u/sqrt(u^2 + 2 eps) = 2 eps / (s (s + u)), s = sqrt(u^2 + 2 eps)."""
    def h(u):
        s = mp.sqrt(u * u + 2 * eps)
        return 2 * eps / (s * (s + u)) if u > 0 else 1 - u / s
    a0 = eps / mu - mu / 2
    r = mp.sqrt(2 * eps)
    # h falls from 2 to 0 around u = 0 on the scale r and then decays like eps/u^2; phi
    # decays on the scale 1/a0: break the range so that every piece is smooth on its own
    ks = range(-3, max(4, int(mp.log(8 / r, 4)) + 2))
    br = [r * mpf(4) ** k for k in ks if r * mpf(4) ** k < 8]
    pts = set(x for x in [mpf(0)] + br + [-x for x in br] if x > a0)
    if a0 > 0:
        pts |= set(a0 + mpf(2) ** k / max(1, a0) for k in range(-4, 6))
    pts = [a0] + sorted(pts) + [mp.inf]
    return quad_pieces(lambda u: mp.npdf(u) * h(u), pts)


def isf_mp(p):
    """x with Q(x) = p, 0 < p < 1."""
    if p == mpf(0.5):
        return mpf(0)
    if p > 0.5:
        return -isf_mp(1 - p)        # 1 - p is exact for a double p
    lp = mp.log(p)
    g = lambda x: logQ(x) - lp       # decreasing, g(0) > 0
    hi = mpf(1)
    while g(hi) > 0:
        hi *= 2
    return solve_bracketed(g, mpf(0), hi)


def mu0_mp(eps, delta):
    """mu0(eps, delta): the mu with delta(eps; mu) = delta."""
    mu_eps0 = 2 * mp.sqrt(2) * mp.erfinv(delta)   # root for eps = 0: a lower bound otherwise
    if eps == 0:
        return mu_eps0
    # lower bound 1/w_u of the conference paper's Algorithm 1, written without cancellation:
    # 1/w_u = sqrt(z^2 + 2 eps) - z = 2 eps / (sqrt(z^2 + 2 eps) + z), z = Qinv(delta)
    z = isf_mp(delta)
    s = mp.sqrt(z * z + 2 * eps)
    mu_l = 2 * eps / (s + z) if z >= 0 else s - z
    L = max(mu_eps0, mu_l)
    ld = mp.log(delta)
    g = lambda t: mp.log(delta_mp(eps, mp.exp(t))) - ld   # increasing in t = log mu
    lo = L / 2
    hi = 2 * L
    while g(mp.log(hi)) <= 0:
        hi *= 2
    return mp.exp(solve_bracketed(g, mp.log(lo), mp.log(hi)))


def eps_mp(mu, delta):
    """Smallest eps >= 0 with delta(eps; mu) <= delta."""
    if delta_mp(mpf(0), mu) <= delta:
        return mpf(0)
    z = isf_mp(delta)
    e_hi = mu * (z + mu / 2)            # delta(e_hi; mu) < Q(z) = delta
    assert e_hi > 0
    ld = mp.log(delta)
    g = lambda s: mp.log(delta_mp(mp.exp(s), mu)) - ld    # decreasing in s = log eps
    hi = 2 * e_hi
    lo = e_hi / 2
    while g(mp.log(lo)) <= 0:
        lo /= 2
    return mp.exp(solve_bracketed(g, mp.log(lo), mp.log(hi)))


def twice(fn, args, dps):
    """fn(*args) at dps and at dps + CHECK_EXTRA digits; both must agree to
    dps - 8 digits (so the double they round to is the same). Returns the finer value."""
    with mp.workdps(dps):
        v1 = fn(*[mpf(a) for a in args])
    with mp.workdps(dps + CHECK_EXTRA):
        v2 = fn(*[mpf(a) for a in args])
        if v2 != 0:
            rel = abs(v1 - v2) / abs(v2)
            assert rel < mpf(10) ** (-(dps - 8)), (fn.__name__, args, v1, v2)
        else:
            assert v1 == 0, (fn.__name__, args, v1)
    assert float(v1) == float(v2), (fn.__name__, args, v1, v2)
    return v2


# ---------------------------------------------------------------------------
# special.json
# ---------------------------------------------------------------------------

def table(fn, xs, keep=is_normal, dps=BASE_DPS):
    rows = []
    for x in dedup(xs):
        v = float(twice(fn, (x,), dps))
        if keep(v):
            rows.append([x, v])
    return rows


def erfc_fn(x):
    return mp.erfc(x)


def sf_fn(x):
    return Q(x)


def logsf_fn(x):
    return logQ(x)


def isf_fn(p):
    return isf_mp(p)


def build_special():
    tiny_mags = geomspace(1e-300, 9e-9, 26)
    erfc = {
        "tiny": table(erfc_fn, [0.0, -0.0, 5e-324, -5e-324, 1e-300, -1e-300] + both_signs(tiny_mags)
                      + [1e-200, -1e-200, 1e-100, -1e-100, 1e-20, -1e-20, 1e-16, -1e-16]),
        "small": table(erfc_fn, both_signs(geomspace(1e-8, 0.84375, 30))),
        "medium": table(erfc_fn, linspace(0.84375, 1.25, 55)),
        "large": table(erfc_fn, linspace(1.25, 6.0, 60)),
        "tail": table(erfc_fn, linspace(6.0, 26.5, 60) + [26.54, 26.55, 26.5432]),
        "negative": table(erfc_fn, [-x for x in geomspace(1e-8, 30.0, 60)]
                          + [-0.5, -0.84375, -1.0, -1.25, -2.0, -6.0]),
    }
    sf = {
        "center": table(sf_fn, [0.0, 1e-300, -1e-300, 1e-10, -1e-10, 1e-5, -1e-5]
                        + linspace(-0.99, 0.99, 61)),
        "moderate": table(sf_fn, linspace(1.0, 10.0, 60)),
        "tail": table(sf_fn, linspace(10.0, 37.5, 60) + [37.51, 37.52, 37.53]),
        "negative": table(sf_fn, linspace(-40.0, -1.0, 60)),
    }
    logsf = {
        # log Q(x) = log1p(-Q(-x)) is subnormal (|.| < 2.2e-308) for x < about -37.52,
        # so the rows below that are dropped by the normal-double rule.
        "negative": table(logsf_fn, [-x for x in geomspace(0.01, 40.0, 60)]
                          + [-36.0, -37.0, -37.5, -37.51, -37.52, -38.0]),
        "center": table(logsf_fn, [1e-300, -1e-300] + linspace(-1.0, 1.0, 61)),
        "moderate": table(logsf_fn, linspace(1.0, 38.0, 60)),
        "far": table(logsf_fn, geomspace(38.0, 1e5, 50)),
        "extreme": table(logsf_fn, geomspace(1e5, 1e10, 40)),
        "huge": table(logsf_fn, [1e15, 1e20, 1e30, 1e50, 1e75, 1e100, 1e125, 1e150, 1e154]),
    }
    upper = [float(1 - mpf(2) ** -53), float(1 - mpf(2) ** -52), float(1 - 3 * mpf(2) ** -53),
             float(1 - 5 * mpf(2) ** -53)]
    upper += [float(1 - mpf(10) ** -k) for k in range(1, 17)]
    upper += linspace(0.8, 1.0, 42)[1:-1]
    upper = sorted(set(p for p in upper if 0.8 < p < 1.0))
    isf = {
        "center": table(isf_fn, linspace(0.2, 0.8, 61) + [0.5 + 2.0 ** -30, 0.5 - 2.0 ** -30],
                        keep=lambda v: True, dps=ROOT_DPS),
        "upper": table(isf_fn, upper, keep=lambda v: True, dps=ROOT_DPS),
        "moderate": table(isf_fn, geomspace(1e-10, 0.2, 60), keep=lambda v: True, dps=ROOT_DPS),
        "tail": table(isf_fn, geomspace(1e-300, 1e-10, 60) + [5e-300, 2.5e-250],
                      keep=lambda v: True, dps=ROOT_DPS),
    }
    # residual check of the inverse: Q(x) == p to 30+ digits (for p > 1/2 on the 1 - p side)
    with mp.workdps(ROOT_DPS):
        for region in isf.values():
            for p, _ in region:
                x = isf_mp(mpf(p))
                if p > 0.5:
                    r = abs(Q(-x) - (1 - mpf(p))) / (1 - mpf(p))
                else:
                    r = abs(Q(x) - mpf(p)) / mpf(p)
                assert r < mpf(10) ** -40, (p, r)
    return {"erfc": erfc, "normalSf": sf, "normalLogSf": logsf, "normalIsf": isf}


# ---------------------------------------------------------------------------
# privacy.json
# ---------------------------------------------------------------------------

def check_delta_residual(eps, mu, delta):
    with mp.workdps(ROOT_DPS):
        d = delta_mp(mpf(eps), mu)
        r = abs(d - mpf(delta)) / mpf(delta)
    assert r < mpf(10) ** -25, (eps, mu, delta, r)
    return r


def gaussian_delta_rows(pairs, lo=MIN_NORMAL, hi=1.0):
    rows = []
    for mu, eps in dedup_pairs(pairs):
        v = float(twice(lambda e, m: delta_mp(e, m), (eps, mu), BASE_DPS))
        if is_normal(v) and lo <= v <= hi:
            rows.append([mu, eps, v])
    return rows


def dedup_pairs(pairs):
    seen, out = set(), []
    for p in pairs:
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out


def thin(rows, n):
    """Every k-th row so that at most about n remain (deterministic)."""
    if len(rows) <= n:
        return rows
    step = len(rows) / float(n)
    return [rows[int(i * step)] for i in range(n)]


def build_privacy():
    t0 = time.time()
    gd = {}
    # typical: mu in [0.05, 5], eps in [0.01, 10]
    mus = geomspace(0.05, 5.0, 10)
    epss = geomspace(0.01, 10.0, 9)
    gd["typical"] = thin(gaussian_delta_rows([(m, e) for m in mus for e in epss]), 80)
    # small_mu: mu in [1e-12, 0.06], eps in [0, 1] including 0
    pairs = []
    for m in geomspace(1e-12, 0.06, 10):
        for e in [0.0, float(mpf(m) / 8), m, float(3 * mpf(m)), float(10 * mpf(m)),
                  float(30 * mpf(m)), 1e-3, 0.01, 0.1, 1.0]:
            if 0 <= e <= 1:
                pairs.append((m, e))
    gd["small_mu"] = gaussian_delta_rows(pairs)
    # large_eps: eps in [10, 1000], mu = c sqrt(2 eps) keeps delta in [1e-300, 0.5]
    pairs = []
    for e in geomspace(10.0, 1000.0, 8):
        for c in linspace(0.45, 1.0, 10):
            pairs.append((float(c * mp.sqrt(2 * mpf(e))), e))
    gd["large_eps"] = gaussian_delta_rows(pairs, lo=1e-300, hi=0.5)
    # huge_eps: eps in [1e3, 1e6], where rounding a = eps/mu - mu/2 dominates the error
    pairs = []
    for e in geomspace(1000.0, 1e6, 7):
        for c in linspace(0.45, 1.0, 8):
            pairs.append((float(c * mp.sqrt(2 * mpf(e))), e))
    gd["huge_eps"] = gaussian_delta_rows(pairs, lo=1e-300, hi=0.5)
    # tiny_delta: delta in [1e-300, 1e-20]
    # (a = eps/mu - mu/2 between about 9.3 and 37 gives delta in that range)
    pairs = [(m, e) for m in [0.01, 0.1, 1.0, 2.0, 5.0, 10.0, 20.0]
             for e in [0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 100.0, 300.0, 1000.0]]
    pairs += [(m, float(mpf(m) * (t + mpf(m) / 2))) for m in geomspace(0.001, 30.0, 9)
              for t in [10, 15, 20, 25, 30, 35]]
    pairs += [(m, e) for m in geomspace(1e-8, 0.05, 6) for e in [float(15 * mpf(m)), float(25 * mpf(m))]]
    gd["tiny_delta"] = thin(gaussian_delta_rows(pairs, lo=1e-300, hi=1e-20), 70)
    # eps_zero: eps = 0, mu in [1e-300, 50]
    gd["eps_zero"] = gaussian_delta_rows([(m, 0.0) for m in geomspace(1e-300, 50.0, 60)])
    # independent check: the integral formula (cancellation-free) on a sample of rows
    nchk = 0
    with mp.workdps(BASE_DPS):
        for region in ("typical", "small_mu", "large_eps", "tiny_delta"):
            for mu, eps, v in gd[region][::7]:
                if eps == 0:
                    continue
                exact = delta_integral(mpf(eps), mpf(mu))
                direct = delta_mp(mpf(eps), mpf(mu))
                assert float(exact) == v and abs(exact / direct - 1) < 1e-30, (region, mu, eps, v, exact)
                nchk += 1
    print("  gaussianDelta done (%.1fs); %d rows cross-checked by quadrature" % (time.time() - t0, nchk))

    # gaussianMu grid
    t0 = time.time()
    EPS = [0.0, 1e-300, 1e-10, 1e-6, 1e-3, 0.01, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0,
           30.0, 100.0, 300.0, 1000.0, 1e4, 1e6]
    DELTA = [1e-300, 1e-200, 1e-163, 1e-162, 1e-100, 1e-60, 1e-30, 1e-20, 1e-15, 1e-12, 1e-10,
             1e-8, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1, 0.3, 0.5, 0.9]
    gm = {}
    mu0_cache = {}
    for e in EPS:
        if e == 0:
            base = "eps_zero"
        elif e < 0.01:
            base = "small_eps"
        elif e <= 10:
            base = "typical"
        else:
            base = "large_eps"
        for d in DELTA:
            region = base + ("_tiny_delta" if d <= 1e-20 else "")
            mu0 = twice(mu0_mp, (e, d), ROOT_DPS)
            check_delta_residual(e, mu0, d)
            mu0_cache[(e, d)] = mu0
            # the nearest double, and the largest double not above the root (what is safe)
            gm.setdefault(region, []).append([e, d, float(mu0), double_below(mu0)])
    order = ["eps_zero", "eps_zero_tiny_delta", "small_eps", "small_eps_tiny_delta", "typical",
             "typical_tiny_delta", "large_eps", "large_eps_tiny_delta"]
    gm = {k: gm[k] for k in order}
    # docs/accounting.md "Calibration" reference rows, to 11 significant digits
    ref1 = mu0_cache[(0.5, 1e-6)]
    ref2 = 1 / mu0_cache[(1.0, 1e-5)]
    assert abs(ref1 / mpf("0.124106149031") - 1) < 1e-11, ref1
    assert abs(ref2 / mpf("3.73063163482") - 1) < 1e-11, ref2
    print("  docs/accounting.md, Calibration: mu0(0.5, 1e-6) = %s; 1/mu0(1, 1e-5) = %s (reference 0.124106149031,"
          " 3.73063163482)" % (mp.nstr(ref1, 15), mp.nstr(ref2, 15)))
    print("  gaussianMu done (%.1fs)" % (time.time() - t0))

    # gaussianEpsilon grid
    t0 = time.time()
    MU = [1e-6, 1e-3, 0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 100.0, 300.0, 1000.0]
    DEL = [1e-100, 1e-30, 1e-12, 1e-6, 1e-3, 0.1, 0.5]
    ge = {"typical": [], "small": [], "large": [], "huge": [], "zero": []}
    zeros = []
    for m in MU:
        for d in DEL:
            e = twice(eps_mp, (m, d), ROOT_DPS)
            if e == 0:
                zeros.append([m, d, 0.0, 0.0])
                continue
            check_delta_residual(e, mpf(m), d)
            ev = float(e)
            region = "small" if ev < 1e-3 else ("large" if ev > 100 else "typical")
            if ev > 1e4:
                region = "huge"
            ge[region].append([m, d, ev, double_above(e)])
    ge["zero"] = thin(zeros, 6)
    print("  gaussianEpsilon done (%.1fs); %d grid rows had answer 0 (%d kept)"
          % (time.time() - t0, len(zeros), len(ge["zero"])))
    return {"gaussianDelta": gd, "gaussianMu": gm, "gaussianEpsilon": ge}, mu0_cache


# ---------------------------------------------------------------------------
# calibrate.json
# ---------------------------------------------------------------------------

def gauss_moment(p):
    """E|N(0,1)|^p."""
    p = mpf(p)
    return 2 ** (p / 2) * mp.gamma((p + 1) / 2) / mp.sqrt(mp.pi)


def laplace_moment(p):
    """E|Laplace(1)|^p."""
    return mp.gamma(mpf(p) + 1)


def scales_mp(mech, alloc, lam, eps, mu0, p, w):
    K = len(lam)
    p = mpf(p)
    if mech == "gaussian":
        if alloc == "iid":
            s = mp.sqrt(sum(l * l for l in lam)) / mu0
            return [s] * K
        if alloc == "spr":
            return [mp.sqrt(K) * l / mu0 for l in lam]
        # optimal: sigma_i = c (lambda_i^2 / w_i)^(1/(p+2)); lambda_j^2 (lambda_j^2/w_j)^(-2/(p+2))
        # written as lambda_j^(2p/(p+2)) w_j^(2/(p+2)) so that zero sensitivities drop out
        c2 = sum(l ** (2 * p / (p + 2)) * wj ** (2 / (p + 2)) for l, wj in zip(lam, w) if l > 0) / mu0 ** 2
        c = mp.sqrt(c2)
        return [c * (l * l / wj) ** (1 / (p + 2)) if l > 0 else mpf(0) for l, wj in zip(lam, w)]
    else:
        if alloc == "iid":
            return [sum(lam) / eps] * K
        if alloc == "spr":
            return [K * l / eps for l in lam]
        c = sum(l ** (p / (p + 1)) * wj ** (1 / (p + 1)) for l, wj in zip(lam, w) if l > 0) / eps
        return [c * (l / wj) ** (1 / (p + 1)) if l > 0 else mpf(0) for l, wj in zip(lam, w)]


def error_mp(mech, scales, p, w):
    m = gauss_moment(p) if mech == "gaussian" else laplace_moment(p)
    return sum(wj * m * s ** mpf(p) for s, wj in zip(scales, w) if s > 0)


def mse_mp(mech, scales):
    return sum(s * s for s in scales) * (1 if mech == "gaussian" else 2)


def case_mp(mech, alloc, lam_f, eps_f, delta_f, p, w_f, mu0_of):
    """All expected quantities of one case, in mpmath."""
    lam = [mpf(l) for l in lam_f]
    w = [mpf(x) for x in w_f] if w_f is not None else [mpf(1)] * len(lam)
    eps = mpf(eps_f)
    mu0 = mu0_of(eps_f, delta_f) if mech == "gaussian" else None
    sc = scales_mp(mech, alloc, lam, eps, mu0, p, w)
    sc_iid = scales_mp(mech, "iid", lam, eps, mu0, p, w)
    err = error_mp(mech, sc, p, w)
    err_iid = error_mp(mech, sc_iid, p, w)
    # the privacy constraint holds with equality (spr: <=, equality without zero lambdas)
    tight = mpf(10) ** -(mp.dps - 8)
    if mech == "gaussian":
        used = sum(l * l / s ** 2 for l, s in zip(lam, sc) if l > 0)
        target = mu0 ** 2
    else:
        used = sum(l / s for l, s in zip(lam, sc) if l > 0)
        target = eps
    if alloc == "spr" and any(l == 0 for l in lam):
        assert used <= target * (1 + tight)
    else:
        assert abs(used / target - 1) < tight, (mech, alloc, used, target)
    return {"mu0": mu0, "scales": sc, "mse": mse_mp(mech, sc), "error": err, "gain": err_iid / err}


def build_calibrate(mu0_cache):
    def mu0_of(e, d):
        if (e, d) not in mu0_cache:
            with mp.workdps(ROOT_DPS):
                mu0_cache[(e, d)] = mu0_mp(mpf(e), mpf(d))
            check_delta_residual(e, mu0_cache[(e, d)], d)
        return mu0_cache[(e, d)]

    def normalized(vals):
        with mp.workdps(BASE_DPS):
            vals = [mpf(v) for v in vals]
            n2 = mp.sqrt(sum(v * v for v in vals))
            return [float(v / n2) for v in vals]

    K = 20
    profiles = {
        "linear-K20": normalized([i for i in range(1, K + 1)]),
        "quadratic-K20": normalized([i * i for i in range(1, K + 1)]),
        "exponential-K20": normalized([mp.exp(i) for i in range(1, K + 1)]),
    }
    GAUSS_PD = [(0.5, 1e-6), (1.0, 1e-5), (2.0, 1e-8)]
    LAP_EPS = [0.5, 1.0, 2.0]
    ALLOCS = ["optimal", "iid", "spr"]

    cases = []

    def add(name, mech, alloc, lam, eps, delta, p, w):
        with mp.workdps(BASE_DPS):
            r = case_mp(mech, alloc, lam, eps, delta, p, w, mu0_of)
        exp = {}
        if mech == "gaussian":
            exp["mu"] = float(r["mu0"])
        exp["scales"] = [float(s) for s in r["scales"]]
        exp["mse"] = float(r["mse"])
        exp["error"] = float(r["error"])
        exp["gain"] = float(r["gain"])
        c = {"name": name, "mechanism": mech, "allocation": alloc, "sensitivity": list(lam),
             "epsilon": eps}
        if mech == "gaussian":
            c["delta"] = delta
        c["errorPower"] = p
        c["weights"] = list(w) if w is not None else None
        c["expected"] = exp
        cases.append(c)
        return r

    def tag(mech, eps, delta, p, w):
        s = "eps%g" % eps + ("-delta%g" % delta if mech == "gaussian" else "")
        return s + "-p%g" % p + ("-weighted" if w is not None else "")

    def all_allocs(prof_name, lam, mech, eps, delta, p, w=None, allocs=ALLOCS):
        out = {}
        for a in allocs:
            out[a] = add("%s/%s/%s/%s" % (prof_name, mech, a, tag(mech, eps, delta, p, w)),
                         mech, a, lam, eps, delta, p, w)
        return out

    main_gain = {}
    for pname, lam in profiles.items():
        for (e, d) in GAUSS_PD:
            r = all_allocs(pname, lam, "gaussian", e, d, 2)
            main_gain[(pname, "gaussian", 2)] = r["optimal"]["gain"]
        for e in LAP_EPS:
            r = all_allocs(pname, lam, "laplace", e, None, 2)
            main_gain[(pname, "laplace", 2)] = r["optimal"]["gain"]
        all_allocs(pname, lam, "gaussian", 1.0, 1e-5, 1)
        r = all_allocs(pname, lam, "laplace", 1.0, None, 1)
        main_gain[(pname, "laplace", 1)] = r["optimal"]["gain"]
    # non-integer error power
    lam = profiles["exponential-K20"]
    all_allocs("exponential-K20", lam, "gaussian", 0.5, 1e-6, 1.5)
    all_allocs("exponential-K20", lam, "laplace", 0.5, None, 1.5)
    # uniform profile: optimal == iid
    uni = normalized([1] * K)
    r = all_allocs("uniform-K20", uni, "gaussian", 0.5, 1e-6, 2)
    assert abs(r["optimal"]["gain"] - 1) < 1e-14
    all_allocs("uniform-K20", uni, "laplace", 0.5, None, 2)
    # one-hot, K = 5: gain K for p = 2
    onehot = [0.0, 0.0, 1.0, 0.0, 0.0]
    r = all_allocs("onehot-K5", onehot, "gaussian", 0.5, 1e-6, 2)
    assert abs(r["optimal"]["gain"] - 5) < 1e-30
    r = all_allocs("onehot-K5", onehot, "laplace", 1.0, None, 2)
    assert abs(r["optimal"]["gain"] - 5) < 1e-30
    # zeros in the profile
    zp = [0.0, 1.0, 0.0, 2.5, 0.1]
    for p in (2, 1):
        all_allocs("zeros-K5", zp, "gaussian", 1.0, 1e-5, p)
        all_allocs("zeros-K5", zp, "laplace", 1.0, None, p)
    # weighted
    W = [1.0, 2.0, 0.5, 4.0, 1.0]
    wp = [1.0, 0.5, 2.0, 0.25, 3.0]
    for p in (1, 3):
        all_allocs("weighted-K5", wp, "gaussian", 1.0, 1e-5, p, W)
        all_allocs("weighted-K5", wp, "laplace", 1.0, None, p, W)
        all_allocs("zeros-weighted-K5", zp, "gaussian", 2.0, 1e-8, p, W)
        all_allocs("zeros-weighted-K5", zp, "laplace", 2.0, None, p, W)
    # two dimensions, Laplace, p = 1 (the journal's MAE table)
    two = [0.15, 0.85]
    mae = []
    for e in [0.5, 1.0, 1.5, 2.0, 2.5, 3.0]:
        r = all_allocs("two-d", two, "laplace", e, None, 1)
        mae.append(r["optimal"]["error"])
        assert abs(r["iid"]["error"] * e / 2 - 1) < 1e-15     # iid Laplace MAE = 2/eps

    # ---- docs/calibration.md "Figures of merit": published numbers ----
    published_g = {"linear-K20": "1.3016", "quadratic-K20": "1.7547", "exponential-K20": "9.2423"}
    for pname, ref in published_g.items():
        got = main_gain[(pname, "gaussian", 2)]
        assert mp.nstr(got, 5) == ref, (pname, got, ref)
        # p = 2 gain equals K Delta_2^2 / Delta_1^2 (docs/calibration.md, "Allocations")
        lam = [mpf(l) for l in profiles[pname]]
        kappa = K * sum(l * l for l in lam) / sum(lam) ** 2
        assert abs(got / kappa - 1) < 1e-40
    table_ref = ["3.4283", "1.7141", "1.1428", "0.8571", "0.6857", "0.5714"]
    assert ["%.4f" % v for v in mae] == table_ref, [mp.nstr(v, 8) for v in mae]
    print("  docs/calibration.md, Figures of merit: Gaussian p=2 gains %s; 2-d Laplace MAE %s: reproduced" % (
        ", ".join(mp.nstr(main_gain[(n, "gaussian", 2)], 8) for n in published_g),
        ", ".join(mp.nstr(v, 8) for v in mae)))
    published_db = {"linear-K20": "0.546", "quadratic-K20": "1.39", "exponential-K20": "7.609"}
    matching = []
    for p in (1, 2):
        dbs = {n: 10 * mp.log10(main_gain[(n, "laplace", p)]) for n in published_db}
        # rounded to as many decimals as published
        ok = all("%.*f" % (len(ref.split(".")[1]), dbs[n]) == ref for n, ref in published_db.items())
        print("  Laplace gains at error power p=%d: %s dB -> %s" % (
            p, ", ".join(mp.nstr(dbs[n], 6) for n in published_db),
            "MATCHES docs/calibration.md (0.546, 1.39, 7.609 dB)" if ok else "does not match"))
        if ok:
            matching.append(p)
    assert matching == [2], matching
    print("  => the published Laplace gains (0.546 / 1.39 / 7.609 dB) are for p = 2 (MSE)")
    return {"generator": GENERATOR, "cases": cases}


# ---------------------------------------------------------------------------

def to_json(o, ind=""):
    """json.dumps (floats as repr, so they round-trip), laid out for readable diffs: a
    flat list (a fixture row, a scale vector) or anything short stays on one line."""
    flat = json.dumps(o, separators=(", ", ": "), allow_nan=False)
    if not isinstance(o, (list, dict)) or len(flat) <= 100 or (
            isinstance(o, list) and not any(isinstance(x, (list, dict)) for x in o)):
        return flat
    sub = ind + "  "
    if isinstance(o, dict):
        items = [sub + json.dumps(k) + ": " + to_json(v, sub) for k, v in o.items()]
        return "{\n" + ",\n".join(items) + "\n" + ind + "}"
    return "[\n" + ",\n".join(sub + to_json(v, sub) for v in o) + "\n" + ind + "]"


def write(out_dir, name, obj):
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, name)
    with open(path, "w", encoding="utf-8", newline="\n") as f:  # the same bytes on every OS
        f.write(to_json(obj) + "\n")
    # round trip: every number survives as the same double
    with open(path) as f:
        assert json.load(f) == obj
    print("wrote %s (%d bytes)" % (path, os.path.getsize(path)))


def count_rows(d, prefix):
    for fname, regions in d.items():
        print("  %s%s: %s" % (prefix, fname, ", ".join("%s=%d" % (k, len(v)) for k, v in regions.items())))


def main():
    parser = argparse.ArgumentParser(description="Write the mpmath reference fixtures.")
    parser.add_argument("--out", default=DEFAULT_OUT, metavar="DIR",
                        help="directory for the three JSON files (default: test/fixtures)")
    out = parser.parse_args().out
    t_start = time.time()
    print("special functions ...")
    special = build_special()
    write(out, "special.json", {"generator": GENERATOR, "functions": special})
    count_rows(special, "")
    print("privacy profile ...")
    privacy, mu0_cache = build_privacy()
    write(out, "privacy.json", dict([("generator", GENERATOR)] + list(privacy.items())))
    count_rows(privacy, "")
    print("calibration ...")
    cal = build_calibrate(mu0_cache)
    write(out, "calibrate.json", cal)
    print("  %d cases" % len(cal["cases"]))
    print("bisection fallbacks used: %d" % solve_bracketed.fallbacks)
    print("done in %.1fs" % (time.time() - t_start))


if __name__ == "__main__":
    sys.exit(main())
