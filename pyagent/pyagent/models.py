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
assignment of it comes later (``recall``), a ``ModelRecall`` reads the job's partition of the topic
(the one its model's records were last read from, kept with its name for good; ``partition_of_job``
only if none is known; the compacted topic keeps each job's newest version) from its beginning to
where it ends when the read starts, with a consumer of its own on a thread of its own, one
partition at a time: the cache's consumer goes on with the live jobs meanwhile. One read of a
partition serves every job recalled for it while the read waited to start (a sweep's jobs coming
back at once share the topic's few partitions); a job recalled for it once the read began waits for
the next one. Only those jobs' records are decoded, and nothing read again is dead-lettered again.
A job a read found nothing of (or whose read failed) is not read again for ``RECALL_COOL_DOWN`` s,
so that a job whose model is not on the topic does not have its partition read whole at every
assignment; a Schema Registry outage during a read is waited out within the read's timeout, for
``OUTAGE_PATIENCE`` s at most over the reads one after another: once the registry has not answered
that long, every read that needs it fails at once (its jobs then cool down) until a record is read
without a registry error again, or a read starts that does not follow a give-up within the patience
(a blip long after is waited out again). A cache given no way to read again (no ``readers``) forgets nothing.
"""

from __future__ import annotations

import logging
import math
import queue
import threading
import time
from typing import Callable, Dict, Optional, Set

from . import tensor
from .codec import DecodeError
from .network import NetworkSpec, ParameterShape, layout_problem
from .registry import RegistryError, SchemaNotFound
from .topics import (MAX_CHUNKS, SLICE_SEPARATOR, ChunkAssembler, chunk_key, java_blank, job_name_problem,
                     partition_of_job)

log = logging.getLogger(__name__)

MAX_VERSION = 2 ** 31 - 1
MAX_MODEL_BYTES = 1 << 30
MAX_INCOMPLETE = 8
# How long a job's model is kept while nothing of it is stored: a day, as long as the broker keeps a
# job without a round event (a live job's model moves every round).
DEFAULT_RETENTION = 86400.0
# How often the cache looks for jobs to forget, at most (or once a retention, if shorter).
FORGET_CHECK = 60.0
# How long one read again of a partition (for every job waiting for it) may take at most, from its beginning.
RECALL_TIMEOUT = 120.0
# How long a job whose read again found nothing (or failed) is not read again: its assignments meanwhile
# are those of a job without a model (parked for the ordinary model wait, then dead-lettered).
RECALL_COOL_DOWN = 60.0
# How long a read again waits before reading a record again whose schema the Schema Registry could not
# give (unreachable, or answering an error): an outage is waited out, for OUTAGE_PATIENCE at most over the reads.
RECALL_RETRY = 1.0
# How long the reads again wait out a Schema Registry that does not answer, together: they run one after
# another on one thread, so a long outage would hold each queued read for its whole timeout in turn. Once
# the registry has not answered that long, a read that needs it fails at once, until a record is read
# without a registry error again.
OUTAGE_PATIENCE = 30.0
# How long ``close`` waits for a read again under way to stop (at its next poll) and close its consumer.
RECALL_CLOSE_WAIT = 5.0


def _jobs_named(jobs, most: int = 5) -> str:
    """``jobs`` for a log line: "job a", "3 jobs (a, b, c)", "40 jobs (a, b, c, d, e, ...)"."""
    names = sorted(jobs)
    if len(names) == 1:
        return "job " + names[0]
    shown = ", ".join(names[:most]) + (", ..." if len(names) > most else "")
    return "%d jobs (%s)" % (len(names), shown)


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
    """Thread-safe: the follower thread and the thread of the reads again write, the task thread
    reads and waits.

    ``clock`` is the clock of the jobs' quiet times, in seconds (``time.monotonic`` unless a test
    gives another, so that it need not wait a retention out). ``readers`` makes a consumer like
    ``consumer`` (no group, read_committed) for one read again of a forgotten job's model, closed
    after it; without it, the cache forgets nothing."""

    def __init__(self, consumer, topic: str, decode: Callable[[bytes], dict],
                 dead_letter: Callable[[object, str, Optional[BaseException]], None],
                 clock: Callable[[], float] = time.monotonic, readers: Optional[Callable[[], object]] = None):
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
        # per job, the partition its model's records were last read from: where it is read again
        self.heard_on: Dict[str, int] = {}
        # jobs forgotten, and the partition each was last heard on (None if not known), kept for
        # good (a name and a number each): a job whose trainer comes back however late is read
        # again, its model only on the topic then
        self.forgotten: Dict[str, Optional[int]] = {}
        # forgotten jobs being read again, or waiting for it
        self.recalling: Set[str] = set()
        # per partition, the recalled jobs waiting for its next read (taken whole when it starts)
        self.waiting: Dict[int, Set[str]] = {}
        # the partitions on ``recalls``, each at most once: a job recalled for one of them joins its
        # waiting jobs, and is read with them
        self.queued: Set[int] = set()
        # forgotten jobs whose last read again found nothing (or failed), and when it ended (``clock``):
        # not read again until ``RECALL_COOL_DOWN`` s later; dropped once a version of the job is found
        # or read live (so only forgotten jobs are in it)
        self.missed: Dict[str, float] = {}
        # reads a forgotten job's model again; None: this cache forgets nothing
        self.recall_reader = None if readers is None else ModelRecall(readers, topic, lambda v: self.decode(v))
        # the partitions to read again, one at a time, by a thread made at the first recall
        self.recalls: "Optional[queue.Queue]" = None
        self.recall_thread: Optional[threading.Thread] = None
        # how many partitions the topic has (0 until the cache follows it)
        self.partition_count = 0
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
        together. An assignment waits longer then (and while its model is :meth:`reading_again`)."""
        with self.cond:
            newest = self.arriving_versions.get(job)
            return newest is not None and newest >= version

    def reading_again(self, job: str) -> bool:
        """Whether the job's forgotten model is being read again now (its read queued or under way).
        Starts no read. False once closed: nothing is read again then."""
        with self.cond:
            return not self.closed and job in self.recalling

    def forgot(self, job: str) -> bool:
        """Whether the cache forgot ``job``'s model (quiet for the retention) and has not read it
        again, nor heard it live since (its last read again found nothing and cools down, say): what
        it knows of the job then says nothing of which versions can come. Starts no read."""
        with self.cond:
            return job in self.forgotten

    def recall(self, job: str) -> bool:
        """Reads a forgotten job's model again, on the thread of the reads again (one partition at a
        time): the partition its model was last read from (``partition_of_job`` by today's partition
        count if none is known), from the beginning. The job waits for that partition's next read
        (``waiting``), and the partition is queued unless it already is: one read serves every job
        waiting for it when it starts. Whether the job's model is being read again now (asked before,
        or now); False for a job not forgotten, and for one whose last read again found nothing (or
        failed) less than ``RECALL_COOL_DOWN`` s ago on ``clock`` (``missed``): its assignment is then
        one of a job without a model, and nothing is read. False once closed, and for a read that
        could not be queued (no thread for the reads again): no job is marked then."""
        with self.cond:
            if self.closed:
                return False
            if job in self.recalling:
                return True
            if job not in self.forgotten or self.recall_reader is None or self.partition_count == 0:
                return False
            missed = self.missed.get(job)
            if missed is not None:
                if self.clock() - missed < RECALL_COOL_DOWN:
                    return False
                del self.missed[job]
            if self.recall_thread is None:
                self.recalls = queue.Queue()
                name = (self.thread.name if self.thread is not None else "ata-model-cache") + "-recall"
                thread = threading.Thread(target=self._read_recalled, name=name, daemon=True)
                try:
                    thread.start()
                except RuntimeError as e:  # e.g. "can't start new thread": tried again at the next recall
                    log.warning("reading the model of job %s again could not be queued: %s", job, e)
                    self.recalls = None
                    return False
                self.recall_thread = thread
            partition = self.forgotten[job]
            if partition is None:
                partition = partition_of_job(job, self.partition_count)
            self.waiting.setdefault(partition, set()).add(job)
            if partition not in self.queued:
                self.queued.add(partition)
                self.recalls.put(partition)
            self.recalling.add(job)
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
        with self.cond:
            self.closed = True
            if self.recalls is not None:
                self.recalls.put(None)  # a read under way stops at its next poll, and closes its consumer
            # the reads queued are dropped (the thread ends at the next partition it takes): nothing is
            # being read again any more, so no assignment waits for one
            self.recalling.clear()
            self.waiting.clear()
            self.queued.clear()
            recall_thread = self.recall_thread
        if recall_thread is not None:
            recall_thread.join(RECALL_CLOSE_WAIT)
            if recall_thread.is_alive():
                log.warning("a read again of the model topic did not stop within %.0f s", RECALL_CLOSE_WAIT)
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
            self.partition_count = len(partitions)
            self.assigned = True
            self.catching_up = True
            log.info("following model topic %s (%d partitions)", self.topic, len(partitions))
        self._forget_quiet_jobs()
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

    def _forget_quiet_jobs(self) -> None:
        """Forgets, at most once a ``FORGET_CHECK`` (or a retention, if shorter), every job whose
        model has been quiet for the retention: its versions, its incomplete slices, when it was
        heard. Its name is kept for good, to read its model again whenever it comes back. A cache
        that cannot read again forgets nothing."""
        now = self.clock()
        if self.recall_reader is None or now - self.last_forget_check < min(FORGET_CHECK, self.retention):
            return
        self.last_forget_check = now
        with self.cond:
            quiet = [job for job, heard in self.last_heard.items()
                     if now - heard >= self.retention and job not in self.recalling]
            for job in quiet:
                self.models.pop(job, None)
                self.arriving_versions.pop(job, None)
                del self.last_heard[job]
                self.forgotten[job] = self.heard_on.pop(job, None)
        for job in quiet:
            self.assembler.forget(job)
            log.info("model of job %s forgotten: nothing of it read for %.0f s", job, self.retention)

    # ---- reading forgotten jobs again (a thread of its own) ----

    def _read_recalled(self) -> None:
        """The thread of the reads again: the queued partitions, one after the other, until closed.
        Each is read once for the jobs waiting for it when its read starts; a job recalled for it
        after that waits for its next read (queued again by that recall). An error escaping a read
        is logged and its partition's marks cleared (its jobs no longer being read again, the
        partition no longer queued): the thread goes on, and no partition is blocked for good."""
        while True:
            partition = self.recalls.get()
            if partition is None or self.closed:
                return
            jobs: Set[str] = set()
            try:
                with self.cond:
                    self.queued.discard(partition)
                    jobs = self.waiting.pop(partition, set())
                if jobs:
                    self._read_again(jobs, partition)
            except Exception:  # noqa: BLE001 - a bug: the reads queued behind are still read
                log.exception("reading the models of %s again from partition %s-%d failed", _jobs_named(jobs)
                              if jobs else "no job", self.topic, partition)
                with self.cond:
                    self.recalling.difference_update(jobs)
                    self.queued.discard(partition)

    def _read_again(self, jobs: Set[str], partition: int) -> None:
        """Reads the models of ``jobs`` again from ``partition`` (one read for all of them), keeping
        what it finds as if read live. Found or not, the jobs are no longer being read again after
        it. A job the read found a version of has its miss cleared; one it found nothing of, or
        every job of a read that failed, is left forgotten with a miss at this time (``missed``, if
        nothing of it was read live meanwhile): a recall reads it again only ``RECALL_COOL_DOWN`` s
        later."""
        found: Dict[str, int] = {}
        missed = []
        began = time.monotonic()
        try:
            found = self.recall_reader.read(set(jobs), partition,
                                            lambda whole: self._keep_recalled(whole, partition), lambda: self.closed)
        except Exception as e:  # noqa: BLE001 - e.g. the cluster unreachable
            log.warning("reading the models of %s again failed: %s", _jobs_named(jobs), e)
        finally:
            with self.cond:
                for job in jobs:
                    self.recalling.discard(job)
                    if found.get(job, 0) > 0:
                        self.missed.pop(job, None)
                    elif job in self.forgotten:
                        self.missed[job] = self.clock()
                        missed.append(job)
        log.info("models of %s read again from partition %s-%d in %.1f s: %d version(s) of %d job(s) found%s",
                 _jobs_named(jobs), self.topic, partition, time.monotonic() - began, sum(found.values()),
                 sum(1 for count in found.values() if count > 0),
                 "; %s not read again for %.0f s" % (_jobs_named(missed), RECALL_COOL_DOWN) if missed else "")

    def _keep_recalled(self, whole: dict, partition: int) -> None:
        """A version of a forgotten job read again from ``partition``: kept (unless a newer one is
        there), as if read live."""
        with self.cond:
            current = self.models.get(whole["job"])
            if current is None or whole["version"] >= current["version"]:
                self.models[whole["job"]] = whole
                self._heard(whole["job"], partition)
                self.cond.notify_all()

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
                        self._heard(value["job"], message.partition())
                        self.cond.notify_all()
        else:
            with self.cond:
                self.arriving_versions[model["job"]] = max(
                    self.arriving_versions.get(model["job"], -1), model["version"])
                self._heard(model["job"], message.partition())

    def _heard(self, job: str, partition: int) -> None:
        """Something of ``job``'s model was stored just now, read from ``partition``: the job is
        alive (and no longer forgotten, if it was, nor missed). Under ``cond``."""
        self.last_heard[job] = self.clock()
        self.heard_on[job] = partition
        self.forgotten.pop(job, None)
        self.missed.pop(job, None)

    def _arrived(self, job: str) -> None:
        with self.cond:
            self.arriving_versions.pop(job, None)

    @staticmethod
    def _problem(key: Optional[str], model: dict) -> Optional[str]:
        if java_blank(model["job"]):
            return "model version without job"
        name = job_name_problem(model["job"])
        if name:
            return "model version: " + name
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
        """Skips a record, and dead-letters it unless it was read while catching up: a bad record
        stays on the compacted topic, so letters written then would repeat on every start. The
        agents that read it live lettered it."""
        if self.catching_up:
            log.warning("skipping %s-%d@%d (read while catching up, not dead-lettered again): %s",
                        message.topic(), message.partition(), message.offset(), reason)
            return
        log.warning("dead-lettering %s-%d@%d: %s", message.topic(), message.partition(), message.offset(), reason)
        self.dead_letter(message, reason, error)


# How long one poll of a read again waits.
RECALL_POLL = 0.2
# A read again ends at its partition's end: told by librdkafka (its consumer has
# enable.partition.eof; past a transaction's commit marker, which no record takes, and which some
# librdkafka versions do not move the position past), or seen in its position. Once nothing came for
# MARKER_WAIT s while it stands one short of the end, or for QUIET_END s anywhere, it asks the
# position and the watermarks again, and ends only if the position reached the end or nothing before
# the end is left (deleted meanwhile); a slow fetch goes on, within the read's timeout.
MARKER_WAIT = 2.0
QUIET_END = 10.0


class ModelRecall:
    """Reads the models of jobs a ``ModelCache`` forgot again from one partition of the compacted
    ``model`` topic, once for all of them (the Java ``ModelRecall``): with a consumer of its own (no
    group, read_committed), from the partition's beginning to where it ends when the read starts,
    so that the cache's own consumer goes on with every live job meanwhile.

    Only those jobs' records are decoded (their key is one of the jobs, or ``job#i`` for a slice);
    each job's versions are put back together with an assembler of its own (the slices of different
    jobs interleave on the topic) and handed over whole, in the topic's order. Nothing read here is
    dead-lettered: the agents that read these records live did that, and a record refused then is
    skipped now, with a log line. A record the Schema Registry could not give the schema of
    (``RegistryError``: unreachable, or an error other than "not found") is not the record's fault:
    the read seeks back to it and reads it again ``RECALL_RETRY`` s later, and so on within its
    timeout, for ``outage_patience`` s at most: the reads wait one after another on one thread, so
    once the registry has not answered that long (over this read and those before it) a read raises
    the registry's error at its first record the registry does not give, without waiting. The
    outage carries over only to the read right after one that gave up, if it starts within
    ``outage_patience`` s of the give-up; any other read waits an outage out afresh. Not thread-safe: one read at a time."""

    def __init__(self, readers: Callable[[], object], topic: str, decode: Callable[[bytes], dict],
                 timeout: float = RECALL_TIMEOUT, outage_patience: float = OUTAGE_PATIENCE):
        self.readers = readers
        self.topic = topic
        self.decode = decode
        self.timeout = timeout
        self.outage_patience = outage_patience
        # when the Schema Registry stopped answering, as the reads found it (``time.monotonic``), or
        # None: it answers (kept from one read to the next)
        self.registry_down_since: Optional[float] = None
        # whether the last record looked at was decoded without a registry error: only that ends an outage
        self.registry_answered = False
        # when the last read gave up on the registry (``time.monotonic``), or None: it did not. An outage
        # carries over only to a read that starts within ``outage_patience`` s of that, so a blip long
        # after is waited out again
        self.gave_up_at: Optional[float] = None

    def read(self, jobs: Set[str], partition: int, found: Callable[[dict], None],
             stopped: Callable[[], bool] = lambda: False) -> Dict[str, int]:
        """Reads the records of ``jobs`` on ``partition``, from its beginning to its end as of now
        (under read_committed, the last stable offset), once for all of them, handing every whole
        version to ``found`` in the topic's order; how many versions it found of each job. Stops
        early, with what it found so far, once ``stopped()`` or after the timeout (one for the whole
        read). A Schema Registry outage is waited out: the record is sought back to and read again
        every ``RECALL_RETRY`` s (warned of once an outage), the records before it not handed over
        again; but once the registry has not answered for ``outage_patience`` s, over this read and
        those before it, the read raises its ``RegistryError`` at once. An outage is carried over
        from the read before only if that one gave up less than ``outage_patience`` s ago."""
        from confluent_kafka import OFFSET_BEGINNING, KafkaError, TopicPartition

        jobs = set(jobs)
        versions = {job: 0 for job in jobs}
        if not jobs:
            return versions
        carried_over = self.gave_up_at is not None and time.monotonic() - self.gave_up_at < self.outage_patience
        self.gave_up_at = None
        if not carried_over:
            self.registry_down_since = None
        named = _jobs_named(jobs)  # for the log lines
        where = TopicPartition(self.topic, partition)
        assemblers = {name: ModelAssembler() for name in jobs}
        # the offset of the record sought back to after a registry outage, until it is read again:
        # the read's position then (librdkafka's position after a seek is the old one until 1.9, none
        # since; neither is where the next record comes from)
        again: Optional[int] = None
        outage = False
        consumer = self.readers()
        try:
            low, end = consumer.get_watermark_offsets(where, timeout=10)
            if end <= low:
                return versions  # nothing left on it (deleted by the topic's retention, say)
            consumer.assign([TopicPartition(self.topic, partition, OFFSET_BEGINNING)])
            started = came = time.monotonic()
            while not stopped():
                position = consumer.position([where])[0].offset  # -1001 until a record is read
                if again is not None:
                    position = again
                if position >= end:
                    break
                if time.monotonic() - started > self.timeout:
                    log.warning("reading the models of %s again from %s-%d took over %.0f s: stopped at "
                                "offset %d of %d", named, self.topic, partition, self.timeout, position, end)
                    break
                message = consumer.poll(RECALL_POLL)
                if message is None:
                    quiet = time.monotonic() - came
                    if quiet >= QUIET_END or (position >= end - 1 and quiet >= MARKER_WAIT):
                        if self._at_end(consumer, where, end, named, again):
                            break
                        came = time.monotonic()  # asked again after the next quiet spell
                    continue
                came = time.monotonic()
                error = message.error()
                if error is not None:
                    if error.code() == KafkaError._PARTITION_EOF:
                        if again is not None:
                            continue  # told before the seek back: the record sought back to comes first
                        break  # the end for read_committed, past any marker
                    log.debug("reading the models of %s again: %s", named, error)
                    continue
                if again is not None and message.offset() < again:
                    continue  # read before the seek back, and handed over then
                if message.offset() >= end:
                    break  # written since the read started: the cache's consumer reads it
                try:
                    whole = self._whole_version(assemblers, message)
                except RegistryError as e:
                    now = time.monotonic()
                    if self.registry_down_since is None:
                        self.registry_down_since = now
                    elif now - self.registry_down_since >= self.outage_patience:
                        # down for long: the reads queued behind this one are not held up
                        self.gave_up_at = now
                        raise RegistryError("the Schema Registry has not answered for %.1f s: %s" % (
                            now - self.registry_down_since, e), e.status, e.error_code) from e
                    if not outage:
                        log.warning("reading the models of %s again: the Schema Registry does not answer "
                                    "(%s); reading %s-%d@%d again every %.0f s, for %.0f s at most", named, e,
                                    message.topic(), message.partition(), message.offset(), RECALL_RETRY,
                                    min(self.timeout, self.outage_patience))
                        outage = True
                    again = message.offset()
                    consumer.seek(TopicPartition(self.topic, partition, again))
                    time.sleep(max(0.0, min(RECALL_RETRY, started + self.timeout - time.monotonic())))
                    came = time.monotonic()  # the wait is no quiet spell of the partition
                    continue
                if self.registry_answered:
                    self.registry_down_since = None  # not for another job's record, never decoded
                if again is not None:
                    again = None
                    if outage:
                        log.info("reading the models of %s again: the Schema Registry answers again", named)
                        outage = False
                if whole is not None:
                    found(whole)
                    versions[whole["job"]] += 1
        finally:
            try:
                consumer.close()
            except Exception as e:  # noqa: BLE001
                log.debug("closing the consumer of a read again: %s", e)
        return versions

    def _at_end(self, consumer, where, end: int, named: str, again: Optional[int] = None) -> bool:
        """After a quiet spell, whether the read is at ``end``, asked again: its position (``again``
        while a record sought back to is not read again) reached it, or nothing before it is left
        (the partition's low watermark at or past it). Not if asking fails (the timeout bounds the
        read)."""
        try:
            low, _ = consumer.get_watermark_offsets(where, timeout=10)
            position = consumer.position([where])[0].offset if again is None else again
        except Exception as e:  # noqa: BLE001 - e.g. the cluster unreachable for a moment
            log.debug("reading the models of %s again: asking where it stands failed: %s", named, e)
            return False
        if position >= end or low >= end:
            return True
        log.debug("reading the models of %s again: quiet at offset %d of %d, reading on", named, position, end)
        return False

    def _whole_version(self, assemblers: Dict[str, ModelAssembler], message) -> Optional[dict]:
        """The whole version ``message`` completes, if it is one of a job's of ``assemblers`` (by
        its key: the job, or ``job#i``) and usable, put together by that job's assembler; else
        None."""
        self.registry_answered = False
        raw_key, value = message.key(), message.value()
        if raw_key is None or value is None:
            return None
        key = raw_key.decode("utf-8", "replace")
        job = key.split(SLICE_SEPARATOR, 1)[0]  # a job's name has no slice separator
        assembler = assemblers.get(job)
        if assembler is None:
            return None  # another job's: not even decoded
        try:
            model = self.decode(value)  # a RegistryError is no fault of the record's: raised to ``read``
        except (DecodeError, SchemaNotFound) as e:
            self.registry_answered = True  # (or was not needed): the record is what is wrong
            problem = str(e)
        else:
            self.registry_answered = True
            problem = ModelCache._problem(key, model)
            if problem is None and model["job"] != job:
                problem = "a record of job %s under its key" % model["job"]
            if problem is None:
                outcome, whole = assembler.offer(model)
                if outcome == "pending":
                    return None
                if outcome == "refused":
                    problem = whole
                else:
                    problem = whole_problem(whole)
                    if problem is None:
                        return whole
        log.info("reading job %s's model again: skipping %s-%d@%d: %s", job, message.topic(), message.partition(),
                 message.offset(), problem)
        return None
