#!/usr/bin/env python3
"""Python (SciPy / NumPy) baselines for the dpnoise benchmarks.

Reads one JSON request on stdin and prints one JSON object on stdout. bench/run.mjs spawns this
once per benchmark group. Request:

    {"tasks": [{"id": "...", "kind": "<kind>", ...parameters}], "seconds": 0.5, "batches": 7}

Kinds:
  versions     Python, NumPy and SciPy versions (no timing).
  gaussianMu   mu0(eps, delta) for every [eps, delta] in "pairs" times every factor in
               "jitter" (eps * factor, so nothing is cached); result: microseconds per call
               and the mu0 of each un-jittered pair. "impl": "stats" (default) is the typical
               implementation with scipy.stats.norm.sf / norm.isf and scipy.optimize.brentq;
               "special" calls scipy.special.ndtr / ndtri directly (the fast path). Also
               reports "evaluations" (delta evaluations per solve) and "sfUs" (one Q(x) call).
  allocation   The p = 2 optimal Gaussian allocation with NumPy, for each K in "Ks":
               sigma = sqrt(Delta_1 * lambda) / mu0(eps, delta), lambda_i = 1/(1 + i % 1000);
               result: nanoseconds per coordinate (mu0 computed with norm.sf on every call),
               and floorNs, NumPy's own "write the output" floor (lam * 0.5, a fresh array).
  samplers     NumPy's samplers with np.random.default_rng("seed") (PCG64), for each K in "Ks";
               result: one row per K with nanoseconds per sample of each operation:
                 normal      rng.standard_normal(K)                 (a new array each call)
                 normalOut   rng.standard_normal(out=buf)           (into a reused buffer)
                 normalAdd   x += scale * rng.standard_normal(K)    (in-place add)
                 laplace     rng.laplace(size=K)                    (a new array each call)
                 laplaceAdd  x += rng.laplace(0.0, scale, K)        (in-place add; no out= exists)
                 floor       np.empty(K) filled with 0              (a fresh array, written once)
               "seconds" / "batches" may be given per K in "secondsByK" / "batchesByK"
               (keys are str(K)). Also returns the sample variances of normal and laplace
               (normalVar, laplaceVar) and floorFaults, the minor page faults of one fresh
               np.empty(K).fill(0) at the largest K.

  inPlace      NumPy's cheapest ways to noise a preallocated buffer, with np.random.default_rng("seed")
               (PCG64), for each K in "Ks"; result: one row per K, nanoseconds per coordinate of
                 normalOut       rng.standard_normal(out=buf)                       (unscaled)
                 normalOutScaled rng.standard_normal(out=buf); buf *= scale         (one scale)
                 normalOutScales rng.standard_normal(out=buf); np.multiply(buf, scales, out=buf)
                 laplaceScaled   rng.laplace(0.0, scale, K)                         (no out= exists)
                 laplaceScales   rng.laplace(0.0, scales)
               where scales[i] = 0.5 + (i % 10) / 10, as bench/in-place.mjs's.

Timing mirrors bench/timing.mjs: warm-up (>= 2 calls and >= 0.15 s), then "batches" batches of
equal size taking "seconds" in total (a task may override both), median time per unit.
If NumPy or SciPy cannot be imported the answer is {"available": false, "reason": ...}.
"""
import json
import math
import platform
import sys
import time


def per_length(task, opts, ops_of):
    """One row per length K of the task: ns per unit of each op that ops_of(K) names, each measured
    for the task's time at that length (secondsByK, batchesByK) or its default."""
    rows = []
    for K in task["Ks"]:
        K = int(K)
        k_opts = {
            "seconds": task.get("secondsByK", {}).get(str(K), opts["seconds"]),
            "batches": task.get("batchesByK", {}).get(str(K), opts["batches"]),
        }
        row = {"K": K}
        for name, fn in ops_of(K).items():
            row[name] = measure(fn, units=K, **k_opts)["perUnit"] * 1e9
        rows.append(row)
    return rows


