"""Topic names (the Java ``Topics``), chunking (``Chunks``, ``ChunkAssembler``) and dead letters
(``DeadLetters``), as the contract in docs/streaming.md has them."""

from __future__ import annotations

import re
import unicodedata
from collections import OrderedDict
from dataclasses import dataclass
from typing import Optional

DEFAULT_PREFIX = "ata."
DEFAULT_CHUNK_BYTES = 900_000
MAX_CHUNKS = 10_000
WORKER_AGENT = "worker-agent"
DEFAULT_MAX_PAYLOAD_BYTES = 64 * 1024
MAX_REASON_CHARS = 4096


def _topic(name: str) -> property:
    """The topic ``name`` under the deployment's prefix, as a read-only attribute of ``Topics``."""
    return property(lambda self: self.prefix + name)


@dataclass(frozen=True)
class Topics:
    prefix: str = DEFAULT_PREFIX

    workers = _topic("workers")
    tasks = _topic("tasks")
    gradients = _topic("gradients")
    timings = _topic("timings")
    model = _topic("model")
    rounds = _topic("rounds")
    dead_letters = _topic("dead-letters")
    evaluations = _topic("evaluations")

    def worker_group(self) -> str:
        """The agents' consumer group on tasks: every agent of a deployment shares it."""
        return self.prefix + "workers"

    def agent_transactional_id(self, worker_id: str) -> str:
        """An agent's transactional id, also its static member id in the group."""
        return self.prefix + "agent-" + worker_id


