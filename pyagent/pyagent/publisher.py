"""Publishes the agent's records in Kafka transactions on a thread of its own, putting everything
that waits into one transaction (a group commit), as the Java ``TransactionPublisher`` does.

A task's records (its result slices and timing) are always in one transaction; ``publish`` queues
them and returns, so the next task computes while they commit; ``publish_and_commit`` (the last
task of an assignment, its consumed offset with it) returns once it and everything before it
committed. A failed transaction drops what queued behind it and its failure is raised once, by the
next call on the task thread, so no offset is committed past a lost result. The queue is bounded
(64 MiB), and so is a transaction (8 MiB, at least one output).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Tuple

log = logging.getLogger(__name__)

DEFAULT_MAX_QUEUED_BYTES = 64 << 20
DEFAULT_MAX_TRANSACTION_BYTES = 8 << 20
COMMIT_ATTEMPTS = 3

# (topic, partition or None, key, value)
Record = Tuple[str, Optional[int], Optional[str], bytes]


class FatalKafkaError(RuntimeError):
    """The producer cannot go on (fenced by an agent with the same worker id, refused, broken).
    ``code`` is librdkafka's error code, when there is one."""

    def __init__(self, message: str, code: Optional[int] = None):
        super().__init__(message)
        self.code = code


class ProducerUnusableError(FatalKafkaError):
    """The transactional producer can take no more transactions: librdkafka raised a fatal error
    on it, or it could not abort after a failure. Only new clients go on. As the Java agents'
    ``ProducerUnusableException``."""


# librdkafka's codes for what new clients cannot change: no permission, a broker too old, and a
# consumer fenced as a static group member (another instance with the same id, for sure)
_PERMANENT = ("FENCED_INSTANCE_ID", "TOPIC_AUTHORIZATION_FAILED", "GROUP_AUTHORIZATION_FAILED",
              "CLUSTER_AUTHORIZATION_FAILED", "TRANSACTIONAL_ID_AUTHORIZATION_FAILED",
              "SASL_AUTHENTICATION_FAILED", "_AUTHENTICATION", "UNSUPPORTED_VERSION",
              "UNSUPPORTED_SASL_MECHANISM", "ILLEGAL_SASL_STATE")
# the producer's epoch is gone: fenced, an old epoch, or aborted while the process was paused
_EPOCH_LOST = ("_FENCED", "PRODUCER_FENCED", "INVALID_PRODUCER_EPOCH", "INVALID_TXN_STATE")


def _codes(names) -> set:
    from confluent_kafka import KafkaError

    return {getattr(KafkaError, name) for name in names if hasattr(KafkaError, name)}


def new_clients_heal(error: Optional[BaseException]) -> bool:
    """Whether new clients under the same ids heal the producer that failed with ``error``, so the
    agent may start over rather than stop for good: its epoch is gone (the coordinator aborted its
    transaction while the process was paused past ``transaction.timeout.ms`` and bumped the epoch,
    or a newer producer of its transactional id fenced it: another instance reads the same, so the
    caller bounds how often it starts over), or it is unusable for another reason (a fatal error,
    an abort that failed). Never for no permission, a broker too old, or a consumer fenced as a
    static group member. As the Java agents' ``KafkaErrors.isHealedByNewClients``."""
    if not isinstance(error, FatalKafkaError) or error.code in _codes(_PERMANENT):
        return False
    return isinstance(error, ProducerUnusableError) or error.code in _codes(_EPOCH_LOST)


@dataclass
class Output:
    records: List[Record]
    offsets: list = field(default_factory=list)
    group: object = None
    on_committed: Optional[Callable[[float], None]] = None

    @property
    def size(self) -> int:
        return sum(len(r[3]) for r in self.records)


