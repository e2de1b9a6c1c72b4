#!/usr/bin/env python3
"""Google's dp_accounting as the baseline of the "Accountant" benchmark group (bench/accountant.mjs).

Reads one JSON request on stdin and prints one JSON object on stdout, like bench/python_baseline.py
(whose measure() it uses). Request:

    {"tasks": [{"id": "...", "method": "pld" | "rdp", "parts": [part, ...], "delta": 1e-5,
                "interval": 1e-4, "batches": 5, "capSeconds": 60, "query": true}]}

A part is {"mechanism": "gaussian" | "laplace", "scale": z or b, "rate": q (optional: Poisson
subsampling), "times": T}, sensitivity 1; the event is the ComposedDpEvent of one
SelfComposedDpEvent per part, add-or-remove neighbours: the composition bench/accountant.mjs gives
dpnoise. "method" pld is PLDAccountant(value_discretization_interval="interval"), rdp is
RdpAccountant() with its default orders.

A task times a fresh accountant (construct, compose, get_epsilon(delta)): with "batches", the median
over that many batches after a warm-up; with "capSeconds" instead, one run that composes the parts
one at a time (the same work as the whole event) and stops once the cap is passed, for runs that
would take minutes. Result: {"seconds", "epsilon" (null when stopped), "composed" (parts composed),
"querySeconds" (with "query": get_epsilon(delta) again on the composed accountant)}.

Without tasks the answer is just {"available": true, "versions": ...}: the probe bench/accountant.mjs
runs to choose an interpreter. If dp_accounting cannot be imported: {"available": false, "reason"}.
"""
import importlib.metadata
import json
import platform
import sys
import time

from python_baseline import measure


def main():
    request = json.load(sys.stdin)
    try:
        import dp_accounting as dpa
    except Exception as error:  # noqa: BLE001 - any import failure means "no baseline"
        print(json.dumps({"available": False, "reason": f"{type(error).__name__}: {error}"}))
        return

    versions = {"python": platform.python_version(), "dp_accounting": importlib.metadata.version("dp-accounting")}

    def event_of(part):
        mechanism = dpa.GaussianDpEvent if part["mechanism"] == "gaussian" else dpa.LaplaceDpEvent
        event = mechanism(part["scale"])
        if "rate" in part:
            event = dpa.PoissonSampledDpEvent(part["rate"], event)
        return dpa.SelfComposedDpEvent(event, part["times"])

    def accountant(task):
        if task["method"] == "rdp":
            return dpa.rdp.RdpAccountant()
        return dpa.pld.PLDAccountant(value_discretization_interval=task["interval"])

    results = {}
    for task in request["tasks"]:
        parts, delta = task["parts"], task["delta"]
        last = {}  # the last accountant composed and its epsilon
        if "capSeconds" in task:
            start = time.perf_counter()
            last["acc"], composed = accountant(task), 0
            for part in parts:
                last["acc"].compose(event_of(part))
                composed += 1
                if time.perf_counter() - start > task["capSeconds"]:
                    break
            last["epsilon"] = float(last["acc"].get_epsilon(delta)) if composed == len(parts) else None
            seconds = time.perf_counter() - start
        else:
            def fresh(task=task, parts=parts, delta=delta, last=last):
                last["acc"] = accountant(task)
                last["acc"].compose(dpa.ComposedDpEvent([event_of(p) for p in parts]))
                last["epsilon"] = float(last["acc"].get_epsilon(delta))
                return last["epsilon"]

            seconds, composed = measure(fresh, seconds=0.5, batches=task["batches"])["perUnit"], len(parts)
        result = {"seconds": seconds, "epsilon": last["epsilon"], "composed": composed}
        if task.get("query") and last["epsilon"] is not None:
            acc = last["acc"]
            result["querySeconds"] = measure(lambda acc=acc: acc.get_epsilon(delta), seconds=0.3, batches=5)["perUnit"]
        results[task["id"]] = result
    print(json.dumps({"available": True, "versions": versions, "results": results}))


if __name__ == "__main__":
    main()
