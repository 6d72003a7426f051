"""The task sample rule (ata-ml's TaskSamples): which samples of the data set a task uses, a
function of the job's sample seed, the task id and the data set size alone, so every agent, in
any language, computes the same gradient for a task.

1. ``h = task_seed(seed, task_id)``: FNV-1a 64 over the id's UTF-8 bytes, then
   ``mix64(fnv ^ mix64(seed))`` (Stafford's variant 13, 64-bit wrap-around).
2. ``r = SplittableRandom(h)``, java.util.SplittableRandom's algorithm.
3. A partial Fisher-Yates shuffle of ``[0, n)``: for ``i`` in ``0 .. m-1``,
   ``j = i + r.next_int(n - i)``, swap positions ``i`` and ``j``; the samples are the first ``m``.
"""

from __future__ import annotations

from typing import List

M64 = (1 << 64) - 1
GOLDEN_GAMMA = 0x9E3779B97F4A7C15


def mix64(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def task_seed(seed: int, task_id: str) -> int:
    """TaskSeed.of(seed, taskId), as an unsigned 64-bit value."""
    h = 0xCBF29CE484222325
    for b in task_id.encode("utf-8"):
        h ^= b
        h = (h * 0x100000001B3) & M64
    return mix64(h ^ mix64(seed & M64))


class SplittableRandom:
    """java.util.SplittableRandom's generator, the parts the rules use."""

    def __init__(self, seed: int):
        self.seed = seed & M64

    def _next_seed(self) -> int:
        self.seed = (self.seed + GOLDEN_GAMMA) & M64
        return self.seed

    def next_long(self) -> int:
        """The next value as an unsigned 64-bit int."""
        return mix64(self._next_seed())

    def next_int(self) -> int:
        """The next int as an unsigned 32-bit value (mix32)."""
        z = self._next_seed()
        z = ((z ^ (z >> 33)) * 0x62A9D9ED799705F5) & M64
        return (((z ^ (z >> 28)) * 0xCB24D0A5C88C35B3) & M64) >> 32

    def next_int_bound(self, bound: int) -> int:
        """nextInt(bound), 0 <= value < bound."""
        if bound <= 0:
            raise ValueError("bound must be positive")
        r = self.next_int()
        m = bound - 1
        if bound & m == 0:
            return r & m
        u = r >> 1
        while True:
            r = u % bound
            if u + m - r < (1 << 31):  # no signed 32-bit overflow
                return r
            u = self.next_int() >> 1

    def next_double(self) -> float:
        return (self.next_long() >> 11) * 2.0 ** -53


def task_samples(seed: int, task_id: str, dataset_size: int, count: int) -> List[int]:
    """The ``count`` sample indices of task ``task_id`` (``job/round/index``), in order."""
    if count < 0 or count > dataset_size:
        raise ValueError("a task of %d samples does not fit a data set of %d" % (count, dataset_size))
    rnd = SplittableRandom(task_seed(seed, task_id))
    displaced = {}  # the shuffle touches m positions: no n-array
    samples = []
    for i in range(count):
        j = i + rnd.next_int_bound(dataset_size - i)
        at_i = displaced.get(i, i)
        samples.append(displaced.get(j, j))
        displaced[j] = at_i
    return samples