class TransactionPublisher:
    def __init__(self, producer, metrics=None, max_queued_bytes: int = DEFAULT_MAX_QUEUED_BYTES,
                 max_transaction_bytes: int = DEFAULT_MAX_TRANSACTION_BYTES, timeout: float = 30.0,
                 name: str = "ata-agent-commit"):
        self.producer = producer
        self.metrics = metrics
        self.max_queued_bytes = max_queued_bytes
        self.max_transaction_bytes = max_transaction_bytes
        self.timeout = timeout
        self.cond = threading.Condition()
        self.queue: deque = deque()
        self.queued_bytes = 0
        self.committing = False
        self.failure: Optional[BaseException] = None
        self.closed = False
        self.thread = threading.Thread(target=self._run, name=name, daemon=True)
        self.started = False

    def publish(self, records: List[Record], on_committed=None) -> None:
        self._enqueue(Output(list(records), on_committed=on_committed))

    def publish_and_commit(self, records: List[Record], offsets: list, group, on_committed=None) -> None:
        self._enqueue(Output(list(records), list(offsets), group if offsets else None, on_committed))
        self.wait()

    def wait(self) -> None:
        """Waits until everything queued committed; raises a failure not raised before (once)."""
        with self.cond:
            while self.failure is None and (self.committing or self.queue):
                self.cond.wait()
            self._raise_failure()

    def busy(self) -> bool:
        with self.cond:
            return self.committing or bool(self.queue)

    def _enqueue(self, output: Output) -> None:
        with self.cond:
            while (self.failure is None and not self.closed and self.queue
                   and self.queued_bytes + output.size > self.max_queued_bytes):
                self.cond.wait()
            self._raise_failure()
            if self.closed:
                raise RuntimeError("the publisher is closed")
            if not self.started:
                self.started = True
                self.thread.start()
            self.queue.append(output)
            self.queued_bytes += output.size
            self.cond.notify_all()

    def _raise_failure(self) -> None:
        failure = self.failure
        if failure is not None:
            self.failure = None
            raise failure

    def _run(self) -> None:
        while True:
            with self.cond:
                while not self.queue and not self.closed:
                    self.cond.wait()
                if not self.queue:
                    return
                batch: List[Output] = []
                size = 0
                while self.queue and (not batch or size + self.queue[0].size <= self.max_transaction_bytes):
                    nxt = self.queue.popleft()
                    batch.append(nxt)
                    size += nxt.size
                self.queued_bytes -= size
                self.committing = True
                self.cond.notify_all()
            failed = None
            try:
                self._commit(batch)
            except BaseException as e:  # noqa: BLE001 - handed to the task thread
                failed = e
            with self.cond:
                self.committing = False
                if failed is not None:
                    self.failure = failed
                    self.queue.clear()
                    self.queued_bytes = 0
                self.cond.notify_all()
            if failed is None:
                now = time.monotonic()
                for output in batch:
                    if output.on_committed is not None:
                        try:
                            output.on_committed(now)
                        except Exception as e:  # noqa: BLE001
                            log.debug("commit listener: %s", e)

    def _commit(self, batch: List[Output]) -> None:
        from confluent_kafka import KafkaException

        producer = self.producer
        try:
            producer.begin_transaction()
        except KafkaException as e:
            raise self._classify(e) from e
        try:
            for output in batch:
                for topic, partition, key, value in output.records:
                    self._produce(topic, partition, key, value)
                if output.offsets:
                    producer.send_offsets_to_transaction(output.offsets, output.group, self.timeout)
        except BaseException as e:
            self._abort(e)
            raise self._classify(e) if isinstance(e, KafkaException) else e
        for attempt in range(1, COMMIT_ATTEMPTS + 1):
            try:
                producer.commit_transaction(self.timeout)
                break
            except KafkaException as e:
                error = e.args[0]
                if error.retriable() and attempt < COMMIT_ATTEMPTS:
                    log.warning("a transaction commit was cut short (attempt %d of %d), trying again: %s",
                                attempt, COMMIT_ATTEMPTS, error)
                    continue
                if error.txn_requires_abort():
                    self._abort(e)
                raise self._classify(e) from e
        if self.metrics is not None:
            self.metrics.transaction("committed")

    def _produce(self, topic, partition, key, value) -> None:
        kwargs = {"key": key, "value": value}
        if partition is not None:
            kwargs["partition"] = partition
        while True:
            try:
                self.producer.produce(topic, **kwargs)
                return
            except BufferError:
                self.producer.poll(0.05)  # the local queue is full: let it drain

    def _abort(self, cause: BaseException) -> None:
        """Aborts the open transaction after ``cause``; a producer that cannot is unusable."""
        from confluent_kafka import KafkaException

        try:
            self.producer.abort_transaction(self.timeout)
            if self.metrics is not None:
                self.metrics.transaction("aborted")
        except Exception as e:  # noqa: BLE001
            log.error("cannot abort the transaction after %s: %s", cause, e)
            code = e.args[0].code() if isinstance(e, KafkaException) and e.args else None
            raise ProducerUnusableError("transactional producer is unusable: cannot abort after %s: %s"
                                        % (cause, e), code) from e

    @staticmethod
    def _classify(e) -> BaseException:
        error = e.args[0] if e.args else None
        if error is not None and hasattr(error, "fatal") and error.fatal():
            return ProducerUnusableError("the transactional producer cannot go on: %s" % error, error.code())
        return e

    def close(self, timeout: float = 5.0) -> None:
        with self.cond:
            self.closed = True
            self.cond.notify_all()
        if self.started:
            self.thread.join(timeout)
            if self.thread.is_alive():
                log.warning("publishing did not finish within %.0f s", timeout)
        with self.cond:
            if self.failure is not None:
                log.warning("the last transaction failed: %s", self.failure)
                self.failure = None
