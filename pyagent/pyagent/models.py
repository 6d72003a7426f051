"""The newest model version of every job, followed from the compacted ``model`` topic (the Java
``ModelCache``, ``ModelAssembler`` and ``ModelRules``).

A consumer without a group assigns itself every partition from the beginning, read_committed, on
a thread of its own. Chunked versions are put back together (at most 1 GiB a version, 8
incomplete at once) and become visible whole. Refused, dead-lettered and never applied: a record
that does not decode, a tombstone, a blank job, a version outside 0 to 2^31 - 1, a chunk outside
its count or under another key than ``job#i``, a version below the job's newest, a slice the
assembler refuses, and a whole version whose parameters are not whole values, not finite, or whose
TaskSpec's network does not parse or does not match its parameter list and count. Records refused
while catching up at the start are logged, not lettered again (the agents that read them live did).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from typing import Callable, Dict, Optional

from . import tensor
from .codec import DecodeError
from .network import NetworkSpec, ParameterShape, layout_problem
from .topics import MAX_CHUNKS, ChunkAssembler, chunk_key

log = logging.getLogger(__name__)

MAX_VERSION = 2 ** 31 - 1
MAX_MODEL_BYTES = 1 << 30
MAX_INCOMPLETE = 8


def version_problem(model: dict) -> Optional[str]:
    if model["version"] < 0 or model["version"] > MAX_VERSION:
        return "job %s: model version %d is out of range (0 to %d)" % (model["job"], model["version"], MAX_VERSION)
    return None


def whole_problem(model: dict) -> Optional[str]:
    """Why a whole model version is refused, or None."""
    what = "model of job %s version %d: " % (model["job"], model["version"])
    params = model["parameters"]
    count = tensor.length(params, model["encoding"])
    if count < 0:
        return what + "%d parameter bytes are not a whole number of %s values" % (len(params), model["encoding"])
    bad = tensor.first_non_finite(params, model["encoding"])
    if bad >= 0:
        return what + "parameter %d is not finite" % bad
    task = model.get("task")
    if task is None:
        return None
    try:
        spec = NetworkSpec.parse(task["network"])
    except ValueError as e:
        return what + "its network '%s' does not parse: %s" % (task["network"], e)
    described = [ParameterShape(p["name"], tuple(p["shape"])) for p in task["parameters"]]
    problem = layout_problem(described, spec.layout(), "the network %s" % spec)
    if problem:
        return what + "its parameter list does not match its network: " + problem
    total = sum(p.size for p in described)
    if total != count:
        return what + "it has %d parameters, its network %s has %d" % (count, spec, total)
    return None


class ModelAssembler:
    """Chunked versions, whole once every slice arrived; an incomplete version is dropped once a
    newer version of its job arrives."""

    def __init__(self, max_payload_bytes: int = MAX_MODEL_BYTES, max_open: int = MAX_INCOMPLETE):
        self.slices = ChunkAssembler(max_payload_bytes, max_open)
        self.first: Dict[tuple, dict] = {}

    def offer(self, model: dict):
        """``("pending", None)``, ``("whole", model)`` or ``("refused", reason)``."""
        job, version = model["job"], model["version"]
        if self.slices.discard_if(lambda k: k[0] == job and k[1] < version):
            for k in [k for k in self.first if k[0] == job and k[1] < version]:
                del self.first[k]
        if model["chunks"] == 1 and model["chunk"] == 0:
            return "whole", model
        key = (job, version)
        outcome, value = self.slices.offer(key, model["chunk"], model["chunks"], model["parameters"])
        if outcome == "incomplete":
            if model["chunk"] == 0:
                self.first[key] = model
            return "pending", None
        if outcome == "refused":
            self.first.pop(key, None)
            return "refused", "model of job %s version %d, chunk %d of %d: %s" % (
                job, version, model["chunk"], model["chunks"], value)
        first = model if model["chunk"] == 0 else self.first.pop(key)
        whole = dict(first)
        whole["parameters"] = value
        whole["chunk"] = 0
        whole["chunks"] = 1
        return "whole", whole


class ModelCache:
    """Thread-safe: the follower thread writes, the task thread reads and waits."""

    def __init__(self, consumer, topic: str, decode: Callable[[bytes], dict],
                 dead_letter: Callable[[object, str, Optional[BaseException]], None]):
        self.consumer = consumer
        self.topic = topic
        self.decode = decode
        self.dead_letter = dead_letter
        self.assembler = ModelAssembler()
        self.models: Dict[str, dict] = {}
        self.arriving_versions: Dict[str, int] = {}
        # per job, when a slice or a version of its model was last stored (time.monotonic()): the
        # job is alive while this moves (``quiet_for``)
        self.last_heard: Dict[str, float] = {}
        self.cond = threading.Condition()
        self.closed = False
        self.assigned = False
        self.catching_up = False
        self.caught_up = False
        self.start_ends: Dict[int, int] = {}
        self.thread: Optional[threading.Thread] = None

    # ---- reading (task thread) ----

    def latest(self, job: str) -> Optional[dict]:
        with self.cond:
            return self.models.get(job)

    def await_version(self, job: str, version: int, timeout: float) -> Optional[dict]:
        """The job's model once it is at ``version`` or later, or None after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                model = self.models.get(job)
                if model is not None and model["version"] >= version:
                    return model
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self.cond.wait(remaining)

    def await_caught_up(self, timeout: float) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: self.caught_up, timeout)

    def arriving(self, job: str, version: int) -> bool:
        with self.cond:
            newest = self.arriving_versions.get(job)
            return newest is not None and newest >= version

    def quiet_for(self, job: str) -> float:
        """Seconds since a slice or a version of the job's model was last stored (``math.inf`` if
        none was): a parked round planned ahead of a job that stays quiet long looks stopped."""
        with self.cond:
            heard = self.last_heard.get(job)
            return math.inf if heard is None else time.monotonic() - heard

    # ---- following (its own thread) ----

    def start(self, name: str) -> None:
        self.thread = threading.Thread(target=self._follow, name=name, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.closed = True
        if self.thread is not None:
            self.thread.join(10)
        else:
            self.consumer.close()

    def _follow(self) -> None:
        try:
            while not self.closed:
                try:
                    self.poll_once(0.2)
                except Exception as e:  # noqa: BLE001 - e.g. the registry unreachable: read again
                    log.warning("reading model topic %s failed, retrying in 1 s: %s", self.topic, e)
                    time.sleep(1)
        finally:
            try:
                self.consumer.close()
            except Exception as e:  # noqa: BLE001
                log.debug("closing the model consumer: %s", e)

    def poll_once(self, timeout: float) -> None:
        from confluent_kafka import OFFSET_BEGINNING, TopicPartition

        if not self.assigned:
            metadata = self.consumer.list_topics(self.topic, timeout=max(timeout, 1.0))
            info = metadata.topics.get(self.topic)
            if info is None or info.error is not None or not info.partitions:
                time.sleep(timeout)
                return
            partitions = [TopicPartition(self.topic, p, OFFSET_BEGINNING) for p in sorted(info.partitions)]
            for tp in partitions:
                low, high = self.consumer.get_watermark_offsets(TopicPartition(self.topic, tp.partition), timeout=5)
                self.start_ends[tp.partition] = high if high > low else -1
            self.consumer.assign(partitions)
            self.assigned = True
            self.catching_up = True
            log.info("following model topic %s (%d partitions)", self.topic, len(partitions))
        message = self.consumer.poll(timeout)
        if message is None:
            if self.catching_up and self._at_start_ends():
                with self.cond:
                    self.catching_up = False
                    self.caught_up = True
                    self.cond.notify_all()
            return
        if message.error() is not None:
            log.debug("model topic: %s", message.error())
            return
        try:
            self.accept(message)
        except Exception:
            # not a bad record (those are lettered in accept): read it again on the next poll
            self.consumer.seek(TopicPartition(message.topic(), message.partition(), message.offset()))
            raise

    def _at_start_ends(self) -> bool:
        from confluent_kafka import TopicPartition

        try:
            positions = self.consumer.position([TopicPartition(self.topic, p) for p in self.start_ends])
        except Exception:  # noqa: BLE001
            return True
        for tp in positions:
            end = self.start_ends.get(tp.partition, -1)
            # a transaction's commit marker takes the last offset: one short of the end is there
            if end >= 0 and (tp.offset < 0 or tp.offset < end - 1):
                return False
        return True

    def accept(self, message) -> None:
        raw_key = message.key()
        key = None if raw_key is None else raw_key.decode("utf-8", "replace")
        value = message.value()
        if value is None:
            self._refuse(message, "tombstone %s on the model topic: models are never deleted, not applied"
                         % ("without a key" if key is None else "for key '%s'" % key), None)
            return
        try:
            model = self.decode(value)
        except DecodeError as e:
            self._refuse(message, str(e), e)
            return
        problem = self._problem(key, model)
        if problem:
            self._refuse(message, problem, None)
            return
        with self.cond:
            current = self.models.get(model["job"])
        newest = -1 if current is None else current["version"]
        if model["version"] < newest:
            self._refuse(message, "model of job %s version %d goes backwards (the newest is %d), not applied"
                         % (model["job"], model["version"], newest), None)
            return
        outcome, value = self.assembler.offer(model)
        if outcome == "refused":
            self._arrived(model["job"])
            self._refuse(message, value, None)
        elif outcome == "whole":
            self._arrived(model["job"])
            wrong = whole_problem(value)
            if wrong:
                self._refuse(message, wrong + ", not applied", None)
            else:
                with self.cond:
                    current = self.models.get(value["job"])
                    if current is None or value["version"] >= current["version"]:
                        self.models[value["job"]] = value
                        self.last_heard[value["job"]] = time.monotonic()
                        self.cond.notify_all()
        else:
            with self.cond:
                self.arriving_versions[model["job"]] = max(
                    self.arriving_versions.get(model["job"], -1), model["version"])
                self.last_heard[model["job"]] = time.monotonic()

    def _arrived(self, job: str) -> None:
        with self.cond:
            self.arriving_versions.pop(job, None)

    @staticmethod
    def _problem(key: Optional[str], model: dict) -> Optional[str]:
        if not model["job"].strip():
            return "model version without job"
        problem = version_problem(model)
        if problem:
            return problem
        if model["chunks"] < 1 or model["chunks"] > MAX_CHUNKS:
            return "model of job %s version %d: %d chunks is out of range (1 to %d)" % (
                model["job"], model["version"], model["chunks"], MAX_CHUNKS)
        if model["chunk"] < 0 or model["chunk"] >= model["chunks"]:
            return "model of job %s version %d: chunk %d of %d is out of range" % (
                model["job"], model["version"], model["chunk"], model["chunks"])
        expected = chunk_key(model["job"], model["chunk"], model["chunks"])
        if key is not None and key != expected:
            return "model of job %s under key '%s' (the key must be '%s')" % (model["job"], key, expected)
        return None

    def _refuse(self, message, reason: str, error: Optional[BaseException]) -> None:
        if self.catching_up:
            log.warning("skipping %s-%d@%d (read while catching up, not dead-lettered again): %s",
                        message.topic(), message.partition(), message.offset(), reason)
            return
        log.warning("dead-lettering %s-%d@%d: %s", message.topic(), message.partition(), message.offset(), reason)
        self.dead_letter(message, reason, error)
