"""The worker agent: joins the fleet through the consumer group on ``tasks``, runs the assignments
it receives and publishes each task's result and timing, as docs/streaming.md describes and the
Java ``WorkerAgent`` and ``AssignmentRunner`` do.

Threads: the task thread (the caller of :meth:`WorkerAgent.run`) owns the task consumer and runs
tasks one after another; the publisher's thread commits their transactions meanwhile; the model
cache's thread follows ``model``; a heartbeat thread sends ``WorkerHeartbeat``\\ s.

One record of ``tasks``:

1. A value that does not decode, or is out of range (no job, round < 1, model version outside 0
   to 2^31 - 1, no tasks, a blank task id) is dead-lettered with the offset.
2. If the job's newest model is past the assignment's version, its round is over: skipped.
3. A version more than 1000 ahead of the job's newest model can never come: dead-lettered at once
   (unless the job's model was forgotten, see 4).
4. A version that has not come yet is parked (:mod:`.parking`), never waited for: the agent reads
   on, and runs it as soon as the version comes (polling in short slices while anything is
   parked), or skips it as stale if the model passed it. No offset of its partition is committed
   past it. One at most ``PARK_AHEAD`` past the job's newest (a round planned ahead, as pipelined
   allocation sends it) stays while its job's model moves; once it has waited
   ``--stalled-job-wait`` (10 min) and the job's model has been quiet as long, it is dead-lettered
   (its job looks stopped): the broker's plan for that round is then lost, and a round that does
   open later gets the tasks again through the trainer's overdue/backup-task path. Further ahead,
   or of a job without a model, it waits ``--model-wait`` (up to 30 s while its slices arrive) and
   is then dead-lettered. A job without a model may be one whose model the cache forgot (quiet for
   ``--model-retention``, a day): the agent asks the cache to read it again, and the assignment,
   however far ahead it looks, is parked and waits as for a version arriving in slices meanwhile.
   While a read of it that found nothing cools down, no read starts: the assignment, however far
   ahead, waits ``--model-wait`` as of a job without a model.
5. The tasks run in order; each publishes its result (sliced when larger than a record) and its
   timing in one transaction, the last one with the assignment's offset. A round that closes
   before a task stops the assignment; one that closes while a task computes (between
   micro-batches) or is stretched makes the task CANCELLED, with the time worked.

Results carry this agent's ``worker_id`` and the assignment's as ``assigned_worker_id``. On
SIGTERM the running task finishes and is published, the rest of its assignment is left for the
partition's next owner (so are the parked assignments), the consumer leaves the group and a
LEAVING heartbeat is the last record.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from .codec import Codec, DecodeError
from .models import DEFAULT_RETENTION, MAX_VERSION, ModelCache
from .metrics import AgentMetrics
from .pacing import TaskPacer
from .parking import Parked, ParkedAssignments
from .publisher import FatalKafkaError, TransactionPublisher
from .registry import RegistryClient
from .topics import DEFAULT_CHUNK_BYTES, Topics, chunk_count, dead_letter, java_blank, job_name_problem

log = logging.getLogger(__name__)

MAX_VERSIONS_AHEAD = 1000
# How far ahead of its job's newest model a parked assignment waits for its version while the
# job's model moves: one version for a round planned ahead, one more because the model cache reads
# the trainer's close on a path of its own, which the broker's plan for the next round sometimes
# beats. Once it has waited ``stalled_job_wait`` and the job's model has been quiet as long, it is
# dead-lettered (its job looks stopped). Further ahead, it waits ``model_wait``. As the Java
# agents' ``AssignmentRunner.PARK_AHEAD``.
PARK_AHEAD = 2
MAX_MODEL_WAIT = 30.0
POLL_TIMEOUT = 0.2
# while an assignment is parked: how soon its version's arrival is seen (the Python client cannot
# wake a poll from another thread, as the Java agent's model cache does)
PARKED_POLL_TIMEOUT = 0.01


@dataclass
class AgentConfig:
    bootstrap_servers: str
    schema_registry_url: str
    worker_id: str = ""
    topic_prefix: str = "ata."
    group_id: str = ""
    host: str = ""
    heartbeat_interval: float = 1.0
    model_wait: float = 5.0
    # how long a parked round planned ahead waits while its job's model is quiet: far longer than a
    # round, so a live job's is given up only under a round slower than that; short enough that a stopped job's does not hold its
    # partition's committed offset for good
    stalled_job_wait: float = 600.0
    # how long a job's model is kept while nothing of it is read (then it is forgotten, and read
    # again if the job comes back): no shorter than the stalled-job wait, so that a round planned
    # ahead of a quiet job is given up before its job's model is forgotten
    model_retention: float = DEFAULT_RETENTION
    retry_backoff: float = 1.0
    seed: int = 0
    chunk_bytes: int = DEFAULT_CHUNK_BYTES
    client_properties: Dict[str, str] = field(default_factory=dict)
    registry_basic_auth: Optional[str] = None

    def __post_init__(self):
        if self.model_retention < self.stalled_job_wait:
            raise ValueError("the model retention (%g s) must be at least the stalled-job wait (%g s)"
                             % (self.model_retention, self.stalled_job_wait))
        self.host = self.host or socket.gethostname()
        self.worker_id = self.worker_id or default_worker_id(self.host)
        self.group_id = self.group_id or Topics(self.topic_prefix).worker_group()


def default_worker_id(host: Optional[str] = None) -> str:
    """A worker's id when none is given: ``HOSTNAME-PID``."""
    import os

    return "%s-%d" % (host or socket.gethostname(), os.getpid())