def chunk_count(payload_bytes: int, chunk_bytes: int) -> int:
    chunks = max(1, -(-payload_bytes // chunk_bytes))
    if chunks > MAX_CHUNKS:
        raise ValueError("%d bytes need %d slices of %d bytes, more than the %d allowed"
                         % (payload_bytes, chunks, chunk_bytes, MAX_CHUNKS))
    return chunks


SLICE_SEPARATOR = "#"
MAX_JOB_NAME = 255

# Java's Character.isWhitespace: these controls, and the space, line and paragraph separators but
# the no-break spaces (U+00A0, U+2007, U+202F), which str.strip() and str.isspace() take for
# whitespace, as they take U+0085 (a control character to Java)
_JAVA_WHITESPACE_CONTROLS = frozenset("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f")
_NO_BREAK_SPACES = frozenset("\u00a0\u2007\u202f")
_SEPARATORS = ("Zs", "Zl", "Zp")


def java_whitespace(c: str) -> bool:
    """Whether the character ``c`` is whitespace to Java (``Character.isWhitespace``)."""
    if c in _JAVA_WHITESPACE_CONTROLS:
        return True
    return c not in _NO_BREAK_SPACES and unicodedata.category(c) in _SEPARATORS


def java_blank(s: str) -> bool:
    """Whether ``s`` is blank as Java's ``String.isBlank()`` has it: empty, or only characters
    :func:`java_whitespace` takes for whitespace. Not ``not s.strip()``: a no-break space is a name
    to Java, and U+0085 is a control character, not blank."""
    return all(java_whitespace(c) for c in s)


def java_trim(s: str) -> str:
    """``s`` without what Java's ``String.trim()`` removes at both ends: every character up to
    U+0020 (the C0 controls and the space), and nothing else. Not ``str.strip()``: that removes
    U+0085 and the Unicode spaces too, and keeps NUL and the other controls."""
    return s.strip(_UP_TO_SPACE)


_UP_TO_SPACE = "".join(chr(c) for c in range(0x21))


def java_int(text: str) -> int:
    """``text`` read as Java's ``Integer.parseInt`` reads it: an optional sign and decimal digits
    (any script's, as ``Character.digit`` takes them), in the 32-bit range. Not ``int()``: that
    also takes underscores between digits, whitespace around them and numbers of any size.

    :raises ValueError: if Java would throw ``NumberFormatException``"""
    if not _JAVA_INT.fullmatch(text):
        raise ValueError("not a Java int: %r" % text)
    value = int(text)
    if not -2 ** 31 <= value < 2 ** 31:
        raise ValueError("out of Java's int range: %r" % text)
    return value


_JAVA_INT = re.compile(r"[+-]?\d+")


def chunk_key(job: str, chunk: int, chunks: int) -> str:
    return job if chunks == 1 else "%s%s%d" % (job, SLICE_SEPARATOR, chunk)


def job_name_problem(job: str) -> Optional[str]:
    """Why ``job`` cannot be a job's name, or None (the Java ``JobNames.problem``): a name with
    ``#`` could be another job's slice key (``a#1`` is job ``a``'s slice 1)."""
    if java_blank(job):
        return "a job needs a name"
    length = len(job.encode("utf-16-le")) // 2  # Java counts UTF-16 units
    if length > MAX_JOB_NAME:
        return "job name of %d characters (at most %d)" % (length, MAX_JOB_NAME)
    if any(ord(c) <= 0x1F or 0x7F <= ord(c) <= 0x9F for c in job):
        return "job name with a control character"
    if SLICE_SEPARATOR in job:
        return ("job name '%s' contains '%s', which separates a job's name from a slice number "
                "in the keys of its model" % (job, SLICE_SEPARATOR))
    return None


def murmur2(data: bytes) -> int:
    """Kafka's murmur2 hash of ``data`` (the Java client's ``Utils.murmur2``), a signed 32-bit int."""
    m, r = 0x5BD1E995, 24
    length = len(data)
    h = (0x9747B28C ^ length) & 0xFFFFFFFF
    whole = length & ~3
    for i in range(0, whole, 4):
        k = int.from_bytes(data[i:i + 4], "little")
        k = (k * m) & 0xFFFFFFFF
        k ^= k >> r
        k = (k * m) & 0xFFFFFFFF
        h = ((h * m) & 0xFFFFFFFF) ^ k
    extra = length - whole
    if extra == 3:
        h ^= data[whole + 2] << 16
    if extra >= 2:
        h ^= data[whole + 1] << 8
    if extra >= 1:
        h ^= data[whole]
        h = (h * m) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * m) & 0xFFFFFFFF
    h ^= h >> 15
    return h - (1 << 32) if h >= 1 << 31 else h


def partition_of_job(job: str, partitions: int) -> int:
    """The partition of ``job``'s records on a topic keyed by job with ``partitions`` partitions, as
    the Java ``Topics.partitionOfJob`` (Kafka's default partitioner: murmur2 of the key's UTF-8
    bytes, made positive, modulo the count). The trainer writes every record of a job's model, its
    slices too, to that partition of ``model``."""
    if partitions < 1:
        raise ValueError("partitions must be >= 1, was %d" % partitions)
    return (murmur2(job.encode("utf-8")) & 0x7FFFFFFF) % partitions


class ChunkAssembler:
    """Puts sliced payloads back together with bounded memory: at most ``max_open`` incomplete at
    once, none over ``max_payload_bytes``. ``offer`` returns ``("incomplete", None)``,
    ``("complete", payload)`` or ``("refused", reason)``; it never raises for a bad slice."""

    def __init__(self, max_payload_bytes: int, max_open: int):
        self.max_payload_bytes = max_payload_bytes
        self.max_open = max_open
        self.open: "OrderedDict[object, dict]" = OrderedDict()

    def offer(self, key, chunk: int, chunks: int, data: bytes):
        if chunks < 1 or chunks > MAX_CHUNKS:
            return self._refuse(key, "chunks must be between 1 and %d, was %d" % (MAX_CHUNKS, chunks))
        if chunk < 0 or chunk >= chunks:
            return self._refuse(key, "chunk %d is not between 0 and %d" % (chunk, chunks - 1))
        if chunks == 1:
            if len(data) > self.max_payload_bytes:
                return self._refuse(key, self._too_large(len(data)))
            return "complete", data
        assembly = self.open.get(key)
        if assembly is None:
            if len(self.open) >= self.max_open:
                return "refused", "more than %d chunked payloads are incomplete at once" % self.max_open
            assembly = {"slices": [None] * chunks, "bytes": 0, "received": 0}
            self.open[key] = assembly
        if len(assembly["slices"]) != chunks:
            return self._refuse(key, "chunk %d says %d chunks, earlier ones said %d" % (chunk, chunks, len(assembly["slices"])))
        if assembly["slices"][chunk] is not None:
            return self._refuse(key, "chunk %d of %d arrived twice" % (chunk, chunks))
        if assembly["bytes"] + len(data) > self.max_payload_bytes:
            return self._refuse(key, self._too_large(assembly["bytes"] + len(data)))
        assembly["slices"][chunk] = data
        assembly["bytes"] += len(data)
        assembly["received"] += 1
        if assembly["received"] < chunks:
            return "incomplete", (assembly["received"], chunks)
        del self.open[key]
        return "complete", b"".join(assembly["slices"])

    def discard_if(self, drop) -> int:
        gone = [key for key in self.open if drop(key)]
        for key in gone:
            del self.open[key]
        return len(gone)

    def _refuse(self, key, reason):
        self.open.pop(key, None)
        return "refused", reason

    def _too_large(self, size: int) -> str:
        return "payload of %d bytes or more is larger than the %d allowed" % (size, self.max_payload_bytes)


def dead_letter(topic: str, partition: int, offset: int, key: Optional[bytes], value: Optional[bytes],
                reason: str, error: Optional[BaseException], now_ms: int,
                max_payload_bytes: int = DEFAULT_MAX_PAYLOAD_BYTES) -> dict:
    """The DeadLetter of a refused record: raw key and value cut to ``max_payload_bytes``, the
    reason to 4096 characters, keyed (by the caller) by the source topic."""

    def longer(b):
        return b is not None and len(b) > max_payload_bytes

    def size(b):
        return -1 if b is None else len(b)

    def cut(text):
        return text if len(text) <= MAX_REASON_CHARS else text[:MAX_REASON_CHARS - 3] + "..."

    truncated = longer(key) or longer(value)
    why = cut(reason if reason is not None else repr(error))
    if truncated:
        why = cut("[payload truncated to its first %d bytes: key %d bytes, value %d bytes] %s"
                  % (max_payload_bytes, size(key), size(value), why))
    return {
        "source_topic": topic,
        "partition": partition,
        "offset": offset,
        "key": None if key is None else bytes(key[:max_payload_bytes]),
        "value": None if value is None else bytes(value[:max_payload_bytes]),
        "reason": why,
        "error_class": "" if error is None else type(error).__name__,
        "component": WORKER_AGENT,
        "timestamp_ms": now_ms,
        "truncated": truncated,
        "key_size": size(key),
        "value_size": size(value),
    }
