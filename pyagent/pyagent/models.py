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

A job whose model has been quiet (nothing of it stored: no version kept, no slice) for the model
retention (a day unless set) is forgotten: its model is dropped from memory, so that an agent
serving a sweep of many short jobs does not keep every one's parameters for good. If an
assignment of it comes later (``recall``), the cache reads the partitions its model was on again
from their beginning (the compacted topic keeps each job's newest version): the forgotten job's
records are applied as they were the first time, the records of other jobs it passes again are
skipped, and nothing read again is dead-lettered again.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from typing import Callable, Dict, Optional, Set

from . import tensor
from .codec import DecodeError
from .network import NetworkSpec, ParameterShape, layout_problem
from .topics import MAX_CHUNKS, ChunkAssembler, chunk_key

log = logging.getLogger(__name__)

MAX_VERSION = 2 ** 31 - 1
MAX_MODEL_BYTES = 1 << 30
MAX_INCOMPLETE = 8
# How long a job's model is kept while nothing of it is stored: a day, as long as the broker keeps a
# job without a round event (a live job's model moves every round).
DEFAULT_RETENTION = 86400.0
# How often the cache looks for jobs to forget, at most (or once a retention, if shorter).
FORGET_CHECK = 60.0


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

    def forget(self, job: str) -> None:
        """Drops every incomplete version of ``job`` (its model was forgotten)."""
        if self.slices.discard_if(lambda k: k[0] == job):
            for k in [k for k in self.first if k[0] == job]:
                del self.first[k]


class ModelCache:
    """Thread-safe: the follower thread writes, the task thread reads and waits.

    ``clock`` is the clock of the jobs' quiet times, in seconds (``time.monotonic`` unless a test
    gives another, so that it need not wait a retention out)."""

    def __init__(self, consumer, topic: str, decode: Callable[[bytes], dict],
                 dead_letter: Callable[[object, str, Optional[BaseException]], None],
                 clock: Callable[[], float] = time.monotonic):
        self.consumer = consumer
        self.topic = topic
        self.decode = decode
        self.dead_letter = dead_letter
        self.clock = clock
        self.retention = DEFAULT_RETENTION
        self.assembler = ModelAssembler()
        self.models: Dict[str, dict] = {}
        self.arriving_versions: Dict[str, int] = {}
        # per job, when a slice or a version of its model was last stored (``clock``): the job is
        # alive while this moves (``quiet_for``), and forgotten once it stood still a retention
        self.last_heard: Dict[str, float] = {}
        # per job, the partitions its model's records were read from: where to read it again
        self.partitions_of: Dict[str, Set[int]] = {}
        # jobs forgotten, with the partitions their models were on
        self.forgotten: Dict[str, Set[int]] = {}
        # forgotten jobs asked for again (the task thread), whose partitions are to be read again
        self.recalled: Set[str] = set()
        # forgotten jobs whose partitions are being read again (the cache's thread)
        self.recalling: Set[str] = set()
        # per partition read again, the offset where it stood: below it, a record was read before
        # (the cache's thread only)
        self.rereading_until: Dict[int, int] = {}
        # whether the record being applied was read before (a partition read again for a recall)
        self.rereading = False
        self.last_forget_check = clock()
        self.cond = threading.Condition()
        self.closed = False
        self.assigned = False
        self.catching_up = False
        self.caught_up = False
        self.start_ends: Dict[int, int] = {}
        self.thread: Optional[threading.Thread] = None

    def set_retention(self, seconds: float) -> None:
        """How long a job's model is kept while nothing of it is stored (``DEFAULT_RETENTION``
        unless set); then it is forgotten, and read again if the job comes back (``recall``)."""
        if not seconds > 0:
            raise ValueError("the model retention must be positive, was %s s" % seconds)
        self.retention = seconds

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
        """Whether the job's ``version`` (or a newer one) is on its way: its slices are being put
        together, or its forgotten model is being read again. An assignment waits longer then."""
        with self.cond:
            if job in self.recalled or job in self.recalling:
                return True  # being read again
            newest = self.arriving_versions.get(job)
            return newest is not None and newest >= version

    def recall(self, job: str) -> bool:
        """Reads a forgotten job's model again: its partitions from their beginning, on the cache's
        thread. Does nothing for a job not forgotten. Whether the job's model is being read again."""
        with self.cond:
            if job not in self.forgotten:
                return False
            self.recalled.add(job)
            return True

    def quiet_for(self, job: str) -> float:
        """Seconds since a slice or a version of the job's model was last stored (``math.inf`` if
        none was, or the job was forgotten): a parked round planned ahead of a job that stays quiet
        long looks stopped."""
        with self.cond:
            heard = self.last_heard.get(job)
            return math.inf if heard is None else self.clock() - heard

    def jobs(self) -> int:
        """How many jobs' models the cache holds now (a job quiet for the retention is dropped)."""
        with self.cond:
            return len(self.models)

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
        self._forget_quiet_jobs()
        self._read_recalled_again()
        message = self.consumer.poll(timeout)
        if message is None:
            if self.catching_up and self._at_start_ends():
                with self.cond:
                    self.catching_up = False
                    self.caught_up = True
                    self.cond.notify_all()
            self._finish_rereads()
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
        self._finish_rereads()

    def _forget_quiet_jobs(self) -> None:
        """Forgets, at most once a ``FORGET_CHECK`` (or a retention, if shorter), every job whose
        model has been quiet for the retention: its versions, its incomplete slices, when it was
        heard. Its partitions are kept, to read it again if it comes back."""
        now = self.clock()
        if now - self.last_forget_check < min(FORGET_CHECK, self.retention):
            return
        self.last_forget_check = now
        with self.cond:
            quiet = [job for job, heard in self.last_heard.items() if now - heard >= self.retention]
            for job in quiet:
                self.models.pop(job, None)
                self.arriving_versions.pop(job, None)
                del self.last_heard[job]
                self.forgotten[job] = set(self.partitions_of.get(job, ()))
        for job in quiet:
            self.assembler.forget(job)
            log.info("model of job %s forgotten: nothing of it read for %.0f s", job, self.retention)

    def _read_recalled_again(self) -> None:
        """Seeks the partitions of the jobs recalled since the last poll back to their beginning,
        noting where each stood: the records below it were read before. A partition that holds
        nothing below that any more (its records deleted) is not read again. A job on a partition
        being read again already waits until that ends (the records it needs may be behind)."""
        from confluent_kafka import OFFSET_BEGINNING, TopicPartition

        with self.cond:
            if not self.recalled:
                return
            recalled = {job for job in self.recalled
                        if not self.forgotten.get(job, set()) & set(self.rereading_until)}
            partitions: Set[int] = set()
            for job in recalled:
                partitions.update(self.forgotten.get(job, ()))
        for p in sorted(partitions):
            tp = TopicPartition(self.topic, p)
            until = self.consumer.position([tp])[0].offset
            low, high = self.consumer.get_watermark_offsets(tp, timeout=5)
            if until < 0:
                until = high  # nothing read of it since it was assigned or sought: its end
            if low >= until:
                continue
            self.rereading_until[p] = until
            self.consumer.seek(TopicPartition(self.topic, p, OFFSET_BEGINNING))
            log.info("reading model partition %s-%d again (to offset %d) for a forgotten job", self.topic, p, until)
        # only now: if a seek above failed, the next poll tries these jobs again
        with self.cond:
            self.recalled -= recalled
            self.recalling |= recalled

    def _finish_rereads(self) -> None:
        """Ends the reading again of every partition read up to where it stood. Once none is read
        again, a recalled job not found on them is no longer arriving (its assignment waits the
        usual wait)."""
        from confluent_kafka import TopicPartition

        if self.rereading_until:
            # -1001 (no offset) right after the seek, until its first record is read
            for tp in self.consumer.position([TopicPartition(self.topic, p) for p in self.rereading_until]):
                if tp.offset >= self.rereading_until[tp.partition]:
                    del self.rereading_until[tp.partition]
        if not self.rereading_until and self.recalling:
            with self.cond:
                self.recalling.clear()

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
        until = self.rereading_until.get(message.partition())
        self.rereading = until is not None and message.offset() < until
        if until is not None and not self.rereading:
            del self.rereading_until[message.partition()]  # read again up to where it stood
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
            if self.rereading and model["job"] not in self.recalling:
                return  # another job's, applied when it was read the first time
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
                        self._heard(value["job"], message.partition())
                        self.cond.notify_all()
        else:
            with self.cond:
                self.arriving_versions[model["job"]] = max(
                    self.arriving_versions.get(model["job"], -1), model["version"])
                self._heard(model["job"], message.partition())

    def _heard(self, job: str, partition: int) -> None:
        """Something of ``job``'s model, read from ``partition``, was stored just now: the job is
        alive (and no longer forgotten, if it was). A job being read again stays so to the end of
        the re-read: its other records (the version's other slices, newer versions not compacted
        away yet) are still to be applied. Under ``cond``."""
        self.last_heard[job] = self.clock()
        self.partitions_of.setdefault(job, set()).add(partition)
        if self.forgotten.pop(job, None) is not None:
            self.recalled.discard(job)

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
        """Skips a record, and dead-letters it unless it was read while catching up or read again
        for a recall: a bad record stays on the compacted topic, so letters written then would
        repeat on every start and every recall. The agents that read it live lettered it."""
        if self.catching_up or self.rereading:
            log.warning("skipping %s-%d@%d (read %s, not dead-lettered again): %s", message.topic(),
                        message.partition(), message.offset(),
                        "again for a forgotten job" if self.rereading else "while catching up", reason)
            return
        log.warning("dead-lettering %s-%d@%d: %s", message.topic(), message.partition(), message.offset(), reason)
        self.dead_letter(message, reason, error)