class Stopped(Exception):
    pass


class OwnedPartitions:
    """The task partitions the consumer owns. ``on_change`` after every rebalance (the broker
    writes into the partitions a heartbeat lists); ``on_gone`` first gets the (topic, partition)
    pairs revoked or lost, so the agent drops what it parked of them."""

    def __init__(self, topic: str, on_change, on_gone=None):
        self.topic = topic
        self.on_change = on_change
        self.on_gone = on_gone
        self.partitions = set()
        self.lock = threading.Lock()

    def snapshot(self) -> List[int]:
        with self.lock:
            return sorted(self.partitions)

    def assigned(self, consumer, partitions):
        with self.lock:
            self.partitions.update(tp.partition for tp in partitions if tp.topic == self.topic)
        self._changed("assigned", partitions)

    def revoked(self, consumer, partitions):
        ours = [(tp.topic, tp.partition) for tp in partitions if tp.topic == self.topic]
        with self.lock:
            self.partitions.difference_update(p for _, p in ours)
        if ours and self.on_gone is not None:
            self.on_gone(ours)
        self._changed("revoked", partitions)

    def _changed(self, what, partitions):
        log.info("task partitions %s: %s; now owning %s", what, [tp.partition for tp in partitions], self.snapshot())
        try:
            self.on_change()
        except Exception as e:  # noqa: BLE001 - the periodic heartbeat follows shortly
            log.warning("announcing owned partitions failed: %s", e)


class HeartbeatSender:
    """ALIVE heartbeats every interval and after every rebalance; one LEAVING at a clean stop."""

    def __init__(self, producer, codec: Codec, topic: str, worker_id: str, host: str, device, partitions):
        self.producer = producer
        self.codec = codec
        self.topic = topic
        self.worker_id = worker_id
        self.host = host
        self.device = device
        self.partitions = partitions
        self.silenced = threading.Event()
        self.lock = threading.Lock()
        self.thread = None

    def start(self, interval: float) -> None:
        def loop():
            while not self.silenced.is_set():
                try:
                    self.send_alive()
                except Exception as e:  # noqa: BLE001
                    log.warning("heartbeat failed: %s", e)
                self.silenced.wait(interval)

        self.thread = threading.Thread(target=loop, name="ata-heartbeat-" + self.worker_id, daemon=True)
        self.thread.start()

    def heartbeat(self, status: str) -> dict:
        kind, name, memory, threads = self.device()
        return {
            "worker_id": self.worker_id, "host": self.host, "device": kind, "device_name": name[:1024],
            "device_memory_bytes": int(memory), "threads": int(threads), "capacity": 1,
            "partitions": self.partitions() if status == "ALIVE" else [],
            "task_consumer": "",  # a consumer of its own: its partitions are not shared
            "status": status, "timestamp_ms": int(time.time() * 1000),
        }

    def _send(self, status: str) -> None:
        value = self.codec.encode(self.topic, "WorkerHeartbeat", self.heartbeat(status))

        def delivered(err, msg):
            if err is not None:
                log.warning("heartbeat %s not sent: %s", status, err)

        self.producer.produce(self.topic, key=self.worker_id, value=value, on_delivery=delivered)
        self.producer.poll(0)

    def send_alive(self) -> None:
        with self.lock:
            if not self.silenced.is_set():
                self._send("ALIVE")

    def silence(self) -> None:
        self.silenced.set()

    def send_leaving(self) -> None:
        self.silence()
        with self.lock:
            self._send("LEAVING")
        self.producer.flush(10)


