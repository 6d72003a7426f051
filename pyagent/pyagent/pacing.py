"""Emulated heterogeneity (the Java ``TaskPacer``): each task is computed, then stretched to a
duration drawn from a time model, unless its round closes first; real slowness is never hidden.

Where the durations come from: ``--time-model MODEL --worker-index J`` (the paper's models, as
``ata worker`` has them: linear ``29 j + Exp(29 j)`` ms, log, sqrt, quadratic, gamma, mixture) or
``--scenario FILE``, a fleet file of ``ata simulate`` (YAML or JSON) whose worker named by
``--worker-id`` is emulated, its ``changes`` after given rounds included. ``--time-scale`` is a
factor on every drawn duration.
"""

from __future__ import annotations

import json
import math
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, List, Optional, Tuple


@dataclass
class Distribution:
    """A task-time distribution in ms: ``shift`` plus a draw of ``family``."""
    family: str
    params: dict
    shift: float = 0.0

    def sample(self, rng: random.Random) -> float:
        p = self.params
        f = self.family
        if f == "constant":
            x = p["value"]
        elif f == "exponential":
            x = rng.expovariate(1.0 / p["mean"]) if p["mean"] > 0 else 0.0
        elif f == "uniform":
            x = rng.uniform(p["min"], p["max"])
        elif f == "half-normal":
            x = abs(rng.gauss(0.0, p["sigma"]))
        elif f == "log-normal":
            x = rng.lognormvariate(p["mu"], p["sigma"])
        elif f == "gamma":
            x = rng.gammavariate(p["shape"], p["scale"])
        else:
            raise ValueError("unknown family %s" % f)
        return self.shift + x

    def describe(self) -> str:
        inner = "%s(%s)" % (self.family, ", ".join("%s=%g" % kv for kv in sorted(self.params.items())))
        return inner if self.shift == 0 else "%g + %s" % (self.shift, inner)


@dataclass
class Schedule:
    """A distribution for every round: ``base``, then each change from its round on."""
    base: Distribution
    changes: List[Tuple[int, Distribution]]

    def time_in(self, round_: int) -> Distribution:
        current = self.base
        for after, dist in self.changes:
            if round_ > after:
                current = dist
        return current

    def describe(self) -> str:
        return self.base.describe() + "".join(", after round %d: %s" % (a, d.describe()) for a, d in self.changes)


def time_model(name: str, j: int) -> Distribution:
    """Worker ``j`` (1-based) of one of the paper's time models (TimeModels)."""
    if j < 1:
        raise ValueError("worker index is 1-based, was %d" % j)
    name = name.lower()
    shifted = {"linear": 58.0 * j, "log": 58.0 * math.log(j + 1), "sqrt": 58.0 * math.sqrt(j), "quadratic": 58.0 * j * j}
    if name in shifted:
        half = shifted[name] / 2
        return Distribution("exponential", {"mean": half}, half)
    if name == "gamma":
        return Distribution("gamma", {"shape": 2.0, "scale": 14.5 * j}, 29.0 * j)
    if name == "mixture":
        group = (j + 4) // 5
        half = 58.0 * (5 * group - 2) / 2
        kind = (j - 1) % 5
        if kind == 0:
            return Distribution("exponential", {"mean": half}, half)
        if kind == 1:
            return Distribution("uniform", {"min": 0.0, "max": 2 * half}, half)
        if kind == 2:
            return Distribution("half-normal", {"sigma": half * math.sqrt(math.pi / 2)}, half)
        if kind == 3:
            return Distribution("log-normal", {"mu": math.log(half) - 0.5, "sigma": 1.0}, half)
        return Distribution("gamma", {"shape": 2.0, "scale": half / 2}, half)
    raise ValueError("unknown time model '%s'; known: linear, log, sqrt, quadratic, gamma, mixture" % name)


def _number(spec: dict, key: str, where: str, minimum: Optional[float] = None) -> float:
    if key not in spec:
        raise ValueError("%s: missing '%s'" % (where, key))
    value = float(spec[key])
    if not math.isfinite(value) or (minimum is not None and value < minimum):
        raise ValueError("%s: '%s' = %s is out of range" % (where, key, spec[key]))
    return value


