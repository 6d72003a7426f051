#!/usr/bin/env python3
"""Independent reference for ata-ml's deterministic rules, written from their javadoc (not from the
Java code): TaskSeed, java.util.SplittableRandom, the task sample rule (TaskSamples) and the initial
parameters (ParameterInit). The Java tests pin the values this prints; run it again only if a rule
changes on purpose:  python3 ml/src/test/python/reference_rules.py"""

M64 = (1 << 64) - 1
GOLDEN_GAMMA = 0x9E3779B97F4A7C15


def mix64(z):  # Stafford variant 13 (TaskSeed.mix, SplittableRandom.mix64)
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def task_seed(seed, task_id):  # FNV-1a over UTF-8, then mix(h ^ mix(seed))
    h = 0xCBF29CE484222325
    for b in task_id.encode("utf-8"):
        h ^= b
        h = (h * 0x100000001B3) & M64
    return mix64(h ^ mix64(seed & M64))


class SplittableRandom:
    def __init__(self, seed):
        self.seed = seed & M64

    def next_seed(self):
        self.seed = (self.seed + GOLDEN_GAMMA) & M64
        return self.seed

    def next_long(self):
        return mix64(self.next_seed())

    def next_int(self):  # mix32, as an unsigned 32-bit value
        z = self.next_seed()
        z = ((z ^ (z >> 33)) * 0x62A9D9ED799705F5) & M64
        return (((z ^ (z >> 28)) * 0xCB24D0A5C88C35B3) & M64) >> 32

    def next_int_bound(self, bound):
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

    def next_double(self):
        return (self.next_long() >> 11) * 2.0**-53


def task_samples(seed, task_id, n, m):
    rnd = SplittableRandom(task_seed(seed, task_id))
    a = list(range(n))
    for i in range(m):
        j = i + rnd.next_int_bound(n - i)
        a[i], a[j] = a[j], a[i]
    return a[:m]


def initial_parameters(shapes, seed, count):
    import math
    import struct

    rnd = SplittableRandom(seed)
    out = []
    fan_in = 1
    for shape in shapes:
        if len(shape) >= 2:
            fan_in = math.prod(shape[1:])
        bound = 1.0 / math.sqrt(fan_in)
        for _ in range(math.prod(shape)):
            v = (2 * rnd.next_double() - 1) * bound
            out.append(struct.unpack("f", struct.pack("f", v))[0])  # (float) rounding
            if len(out) == count:
                return out
    return out


if __name__ == "__main__":
    for seed, tid, n, m in [(0, "job/0/0", 10, 10), (42, "fmnist/3/7", 60000, 8),
                            (7, "j/12/0", 1000, 5), (-5, "run-a/1/31", 16, 4)]:
        print("samples", seed, tid, n, m, task_samples(seed, tid, n, m))
    print("mlp init seed 1 first 4:", [repr(x) for x in initial_parameters([(256, 784)], 1, 4)])
    print("tiny init seed 3:", [repr(x) for x in initial_parameters([(3, 2), (3,), (2, 3), (2,)], 3, 100)])