class WorkerAgent:
    def __init__(self, config: AgentConfig, workload, pacer: Optional[TaskPacer] = None,
                 metrics: Optional[AgentMetrics] = None, codec: Optional[Codec] = None):
        from confluent_kafka import Consumer, Producer

        self.config = config
        self.topics = Topics(config.topic_prefix)
        self.workload = workload
        self.pacer = pacer or TaskPacer()
        self.metrics = metrics or AgentMetrics(config.worker_id)
        self.codec = codec or Codec(RegistryClient(config.schema_registry_url, config.registry_basic_auth))
        self.stop_requested = threading.Event()
        self.stopped = threading.Event()
        self.failure: Optional[BaseException] = None
        self.payload_prefix = "%s-%d-" % (config.worker_id, int(time.time() * 1000))
        self.payloads = 0
        self._partition_counts: Dict[str, tuple] = {}
        user = dict(config.client_properties)
        base = dict(user, **{"bootstrap.servers": config.bootstrap_servers})
        tid = self.topics.agent_transactional_id(config.worker_id)
        self.consumer = Consumer(dict(base, **{
            "client.id": "ata-agent-%s-tasks" % config.worker_id,
            "group.id": config.group_id,
            "isolation.level": "read_committed",
            "enable.auto.commit": False,
            "enable.auto.offset.store": False,
            "auto.offset.reset": "earliest",
            "allow.auto.create.topics": False,
            "partition.assignment.strategy": user.get("partition.assignment.strategy", "cooperative-sticky"),
            "session.timeout.ms": int(user.get("session.timeout.ms", 10000)),
            "heartbeat.interval.ms": int(user.get("heartbeat.interval.ms", 2000)),
            "topic.metadata.refresh.interval.ms": int(user.get("topic.metadata.refresh.interval.ms", 10000)),
        }))
        self.producer = Producer(dict(base, **{
            "client.id": "ata-agent-%s-results" % config.worker_id,
            "transactional.id": tid,
            "enable.idempotence": True,
            "acks": "all",
            "linger.ms": int(user.get("linger.ms", 0)),
            "transaction.timeout.ms": int(user.get("transaction.timeout.ms", 10000)),
        }))
        plain = {k: v for k, v in base.items() if k != "transactional.id"}
        self.plain = Producer(dict(plain, **{
            "client.id": "ata-agent-%s-heartbeats" % config.worker_id,
            "enable.idempotence": True, "acks": "all", "linger.ms": 0,
        }))
        model_conf = {k: v for k, v in base.items() if k not in ("group.id", "group.instance.id",
                                                                 "partition.assignment.strategy")}
        model_conf.update({
            "client.id": "ata-agent-%s-model" % config.worker_id,
            "group.id": "ata-agent-%s-model-unused" % config.worker_id,  # assign() only: never joins
            "isolation.level": "read_committed", "enable.auto.commit": False,
            "enable.auto.offset.store": False, "auto.offset.reset": "earliest",
            "allow.auto.create.topics": False,
        })

        def model_reader():
            # one read again of a model partition, for the forgotten jobs waiting for it: the cache's
            # consumer's settings, told when it reaches the partition's end (past a transaction's
            # marker, which no record takes)
            return Consumer(dict(model_conf, **{"client.id": "ata-agent-%s-model-recall" % config.worker_id,
                                                "enable.partition.eof": True}))

        self.models = ModelCache(
            Consumer(model_conf),
            self.topics.model,
            lambda value: self.codec.decode("ModelVersion", value),
            self._model_dead_letter,
            readers=model_reader)
        self.models.set_retention(config.model_retention)
        self.parked = ParkedAssignments()
        self.owned = OwnedPartitions(self.topics.tasks, self._announce, self._drop_parked)
        self.heartbeats = HeartbeatSender(self.plain, self.codec, self.topics.workers, config.worker_id,
                                          config.host, self._device, self.owned.snapshot)
        self.publisher = TransactionPublisher(self.producer, self.metrics, name="ata-agent-%s-commit" % config.worker_id)
        self.joined = False

    # ---- lifecycle ----

    def request_stop(self, *_args) -> None:
        """Clean stop: the running task finishes and is published, then the agent leaves."""
        self.stop_requested.set()

    def ready(self) -> bool:
        """Joined, caught up with the model topic and owning a task partition (else idle)."""
        return (self.joined and not self.stopped.is_set() and self.models.caught_up
                and bool(self.owned.snapshot()))

    def run(self) -> int:
        try:
            self.producer.init_transactions(30)
            self.heartbeats.start(self.config.heartbeat_interval)
            self.models.start("ata-model-cache-" + self.config.worker_id)
            self.consumer.subscribe([self.topics.tasks], on_assign=self.owned.assigned,
                                    on_revoke=self.owned.revoked, on_lost=self.owned.revoked)
            self.joined = True
            log.info("agent started: worker %s on %s (group %s, topics %s*, %s, time %s)", self.config.worker_id,
                     self.config.bootstrap_servers, self.config.group_id, self.config.topic_prefix,
                     self.workload.describe(), self.pacer.describe())
            while not self.stop_requested.is_set():
                self.poll_once()
        except BaseException as e:  # noqa: BLE001 - logged, and the exit code says so
            if not self.stop_requested.is_set() or isinstance(e, FatalKafkaError):
                self.failure = e
                log.error("agent %s failed: %s", self.config.worker_id, e, exc_info=not isinstance(e, FatalKafkaError))
        finally:
            self.shutdown(say_goodbye=not isinstance(self.failure, FatalKafkaError))
        return 1 if self.failure is not None else 0

    def shutdown(self, say_goodbye: bool = True) -> None:
        self.heartbeats.silence()
        dropped = self.parked.clear()  # not run, not committed: the partitions' next owners read them
        if dropped:
            log.info("%d parked assignment(s) left for the partitions' next owners", dropped)
        self.publisher.close(10)
        try:
            self.consumer.close()  # leaves the group: the partitions move at once
        except Exception as e:  # noqa: BLE001
            log.debug("closing the task consumer: %s", e)
        self.models.close()
        try:
            self.producer.flush(5)
        except Exception as e:  # noqa: BLE001
            log.debug("flushing the results producer: %s", e)
        if say_goodbye:
            try:
                self.heartbeats.send_leaving()
            except Exception as e:  # noqa: BLE001
                log.warning("LEAVING heartbeat not sent: %s", e)
        self.plain.flush(5)
        self.stopped.set()
        log.info("agent %s stopped: tasks run %d, dead letters %d", self.config.worker_id,
                 self.metrics.value("ata_agent_tasks_total", outcome="completed"), self.metrics.dead_letters())

    # ---- the task loop ----

    def poll_once(self) -> None:
        """One poll of the tasks topic and the handling of what came, then of the parked
        assignments whose model version has come."""
        if self._poll_tasks():
            self.run_parked()

    def _poll_tasks(self) -> bool:
        """Polls and handles one record; False if it failed (given back, after a pause)."""
        from confluent_kafka import KafkaError, KafkaException, TopicPartition

        try:
            message = self.consumer.poll(PARKED_POLL_TIMEOUT if len(self.parked) else POLL_TIMEOUT)
        except KafkaException as e:
            if e.args[0].fatal():
                raise FatalKafkaError(str(e), e.args[0].code()) from e
            log.warning("polling %s failed, retrying in %.1f s: %s", self.topics.tasks, self.config.retry_backoff, e)
            time.sleep(self.config.retry_backoff)
            return False
        if message is None:
            return True
        if message.error() is not None:
            error = message.error()
            if error.fatal():
                raise FatalKafkaError(str(error), error.code())
            if error.code() != KafkaError._PARTITION_EOF:
                log.warning("tasks topic: %s", error)
            return True
        read_at = time.monotonic()
        if self._attempt(message, lambda: self.handle(message, read_at)):
            return True
        if message.partition() in self.owned.snapshot():
            try:
                self.consumer.seek(TopicPartition(message.topic(), message.partition(), message.offset()))
            except Exception as seek_error:  # noqa: BLE001
                log.warning("cannot give back %s-%d@%d: %s", message.topic(), message.partition(),
                            message.offset(), seek_error)
        time.sleep(self.config.retry_backoff)
        return False

    def run_parked(self) -> None:
        """Runs the parked assignments whose model version has come, the oldest of each partition
        first. One that fails stays parked, to run again after the pause (or, if its partition goes
        meanwhile, to be dropped: its next owner reads it again)."""
        for p in self.parked.all():
            if self.stop_requested.is_set():
                return  # not committed: delivered again to whoever owns the partition next
            # the wait for the round's model is not the agent's overhead: timed from here
            started = time.monotonic()
            if self.model_came(p.assignment):
                step = (lambda p=p: self.run_parked_one(p, started))
            elif self.overdue(p.assignment, started - p.parked_at):
                step = (lambda p=p: self.give_up(p, started))
            else:
                continue
            if not self._attempt(p.message, step):
                if not self.stop_requested.is_set():
                    time.sleep(self.config.retry_backoff)
                return

    def _attempt(self, message, step) -> bool:
        """Runs ``step`` on ``message``, its effects in the agent's transactions; whether it went
        through (a stop request counts as through: nothing is given back then)."""
        try:
            step()
            self.publisher.wait()
            return True
        except FatalKafkaError:
            raise
        except Stopped:
            return True
        except Exception as e:  # noqa: BLE001 - transient: the caller runs the assignment again
            try:
                self.publisher.wait()
            except FatalKafkaError:
                raise
            except Exception as more:  # noqa: BLE001
                log.debug("and the publisher: %s", more)
            if self.stop_requested.is_set():
                return True
            self.metrics.retry()
            log.warning("assignment %s-%d@%d failed, running it again in %.1f s: %s", message.topic(),
                        message.partition(), message.offset(), self.config.retry_backoff, e)
            return False

    def handle(self, message, read_at: float) -> str:
        """Runs one assignment, or parks it; its outcome (as the Java ``AssignmentRunner.Outcome``)."""
        try:
            a = self.codec.decode("TaskAssignment", message.value())
        except DecodeError as e:
            return self._dead_letter(message, "task assignment: %s" % e, e)
        problem = assignment_problem(a)
        if problem:
            return self._dead_letter(message, problem, None)
        job = a["job"]
        if self._round_closed(a):
            return self._skip_stale(message, a)
        if not self.models.await_caught_up(self.config.model_wait) and self.stop_requested.is_set():
            raise Stopped()
        # a job back after its model was forgotten: it is read again, and what is known of it until
        # then says nothing of what can come (nor while a read that found nothing cools down)
        recalled = self.models.recall(job)
        never = None if recalled or self.models.forgot(job) else self._never_comes(a)
        if never:
            return self._dead_letter(message, never, None)
        if not self.model_came(a):
            if self.parked.park(Parked(message, a, time.monotonic())):
                self.metrics.parked()
            log.debug("parking job %s round %d at %s-%d@%d until model version %d comes", job, a["round"],
                      message.topic(), message.partition(), message.offset(), a["model_version"])
            return "parked"
        return self._run_at(self.models.latest(job), message, a, read_at)

    def model_came(self, a: dict) -> bool:
        """Whether a parked assignment's model version has come (or been passed): it can run."""
        model = self.models.latest(a["job"])
        return model is not None and model["version"] >= a["model_version"]

    def overdue(self, a: dict, waited: float) -> bool:
        """Whether a parked assignment has waited ``waited`` seconds for its model version as long as
        it may: never once the version has come; at most ``PARK_AHEAD`` past its job's newest, until
        the job looks stopped (:meth:`_stalled`); otherwise ``model_wait``, or up to
        ``MAX_MODEL_WAIT`` while its slices arrive. Never while its job's forgotten model is read
        again (queued behind other reads, it may take longer than any of these; the read has a
        timeout of its own): once the read ended, the rules above, counted from the parking."""
        if self.model_came(a):
            return False
        if self.models.reading_again(a["job"]):
            return False
        if self._parkable(a):
            return self._stalled(a, waited)
        return waited >= self._longest_wait(a)

    def _stalled(self, a: dict, waited: float) -> bool:
        """A round planned ahead has waited ``stalled_job_wait`` and its job's model has been quiet
        (no version, no slice read) as long: the job looks stopped. A live job's model moves every
        round; one given up wrongly (a round slower than that) is backed up by the trainer."""
        limit = self.config.stalled_job_wait
        return waited >= limit and self.models.quiet_for(a["job"]) >= limit

    def give_up(self, parked: Parked, started: float) -> str:
        """Dead-letters a parked assignment that is :meth:`overdue`: its version did not come in time,
        or its job looks stopped (the reason then names how long it waited, until ``started``, when
        the loop found it overdue). If the version came since that check (the model cache's thread
        feeds it), it runs instead, as :meth:`run_parked_one` (timed from ``started``)."""
        a = parked.assignment
        # read once, before the check: if the version has not come, this is not past it either; and
        # both the rule and the reason below go by it (a quiet job's model may be forgotten meanwhile)
        newest = self.models.latest(a["job"])
        if self.model_came(a):
            return self.run_parked_one(parked, started)
        if newest is not None and parkable(a["model_version"], newest["version"]):
            return self._dead_letter(parked.message, (
                "job %s round %d: model version %d waited %.1f s while the job's model stayed at version %d "
                "(nothing of it read for %.1f s): its job looks stopped") % (
                a["job"], a["round"], a["model_version"], started - parked.parked_at, newest["version"],
                self.models.quiet_for(a["job"])), None)
        return self._dead_letter(parked.message, "job %s round %d: model version %d did not arrive within %.1f s%s" % (
            a["job"], a["round"], a["model_version"], self._longest_wait(a),
            " (the job has no model)" if newest is None else " (the newest is %d)" % newest["version"]), None)

    def _longest_wait(self, a: dict) -> float:
        if self.models.arriving(a["job"], a["model_version"]):
            return max(self.config.model_wait, MAX_MODEL_WAIT)
        return self.config.model_wait

    def run_parked_one(self, parked: Parked, started: float) -> str:
        """Handles an assignment :meth:`handle` parked, once its model version has come: runs it
        as any other, or skips it as stale if the model has already passed its version."""
        a = parked.assignment
        model = self.models.latest(a["job"])
        if model is None or model["version"] < a["model_version"]:
            raise RuntimeError("job %s round %d: model version %d has not come yet" % (
                a["job"], a["round"], a["model_version"]))
        if self.stop_requested.is_set():
            raise Stopped()
        return self._run_at(model, parked.message, a, started)

    def _run_at(self, model: dict, message, a: dict, read_at: float) -> str:
        """Runs the assignment's tasks at ``model``, the newest version (skips it if past its own)."""
        job, task_ids = a["job"], a["task_ids"]
        if model["version"] > a["model_version"]:
            return self._skip_stale(message, a)
        if a["worker_id"] != self.config.worker_id:
            log.info("running %d task(s) of job %s round %d computed for worker %s (its partition %d is ours now)",
                     len(task_ids), job, a["round"], a["worker_id"], message.partition())
        computed_ms = 0.0
        for i, task_id in enumerate(task_ids):
            if self.stop_requested.is_set():
                log.info("shutting down: job %s round %d left after %d of %d task(s), for the next owner to re-run",
                         job, a["round"], i, len(task_ids))
                raise Stopped()
            if self._round_closed(a):
                left = len(task_ids) - i
                self._mark_done(message)
                self.metrics.assignment("stopped_round_closed")
                self.metrics.task("not_run", left)
                log.info("job %s round %d closed: %d of %d task(s) not run", job, a["round"], left, len(task_ids))
                return "stopped_round_closed"
            try:
                self.workload.prepare(model)
            except Exception as e:  # noqa: BLE001 - the workload's reason goes into the letter
                return self._dead_letter(message, "task %s failed in %s: %s" % (task_id, self.workload.describe(), e), e)
            start_ms = int(time.time() * 1000)
            try:
                value, compute_ms, cancelled = self.pacer.run(
                    lambda stop: self.workload.compute(model, task_id, stop),
                    lambda seconds: self._closing(a, seconds), a["round"])
            except Exception as e:  # noqa: BLE001
                return self._dead_letter(message, "task %s failed in %s: %s" % (task_id, self.workload.describe(), e), e)
            end_ms = int(time.time() * 1000)
            computed_ms += compute_ms
            if cancelled:
                left = len(task_ids) - i - 1
                result = self._result(a, task_id, compute_ms, None, "CANCELLED")
                self._publish_task(message, result, timing_of(result, "CANCELLED", start_ms, end_ms), True, None)
                self.metrics.task("cancelled")
                self.metrics.assignment("stopped_round_closed")
                self.metrics.task("not_run", left)
                return "stopped_round_closed"
            last = i == len(task_ids) - 1
            result = self._result(a, task_id, compute_ms, value, "COMPLETED")
            spent = computed_ms
            self._publish_task(message, result, timing_of(result, "COMPLETED", start_ms, end_ms), last,
                               lambda now, spent=spent: self.metrics.overhead((now - read_at) * 1000 - spent))
            self.metrics.task("completed", compute_ms=compute_ms)
        self.metrics.assignment("completed")
        return "completed"

    # ---- helpers ----

    def _round_closed(self, a: dict) -> bool:
        model = self.models.latest(a["job"])
        return model is not None and model["version"] > a["model_version"]

    def _closing(self, a: dict, seconds: float) -> bool:
        if seconds <= 0:
            return self._round_closed(a)
        return self.models.await_version(a["job"], a["model_version"] + 1, seconds) is not None

    def _parkable(self, a: dict) -> bool:
        """Is the version at most ``PARK_AHEAD`` past the job's newest model, so it waits for it
        while the job's model moves (until :meth:`_stalled`)? Not of a job without a model."""
        model = self.models.latest(a["job"])
        return model is not None and parkable(a["model_version"], model["version"])

    def _never_comes(self, a: dict) -> Optional[str]:
        model = self.models.latest(a["job"])
        newest = -1 if model is None else model["version"]
        if a["model_version"] - newest <= MAX_VERSIONS_AHEAD:
            return None
        return "job %s round %d: model version %d can never come: it is more than %d versions ahead of %s" % (
            a["job"], a["round"], a["model_version"], MAX_VERSIONS_AHEAD,
            "a job without a model" if newest < 0 else "the job's newest, %d" % newest)

    def _skip_stale(self, message, a: dict) -> str:
        self._mark_done(message)
        self.metrics.assignment("skipped_stale")
        self.metrics.task("not_run", len(a["task_ids"]))
        log.info("job %s round %d already closed: skipping %d task(s)", a["job"], a["round"], len(a["task_ids"]))
        return "skipped_stale"

    def _result(self, a: dict, task_id: str, compute_ms: float, value, status: str) -> dict:
        gradient, encoding, loss, samples = value if value is not None else (b"", "FLOAT64_LE", 0.0, 0)
        return {
            "job": a["job"], "round": a["round"], "task_id": task_id, "worker_id": self.config.worker_id,
            "model_version": a["model_version"], "gradient": gradient, "encoding": encoding, "loss": loss,
            "samples": samples, "compute_ms": float(compute_ms), "chunk": 0, "chunks": 1, "payload_id": "",
            "assigned_worker_id": a["worker_id"], "status": status,
        }

    def _next_payload_id(self) -> str:
        self.payloads += 1
        return self.payload_prefix + str(self.payloads)

    def _partitions_of(self, topic: str) -> int:
        cached = self._partition_counts.get(topic)
        if cached is not None and time.monotonic() - cached[1] < 10:
            return cached[0]
        try:
            info = self.producer.list_topics(topic, timeout=5).topics.get(topic)
            count = len(info.partitions) if info is not None and info.error is None else 0
        except Exception:  # noqa: BLE001
            count = 0
        self._partition_counts[topic] = (count, time.monotonic())
        return count

    def _publish_task(self, message, result: dict, timing: dict, completes: bool, on_committed) -> None:
        """The task's result slices and timing in one transaction (with the offset if ``completes``)."""
        gradients = self.topics.gradients
        count = self._partitions_of(gradients)
        partition = message.partition() % count if count > 0 else None
        records = []
        for part in result_slices(result, self.config.chunk_bytes, self._next_payload_id):
            records.append((gradients, partition, part["job"], self.codec.encode(gradients, "TaskResult", part)))
        records.append((self.topics.timings, None, timing["worker_id"],
                        self.codec.encode(self.topics.timings, "TaskTiming", timing)))
        if completes:
            self._publish_and_mark_done(message, records, on_committed)
        else:
            self.publisher.publish(records, on_committed)

    def _publish_and_mark_done(self, message, records, on_committed=None) -> None:
        """Publishes ``records`` with the offset past the record (or, while an older record of its
        partition is parked, at that one) and waits for the commit."""
        from confluent_kafka import TopicPartition

        partition = (message.topic(), message.partition())
        offset = self.parked.commit_offset(partition, message.offset())
        offsets = [TopicPartition(message.topic(), message.partition(), offset)]
        self.publisher.publish_and_commit(records, offsets, self.consumer.consumer_group_metadata(), on_committed)
        self.parked.done(partition, message.offset())

    def _mark_done(self, message) -> None:
        self._publish_and_mark_done(message, [])

    def _dead_letter(self, message, reason: str, error) -> str:
        log.warning("dead-lettering %s-%d@%d: %s", message.topic(), message.partition(), message.offset(), reason)
        letter = dead_letter(message.topic(), message.partition(), message.offset(), message.key(), message.value(),
                             reason, error, int(time.time() * 1000))
        value = self.codec.encode(self.topics.dead_letters, "DeadLetter", letter)
        self._publish_and_mark_done(message, [(self.topics.dead_letters, None, letter["source_topic"], value)])
        self.metrics.dead_letter(message.topic())
        return "dead_lettered"

    def _model_dead_letter(self, message, reason: str, error) -> None:
        """Letters of the model topic: no offset to commit with them, so no transaction."""
        letter = dead_letter(message.topic(), message.partition(), message.offset(), message.key(), message.value(),
                             reason, error, int(time.time() * 1000))
        self.metrics.dead_letter(message.topic())

        def delivered(err, msg):
            if err is not None:
                log.warning("dead letter not sent: %s", err)

        self.plain.produce(self.topics.dead_letters, key=letter["source_topic"],
                           value=self.codec.encode(self.topics.dead_letters, "DeadLetter", letter), on_delivery=delivered)
        self.plain.poll(0)

    def _drop_parked(self, gone) -> None:
        """Partitions revoked or lost: what was parked of them is dropped, for their next owner."""
        dropped = self.parked.forget(gone)
        if dropped:
            log.info("dropped %d parked assignment(s) of %s: read again from the committed offset", dropped,
                     ["%s-%d" % p for p in gone])

    def _announce(self) -> None:
        self.heartbeats.send_alive()

    def _device(self):
        kind, name, memory, threads = self.workload.device()
        self.metrics.device(kind, name)
        return kind, name, memory, threads