def distribution_of(spec: dict, where: str) -> Distribution:
    """A scenario file's ``time`` entry."""
    if not isinstance(spec, dict) or "family" not in spec:
        raise ValueError("%s: a time needs a family" % where)
    family = str(spec["family"])
    shift = float(spec.get("shift", 0.0))
    if family == "constant":
        return Distribution("constant", {"value": _number(spec, "value", where, 0)}, shift)
    if family == "exponential":
        return Distribution("exponential", {"mean": _number(spec, "mean", where, 0)}, shift)
    if family == "shifted-exponential":
        return Distribution("exponential", {"mean": _number(spec, "mean", where, 0)}, _number(spec, "shift", where, 0))
    if family == "uniform":
        return Distribution("uniform", {"min": _number(spec, "min", where, 0), "max": _number(spec, "max", where, 0)}, shift)
    if family == "half-normal":
        return Distribution("half-normal", {"sigma": _number(spec, "sigma", where, 0)}, shift)
    if family == "log-normal":
        if "mean" in spec:
            mean, sd = _number(spec, "mean", where, 0), _number(spec, "sd", where, 0)
            sigma2 = math.log(1 + (sd / mean) ** 2)
            return Distribution("log-normal", {"mu": math.log(mean) - sigma2 / 2, "sigma": math.sqrt(sigma2)}, shift)
        return Distribution("log-normal", {"mu": _number(spec, "mu", where), "sigma": _number(spec, "sigma", where, 0)}, shift)
    if family == "gamma":
        shape = _number(spec, "shape", where, 0)
        scale = _number(spec, "scale", where, 0) if "scale" in spec else _number(spec, "mean", where, 0) / shape
        return Distribution("gamma", {"shape": shape, "scale": scale}, shift)
    raise ValueError("%s: family '%s' is not emulated by this agent (constant, exponential, shifted-exponential, "
                     "uniform, half-normal, log-normal, gamma)" % (where, family))


def load_scenario_worker(path: Path, worker_id: str) -> Schedule:
    """The schedule of the worker named ``worker_id`` in a scenario file of ``ata simulate``."""
    text = Path(path).read_text("utf-8")
    if str(path).lower().endswith((".yaml", ".yml")):
        try:
            import yaml
        except ImportError:
            raise ValueError("%s: YAML needs the Debian package python3-yaml; or write the file as JSON" % path) from None
        data = yaml.safe_load(text)
    else:
        data = json.loads(text)
    names = []
    for group in data.get("groups", []) or []:
        for i in range(1, int(group.get("count", 1)) + 1):
            names.append(("%s-%d" % (group["name"], i), group))
    for worker in data.get("workers", []) or []:
        names.append((worker["name"], worker))
    for name, entry in names:
        if name == worker_id:
            where = "%s, worker %s" % (path, name)
            base = distribution_of(entry.get("time"), where)
            changes = [(int(c["after_round"]), distribution_of(c["time"], where)) for c in entry.get("changes", []) or []]
            return Schedule(base, changes)
    raise ValueError("%s has no worker named '%s' (it has %s)" % (path, worker_id, ", ".join(n for n, _ in names)))


class TaskPacer:
    """Runs a computation and stretches it to a drawn duration (none: natural speed)."""

    def __init__(self, schedule: Optional[Schedule] = None, scale: float = 1.0, seed: int = 0):
        if not scale >= 0 or math.isinf(scale):
            raise ValueError("time scale must be finite and >= 0, was %s" % scale)
        self.schedule = schedule
        self.scale = scale
        self.rng = random.Random(seed)

    def run(self, compute: Callable[[Callable[[], bool]], Optional[object]],
            cancelled: Callable[[float], bool], round_: int):
        """``(value, compute_ms, was_cancelled)``. ``compute(stop)`` returns None if it stopped
        part-way; ``cancelled(seconds)`` waits up to that long and says whether the round closed."""
        target_ms = None if self.schedule is None else self.schedule.time_in(round_).sample(self.rng) * self.scale
        start = time.monotonic_ns()
        value = compute(lambda: cancelled(0))
        if value is None:
            return None, (time.monotonic_ns() - start) / 1e6, True
        was_cancelled = False
        if target_ms is not None:
            target_ns = int(round(target_ms * 1e6))
            remaining = target_ns - (time.monotonic_ns() - start)
            while remaining > 0 and not was_cancelled:
                was_cancelled = cancelled(remaining / 1e9)
                remaining = target_ns - (time.monotonic_ns() - start)
                was_cancelled = was_cancelled and remaining > 0
        return value, (time.monotonic_ns() - start) / 1e6, was_cancelled

    def describe(self) -> str:
        if self.schedule is None:
            return "natural speed"
        return self.schedule.describe() + ("" if self.scale == 1.0 else " x %g" % self.scale) + " ms"