def measure(fn, units=1, seconds=0.5, batches=7, warmup=0.15):
    calls = 0
    start = time.perf_counter()
    while True:
        fn()
        calls += 1
        elapsed = time.perf_counter() - start
        if calls >= 2 and elapsed >= warmup:
            break
    per_call = elapsed / calls
    n = max(1, round(seconds / batches / per_call))
    samples = []
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        samples.append((time.perf_counter() - t0) / n / units)
    samples.sort()
    k = len(samples)
    mid = samples[k // 2] if k % 2 else 0.5 * (samples[k // 2 - 1] + samples[k // 2])
    return {"perUnit": mid, "min": samples[0], "max": samples[-1], "callsPerBatch": n,
            "spread": (samples[-1] - samples[0]) / mid}


def main():
    request = json.load(sys.stdin)
    try:
        import numpy as np
        import scipy
        from scipy import special
        from scipy.optimize import brentq
        from scipy.stats import norm
    except Exception as error:  # noqa: BLE001 - any import failure means "no baseline"
        print(json.dumps({"available": False, "reason": f"{type(error).__name__}: {error}"}))
        return

    versions = {"python": platform.python_version(), "numpy": np.__version__, "scipy": scipy.__version__}

    # The typical implementation: delta(eps; mu) = Q(a) - e^eps Q(b) with scipy.stats.norm, and
    # brentq on mu over a bracket whose lower end is the Q^-1 bound of docs/accounting.md, "Calibration".
    # Tolerances are tightened from brentq's defaults to the 1e-12 relative dpnoise promises.
    def make_mu0(sf, isf):
        def delta_of(mu, eps):
            return sf(eps / mu - 0.5 * mu) - math.exp(eps) * sf(eps / mu + 0.5 * mu)

        def mu0(eps, delta):
            z = float(isf(delta))
            lo = math.sqrt(z * z + 2.0 * eps) - z
            hi = 2.0 * lo
            while delta_of(hi, eps) <= delta:
                lo, hi = hi, 2.0 * hi
            return brentq(lambda mu: delta_of(mu, eps) - delta, lo, hi, xtol=1e-300, rtol=1e-13)

        return mu0

    def counting(sf, counter):
        def counted(x):
            counter[0] += 1
            return sf(x)
        return counted

    def evaluations(sf, isf, pairs):
        """Mean number of delta(eps; mu) evaluations per mu0 solve (two sf calls each)."""
        counter = [0]
        solve = make_mu0(counting(sf, counter), isf)
        for eps, delta in pairs:
            solve(eps, delta)
        return counter[0] / 2 / len(pairs)

    q_stats = (norm.sf, norm.isf)
    q_special = (lambda x: special.ndtr(-x), lambda p: -special.ndtri(p))
    mu0_stats = make_mu0(*q_stats)
    mu0_special = make_mu0(*q_special)
    seconds = request.get("seconds", 0.5)
    batches = request.get("batches", 7)
    results = {}
    for task in request.get("tasks", []):
        kind = task["kind"]
        opts = {"seconds": task.get("seconds", seconds), "batches": task.get("batches", batches)}
        if kind == "versions":
            results[task["id"]] = versions
        elif kind == "gaussianMu":
            special_impl = task.get("impl") == "special"
            mu0 = mu0_special if special_impl else mu0_stats
            q_pair = q_special if special_impl else q_stats
            inputs = [(eps * f, delta) for eps, delta in task["pairs"] for f in task.get("jitter", [1.0])]

            def run(inputs=inputs, mu0=mu0):
                s = 0.0
                for eps, delta in inputs:
                    s += mu0(eps, delta)
                return s

            timing = measure(run, units=len(inputs), **opts)
            timing["us"] = timing["perUnit"] * 1e6
            timing["mu0"] = [mu0(eps, delta) for eps, delta in task["pairs"]]
            timing["evaluations"] = evaluations(*q_pair, task["pairs"])
            sf = q_pair[0]
            timing["sfUs"] = measure(lambda: sf(3.0), **{**opts, "seconds": 0.1})["perUnit"] * 1e6
            results[task["id"]] = timing
        elif kind == "allocation":
            eps, delta = task["eps"], task["delta"]
            rows = []
            for K in task["Ks"]:
                lam = 1.0 / (1.0 + (np.arange(K) % 1000))

                def run(lam=lam):
                    mu = mu0_stats(eps, delta)
                    return np.sqrt(lam.sum() * lam) / mu

                def floor(lam=lam):
                    return lam * 0.5

                timing = measure(run, units=K, **opts)
                timing["K"] = K
                timing["ns"] = timing["perUnit"] * 1e9
                timing["floorNs"] = measure(floor, units=K, **opts)["perUnit"] * 1e9
                rows.append(timing)
            results[task["id"]] = rows
        elif kind == "samplers":
            rng = np.random.default_rng(task.get("seed", 1))
            scale = float(task.get("scale", 1.0))

            def sampler_ops(K):
                buf = np.empty(K)
                x = np.zeros(K)

                def add_normal():
                    np.add(x, scale * rng.standard_normal(K), out=x)
                    return x

                def add_laplace():
                    np.add(x, rng.laplace(0.0, scale, K), out=x)
                    return x

                def floor():
                    a = np.empty(K)
                    a.fill(0.0)
                    return a

                return {
                    "normal": lambda: rng.standard_normal(K),
                    "normalOut": lambda: rng.standard_normal(out=buf),
                    "normalAdd": add_normal,
                    "laplace": lambda: rng.laplace(size=K),
                    "laplaceAdd": add_laplace,
                    "floor": floor,
                }

            rows = per_length(task, opts, sampler_ops)
            import resource
            big = int(max(task["Ks"]))
            before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            for _ in range(3):
                np.empty(big).fill(0.0)
            floor_faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 3
            check = rng.standard_normal(100000)
            lap = rng.laplace(size=100000)
            results[task["id"]] = {"rows": rows, "normalVar": float(check.var()), "laplaceVar": float(lap.var()),
                                   "bitGenerator": type(rng.bit_generator).__name__,
                                   "floorFaults": floor_faults}
        elif kind == "inPlace":
            rng = np.random.default_rng(task.get("seed", 1))
            scale = float(task.get("scale", 1.0))

            def in_place_ops(K):
                buf = np.empty(K)
                scales = 0.5 + (np.arange(K) % 10) / 10

                def out_scaled():
                    rng.standard_normal(out=buf)
                    np.multiply(buf, scale, out=buf)
                    return buf

                def out_scales():
                    rng.standard_normal(out=buf)
                    np.multiply(buf, scales, out=buf)
                    return buf

                return {
                    "normalOut": lambda: rng.standard_normal(out=buf),
                    "normalOutScaled": out_scaled,
                    "normalOutScales": out_scales,
                    "laplaceScaled": lambda: rng.laplace(0.0, scale, K),
                    "laplaceScales": lambda: rng.laplace(0.0, scales),
                }

            rows = per_length(task, opts, in_place_ops)
            results[task["id"]] = {"rows": rows, "bitGenerator": type(rng.bit_generator).__name__}
        else:
            results[task["id"]] = {"error": f"unknown kind {kind!r}"}
    print(json.dumps({"available": True, "versions": versions, "results": results}))


if __name__ == "__main__":
    main()