def parkable(version: int, newest: int) -> bool:
    """The parking rule (the Java ``AssignmentRunner.parkable``): an assignment of model version
    ``version`` waits while its job's model moves if it is at most ``PARK_AHEAD`` past ``newest``."""
    return 0 < version - newest <= PARK_AHEAD


def assignment_problem(a: dict) -> Optional[str]:
    """Why the assignment cannot be run, or None."""
    if java_blank(a["job"]):
        return "task assignment without job"
    name = job_name_problem(a["job"])
    if name:
        return "task assignment: " + name
    if a["round"] < 1:
        return "job %s: round %d is out of range (rounds start at 1)" % (a["job"], a["round"])
    if a["model_version"] < 0 or a["model_version"] > MAX_VERSION:
        return "job %s round %d: model version %d is out of range (0 to %d)" % (
            a["job"], a["round"], a["model_version"], MAX_VERSION)
    if not a["task_ids"]:
        return "job %s round %d: assignment without tasks" % (a["job"], a["round"])
    if any(java_blank(t) for t in a["task_ids"]):
        return "job %s round %d: blank task id" % (a["job"], a["round"])
    return None


def result_slices(result: dict, chunk_bytes: int, payload_ids) -> List[dict]:
    """The result as the records that carry it: itself, or slices of its gradient with one payload id."""
    gradient = result["gradient"]
    chunks = chunk_count(len(gradient), chunk_bytes)
    if chunks == 1:
        return [result]
    payload_id = payload_ids()
    view = memoryview(gradient)
    return [dict(result, gradient=bytes(view[i * chunk_bytes:(i + 1) * chunk_bytes]), chunk=i, chunks=chunks,
                 payload_id=payload_id) for i in range(chunks)]


def timing_of(result: dict, status: str, start_ms: int, end_ms: int) -> dict:
    return {
        "job": result["job"], "round": result["round"], "task_id": result["task_id"],
        "worker_id": result["worker_id"], "model_version": result["model_version"],
        "compute_ms": result["compute_ms"], "start_ms": start_ms, "end_ms": end_ms, "status": status,
    }
