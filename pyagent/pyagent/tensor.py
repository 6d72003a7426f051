"""Tensors on the wire (``TensorEncoding``): little-endian float64, float32, float16 (IEEE binary16)
or bfloat16 (the upper half of a binary32), rounded to nearest even as the Java parts round."""

from __future__ import annotations

import numpy as np

BYTES_PER_VALUE = {"FLOAT64_LE": 8, "FLOAT32_LE": 4, "FLOAT16_LE": 2, "BFLOAT16_LE": 2}
GRADIENT_ENCODINGS = ("FLOAT32_LE", "FLOAT16_LE", "BFLOAT16_LE")


def length(data: bytes, encoding: str) -> int:
    """How many values ``data`` holds, or -1 if it is not a whole number of them."""
    size = BYTES_PER_VALUE[encoding]
    return len(data) // size if len(data) % size == 0 else -1


def decode(data: bytes, encoding: str) -> np.ndarray:
    """The values of ``data`` as float32 (float64 for FLOAT64_LE); a read-only view where it can be."""
    if encoding == "FLOAT64_LE":
        return np.frombuffer(data, dtype="<f8")
    if encoding == "FLOAT32_LE":
        return np.frombuffer(data, dtype="<f4")
    if encoding == "FLOAT16_LE":
        return np.frombuffer(data, dtype="<f2").astype(np.float32)
    if encoding == "BFLOAT16_LE":
        bits = np.frombuffer(data, dtype="<u2").astype(np.uint32) << 16
        return bits.view(np.float32)
    raise ValueError("unknown tensor encoding %s" % encoding)


def decode_floats(data: bytes, encoding: str) -> np.ndarray:
    """The values as float32 (float64 narrowed, as Java's (float) cast does)."""
    return decode(data, encoding).astype(np.float32, copy=False)


def first_non_finite(data: bytes, encoding: str) -> int:
    """The index of the first NaN or infinite value, or -1."""
    values = decode(data, encoding)
    bad = np.flatnonzero(~np.isfinite(values))
    return int(bad[0]) if bad.size else -1


def encode(values: np.ndarray, encoding: str) -> bytes:
    """``values`` (float32, or float64 for FLOAT64_LE) as ``encoding`` bytes."""
    if encoding == "FLOAT64_LE":
        return np.ascontiguousarray(values, dtype="<f8").tobytes()
    floats = np.ascontiguousarray(values, dtype=np.float32)
    if encoding == "FLOAT32_LE":
        return floats.astype("<f4", copy=False).tobytes()
    if encoding == "FLOAT16_LE":
        with np.errstate(over="ignore"):  # numpy rounds to nearest even, overflow to infinity
            return floats.astype("<f2").tobytes()
    if encoding == "BFLOAT16_LE":
        bits = floats.view(np.uint32).astype(np.uint64)
        nan = np.isnan(floats)
        rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
        quiet = ((bits >> 16) | 0x0040).astype(np.uint16)
        return np.where(nan, quiet, rounded).astype("<u2").tobytes()
    raise ValueError("unknown tensor encoding %s" % encoding)
