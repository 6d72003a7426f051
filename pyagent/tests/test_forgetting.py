"""The model cache forgets a job whose model has been quiet for the retention, and reads it again
from its partition of the model topic when the job comes back, with a consumer of its own (the
Java ``ModelCache``'s "forgetting quiet jobs"), without Kafka: the cache and its reads again follow
a stand-in of the topic's partitions, its quiet times on a clock the test moves."""

import logging
import math
import threading
import time

import pytest

from conftest import require_packages

require_packages("avro", "numpy", "confluent_kafka")

from confluent_kafka import OFFSET_BEGINNING, KafkaError, TopicPartition  # noqa: E402

from pyagent import models as models_module  # noqa: E402
from pyagent.models import ModelCache  # noqa: E402
from pyagent.registry import RegistryError  # noqa: E402
from pyagent.topics import partition_of_job  # noqa: E402
from test_codec import FakeRegistry  # noqa: E402
from test_loop import Message, model_datum  # noqa: E402
from pyagent.codec import Codec  # noqa: E402

TOPIC = "ata.model"
RETENTION = 3600.0
PATIENCE = 20.0
NO_OFFSET = -1001  # librdkafka's position of a partition nothing was read of since its assignment or seek
COOL_DOWN = 60.0  # how long a job whose read again found nothing is not read again (RECALL_COOL_DOWN)


class Record(Message):
    def error(self):
        return None


class PartitionEof:
    """librdkafka's event of a consumer with enable.partition.eof at its partition's end."""

    def __init__(self, partition):
        self.partition_ = partition

    def error(self):
        return KafkaError(KafkaError._PARTITION_EOF)

    def partition(self):
        return self.partition_


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class ModelTopic:
    """The model topic's partitions, each record at the next offset; a transaction's marker takes an
    offset and is no record; the topic's retention deletes old records."""

    def __init__(self, partitions=2):
        self.lock = threading.Lock()
        self.records = {p: [] for p in range(partitions)}
        self.ends = {p: 0 for p in range(partitions)}
        self.written = []  # every record, in the order written

    def add(self, partition, value, key):
        with self.lock:
            offset = self.ends[partition]
            record = Record(TOPIC, value, key, partition, offset)
            self.records[partition].append(record)
            self.written.append(record)
            self.ends[partition] = offset + 1
            return offset

    def add_marker(self, partition):
        with self.lock:
            self.ends[partition] += 1

    def delete_before(self, partition, offset):
        """As the topic's retention or compaction does."""
        with self.lock:
            self.records[partition] = [r for r in self.records[partition] if r.offset() >= offset]

    def low(self, partition):
        records = self.records[partition]
        return records[0].offset() if records else self.ends[partition]


class TopicConsumer:
    """A consumer of a ``ModelTopic`` as librdkafka's behaves when it assigns itself partitions: one
    record a poll (of its partitions' next ones, the one written first); a position past the last
    record read, no offset until one is read. With a ``gate``, its first poll waits until the gate
    opens (a read again under way, for as long as a test needs). With ``eof`` (enable.partition.eof),
    a partition's end is told once each time it is reached: no record left of it (a marker may be
    left). With a ``hold`` (a partition's offset and an event), the records from that offset on come
    only once the event is set (a slow fetch). A seek makes the next poll return from its offset;
    the position is none then until a record is read (librdkafka since 1.9), or with
    ``seek_keeps_position`` the old one (librdkafka before 1.9, Debian's 1.7 among them)."""

    def __init__(self, topic, gate=None, eof=False, hold=None, seek_keeps_position=False):
        self.topic = topic
        self.gate = gate
        self.eof = eof
        self.hold = hold
        self.seek_keeps_position = seek_keeps_position
        self.told_eof = set()
        self.next = {}
        self.positions = {}
        self.seeks = []
        self.closed = False

    def list_topics(self, topic, timeout=None):
        class Info:
            partitions = {p: None for p in self.topic.records}
            error = None

        class Metadata:
            topics = {TOPIC: Info()}

        return Metadata()

    def assign(self, partitions):
        for tp in partitions:
            assert tp.offset == OFFSET_BEGINNING
            self.next[tp.partition] = self.topic.low(tp.partition)
            self.positions[tp.partition] = NO_OFFSET

    def poll(self, timeout):
        assert not self.closed
        if self.gate is not None:
            assert self.gate.wait(PATIENCE), "the test never opened the gate"
            self.gate = None
        with self.topic.lock:
            held = self.hold is not None and not self.hold[1].is_set()
            for record in self.topic.written:
                p = record.partition()
                if p in self.next and record in self.topic.records[p] and record.offset() >= self.next[p]:
                    if held and p == self.hold[0][0] and record.offset() >= self.hold[0][1]:
                        continue
                    self.next[p] = self.positions[p] = record.offset() + 1
                    self.told_eof.discard(p)
                    return record
            if self.eof and not held:
                for p in self.next:
                    if p not in self.told_eof:
                        self.told_eof.add(p)
                        return PartitionEof(p)
        time.sleep(timeout if held else min(timeout, 0.01))  # a slow fetch: the poll waits its time out
        return None

    def position(self, partitions):
        return [TopicPartition(tp.topic, tp.partition, self.positions[tp.partition]) for tp in partitions]

    def get_watermark_offsets(self, tp, timeout=None):
        with self.topic.lock:
            return self.topic.low(tp.partition), self.topic.ends[tp.partition]

    def seek(self, tp):
        self.seeks.append((tp.partition, tp.offset))
        self.next[tp.partition] = tp.offset
        self.told_eof.discard(tp.partition)
        if not self.seek_keeps_position:
            self.positions[tp.partition] = NO_OFFSET

    def close(self):
        self.closed = True


class Following:
    """A cache following ``topic`` with retention ``RETENTION`` on ``clock``, caught up with the
    topic (empty at its start), which reads forgotten jobs again with consumers of the same topic
    (``readers``, in the order made; the next ones made wait for ``gates``, if any; the next
    ``broken`` ones fail to be made); the reasons it dead-lettered, the values it decoded (or tried
    to: while ``outage`` holds a value with a count, decoding it raises ``RegistryError`` as often,
    calling ``on_outage`` each time)."""

    def __init__(self, partitions=2, reads_again=True):
        self.topic = ModelTopic(partitions)
        self.consumer = TopicConsumer(self.topic)
        self.clock = Clock()
        self.letters = []
        self.decoded = []
        self.readers = []
        self.gates = []
        self.holds = []
        self.broken = 0
        self.seek_keeps_position = False
        self.outage = {}
        self.on_outage = lambda: None
        self.codec = Codec(FakeRegistry())
        self.cache = ModelCache(self.consumer, TOPIC, self.decode,
                                lambda message, reason, error: self.letters.append(reason), clock=self.clock,
                                readers=self.reader if reads_again else None)
        self.cache.set_retention(RETENTION)
        self.drain()
        assert self.cache.caught_up

    def decode(self, value):
        self.decoded.append(value)
        if self.outage.get(value, 0) > 0:
            self.outage[value] -= 1
            self.on_outage()
            raise RegistryError("GET http://registry:8081/schemas/ids/1: <urlopen error [Errno 111] "
                                "Connection refused>")
        return self.codec.decode("ModelVersion", value)

    def reader(self):
        if self.broken:
            self.broken -= 1
            raise RuntimeError("no broker reachable")
        consumer = TopicConsumer(self.topic, self.gates.pop(0) if self.gates else None, eof=True,
                                 hold=self.holds.pop(0) if self.holds else None,
                                 seek_keeps_position=self.seek_keeps_position)
        self.readers.append(consumer)
        return consumer

    def add(self, partition, job, version, **fields):
        datum = dict(model_datum(version), job=job, **fields)
        key = job if datum["chunks"] == 1 else "%s#%d" % (job, datum["chunk"])
        value = self.codec.encode(TOPIC, "ModelVersion", datum)
        self.topic.add(partition, value, key.encode())
        return value

    def forget_a_and_d(self):
        """Jobs a (version 1) and d (version 7), on the two partitions, read and then forgotten."""
        assert partition_of_job("a", 2) != partition_of_job("d", 2)
        self.add(partition_of_job("a", 2), "a", 1)
        self.add(partition_of_job("d", 2), "d", 7)
        self.drain()
        self.at(RETENTION)

    def add_junk(self, partition, key=b"junk"):
        return self.topic.add(partition, b"\x00\x00\x00\x00\x01garbage", key)

    def drain(self):
        """Polls until the topic has nothing more to give, and once more."""
        for _ in range(100):
            before = dict(self.consumer.next)
            self.cache.poll_once(0)
            if self.consumer.next == before:
                return
        raise AssertionError("the cache never stopped reading")

    def at(self, seconds):
        self.clock.now = seconds
        self.drain()

    def await_readers(self, count):
        deadline = time.monotonic() + PATIENCE
        while len(self.readers) < count:
            assert time.monotonic() < deadline, "no read again began"
            time.sleep(0.005)

    def await_recall_ended(self, job):
        deadline = time.monotonic() + PATIENCE
        while self.cache.reading_again(job):
            assert time.monotonic() < deadline, "the read again of %s did not end" % job
            time.sleep(0.005)


def told(cache, job):
    """The versions of ``job`` the cache's waiters are woken at, in order (the Python cache's
    version listener: ``await_version``'s waiters, e.g. a task stretched until its round closes)."""
    versions = []
    wake = cache.cond.notify_all

    def notify_all():
        model = cache.models.get(job)
        if model is not None:
            versions.append(model["version"])
        wake()

    cache.cond.notify_all = notify_all
    return versions


def kept_again(cache):
    """The versions the cache's reads again hand it, as ``(job, version)`` in order."""
    kept = []
    keep = cache._keep_recalled

    def keep_and_note(whole, partition):
        kept.append((whole["job"], whole["version"]))
        keep(whole, partition)

    cache._keep_recalled = keep_and_note
    return kept


def test_a_jobs_model_quiet_for_the_retention_is_forgotten_and_a_live_one_kept():
    f = Following()
    cache = f.cache
    f.add(0, "old", 3)
    f.add(1, "live", 1)
    half = model_datum(4)["parameters"][:20]
    f.add(0, "sliced", 4, parameters=half, chunk=0, chunks=2)  # a version whose last slice never comes
    f.drain()
    assert cache.jobs() == 2 and cache.arriving("sliced", 4)

    f.at(RETENTION - 300)
    f.add(1, "live", 2)  # the live job's model moves
    f.drain()
    f.at(RETENTION)

    assert cache.latest("old") is None, "quiet for the retention: forgotten"
    assert cache.latest("live")["version"] == 2, "heard 5 min ago: kept"
    assert cache.jobs() == 1 and cache.quiet_for("old") == math.inf and cache.quiet_for("live") == 300
    assert not cache.arriving("sliced", 4) and not cache.assembler.slices.open, "its incomplete slices dropped"
    assert not cache.recall("live"), "not forgotten: nothing to read again"
    assert not cache.recall("never-seen"), "never read: nothing to read again"
    assert f.consumer.seeks == [] and f.readers == [] and f.letters == []


def test_jobs_are_looked_for_to_forget_at_most_once_a_minute():
    f = Following()
    f.add(0, "old", 3)
    f.drain()
    f.at(RETENTION - 1)  # looked: quiet for a second less than the retention
    f.at(RETENTION + 58)  # not looked: a minute has not passed since
    assert f.cache.jobs() == 1
    f.at(RETENTION + 59)
    assert f.cache.jobs() == 0


def test_a_forgotten_job_is_read_again_from_its_partition_whole_and_newest_with_a_consumer_of_its_own():
    f = Following()
    cache = f.cache
    p = partition_of_job("net", 2)
    data = model_datum(4)["parameters"]
    f.add(p, "net", 2)
    other = f.add(p, "other", 5)  # another job's, on the same partition
    f.add_junk(p, key=b"net")  # refused when read live
    f.add(p, "net", 3)
    f.add(p, "net", 4, parameters=data[:20], chunk=0, chunks=2)  # a chunked version
    f.add(p, "net", 4, parameters=data[20:], chunk=1, chunks=2, task=None)
    f.add(1 - p, "elsewhere", 1)
    f.drain()
    assert len(f.letters) == 1 and "malformed" in f.letters[0], "the junk, dead-lettered when read live"
    f.at(RETENTION)
    assert cache.jobs() == 0
    positions = f.consumer.position([TopicPartition(TOPIC, q) for q in (0, 1)])
    gate = threading.Event()
    f.gates.append(gate)
    versions = told(cache, "net")
    f.decoded.clear()

    assert cache.recall("net"), "forgotten: read again"
    assert cache.recall("net"), "asked again while it is read: under way"
    assert cache.reading_again("net"), "its assignments wait meanwhile"
    gate.set()
    f.await_recall_ended("net")

    whole = cache.latest("net")
    assert (whole["version"], whole["parameters"], whole["chunk"], whole["chunks"]) == (4, data, 0, 1)
    assert whole["task"] == model_datum(4)["task"], "the task of its first slice"
    assert versions == [2, 3, 4], "every version in order, each kept as if read live"
    assert len(f.readers) == 1 and f.readers[0].closed, "one read, with a consumer of its own, closed after it"
    assert other not in f.decoded and len(f.decoded) == 5, "the job's records decoded, the junk too; no other's"
    assert cache.latest("other") is None and cache.latest("elsewhere") is None, "the other jobs stay forgotten"
    assert len(f.letters) == 1, "nothing read again is dead-lettered"
    assert f.consumer.seeks == [] and f.consumer.position([TopicPartition(TOPIC, q) for q in (0, 1)]) == positions, \
        "the cache's own consumer is not moved"
    assert cache.quiet_for("net") == 0, "heard again"
    assert not cache.recall("net") and not cache.reading_again("net"), "no longer forgotten, nor being read"

    f.add(p, "net", 5)  # its trainer goes on: read live
    f.add(p, "net", 1)
    f.drain()
    assert cache.latest("net")["version"] == 5 and "goes backwards" in f.letters[-1]


def test_a_recalled_job_not_found_is_no_longer_being_read_and_is_read_again_only_after_a_cool_down():
    f = Following()
    cache = f.cache
    p = partition_of_job("gone", 2)
    f.add(p, "gone", 2)
    f.add(p, "other", 1)
    f.drain()
    f.at(RETENTION)
    f.topic.delete_before(p, 1)  # its record deleted (by the topic's retention, say)

    assert cache.recall("gone")
    assert cache.reading_again("gone")
    f.await_recall_ended("gone")
    assert not cache.reading_again("gone"), "read to the end without finding it"
    assert cache.latest("gone") is None and cache.latest("other") is None
    assert len(f.readers) == 1 and f.readers[0].closed
    assert cache.missed == {"gone": RETENTION}, "a miss, at the clock's time of the read's end"

    assert not cache.recall("gone"), "missed just now: not read again, its assignment is one without a model"
    assert not cache.reading_again("gone") and cache.forgot("gone"), "forgotten still: its versions unknown"
    f.at(RETENTION + COOL_DOWN - 1)
    assert not cache.recall("gone"), "still cooling down"
    assert len(f.readers) == 1, "no read started meanwhile"

    f.at(RETENTION + COOL_DOWN)
    f.add(p, "gone", 2)  # written again (and not read live yet)
    assert cache.recall("gone"), "cooled down, still forgotten: read again"
    f.await_recall_ended("gone")
    assert cache.latest("gone")["version"] == 2 and len(f.readers) == 2
    assert cache.missed == {}, "found: the miss cleared"
    assert not cache.recall("gone") and not cache.forgot("gone"), "no longer forgotten"

    f.drain()  # the cache's consumer reads the record too
    f.at(RETENTION + COOL_DOWN + RETENTION)  # forgotten again: read again at once
    assert cache.latest("gone") is None and cache.recall("gone")
    f.await_recall_ended("gone")
    assert cache.latest("gone")["version"] == 2 and len(f.readers) == 3 and cache.missed == {}


def test_a_read_again_that_failed_is_a_miss_too():
    f = Following()
    cache = f.cache
    p = partition_of_job("flaky", 2)
    f.add(p, "flaky", 4)
    f.drain()
    f.at(RETENTION)
    f.broken = 1  # its consumer cannot be made (no broker reachable, say)

    assert cache.recall("flaky")
    f.await_recall_ended("flaky")
    assert cache.latest("flaky") is None and f.readers == []
    assert cache.missed == {"flaky": RETENTION}
    assert not cache.recall("flaky"), "failed just now: not read again"

    f.at(RETENTION + COOL_DOWN)
    assert cache.recall("flaky"), "cooled down: read again"
    f.await_recall_ended("flaky")
    assert cache.latest("flaky")["version"] == 4 and len(f.readers) == 1 and cache.missed == {}


def test_a_missed_job_read_live_is_no_longer_missed():
    f = Following()
    cache = f.cache
    cache.set_retention(10)  # forgotten again well within a cool-down
    p = partition_of_job("back", 2)
    f.add(p, "back", 1)
    f.drain()
    f.at(10)
    f.topic.delete_before(p, 1)
    assert cache.recall("back")
    f.await_recall_ended("back")
    assert cache.missed == {"back": 10} and not cache.recall("back")

    f.at(11)
    f.add(p, "back", 2)  # its trainer goes on: read live
    f.drain()
    assert cache.latest("back")["version"] == 2 and cache.missed == {}, "heard live: the miss cleared"
    assert not cache.recall("back"), "not forgotten: nothing to read again"

    f.at(21)  # quiet for the retention again, 11 s after the miss
    assert cache.latest("back") is None
    assert cache.recall("back"), "forgotten anew, not missed: read again at once"
    f.await_recall_ended("back")
    assert cache.latest("back")["version"] == 2 and len(f.readers) == 2


@pytest.mark.parametrize("seek_keeps_position", [False, True], ids=["librdkafka-1.9+", "librdkafka-1.7"])
def test_a_registry_outage_during_a_read_again_is_waited_out(monkeypatch, caplog, seek_keeps_position):
    monkeypatch.setattr(models_module, "RECALL_RETRY", 0.01)
    f = Following()
    f.seek_keeps_position = seek_keeps_position
    cache = f.cache
    p = partition_of_job("reg", 2)
    first = f.add(p, "reg", 1)
    f.add(p, "other", 1)
    second = f.add(p, "reg", 2)
    third = f.add(p, "reg", 3)
    f.drain()
    f.at(RETENTION)
    f.outage[second] = 2  # the registry unreachable twice when the 2nd record is decoded, then back
    versions = told(cache, "reg")
    f.decoded.clear()

    with caplog.at_level(logging.INFO, logger="pyagent.models"):
        assert cache.recall("reg")
        f.await_recall_ended("reg")

    assert versions == [1, 2, 3], "every version in order, each handed over once"
    assert cache.latest("reg")["version"] == 3 and cache.missed == {}
    assert f.readers[0].seeks == [(p, 2), (p, 2)], "sought back to the failing record only, at each failure"
    assert f.decoded == [first, second, second, second, third]
    outage = [r for r in caplog.records if r.levelno == logging.WARNING and "Schema Registry" in r.getMessage()]
    assert len(outage) == 1, "warned once an outage"
    assert f.letters == []


OUTAGE_PATIENCE = 0.3  # how long the reads again wait out the registry, together (30 s unless told)


def registry_down_at_times(f):
    """A decoder of ``f``'s records and a switch: while ``down[0]``, the Schema Registry does not
    answer (every decode raises ``RegistryError``)."""
    down = [True]

    def decode(value):
        if down[0]:
            raise RegistryError("GET http://registry:8081/schemas/ids/1: <urlopen error [Errno 111] "
                                "Connection refused>")
        return f.codec.decode("ModelVersion", value)

    return decode, down


def test_a_registry_down_for_longer_than_the_patience_fails_the_reads_queued_behind_at_once(monkeypatch):
    monkeypatch.setattr(models_module, "RECALL_RETRY", 0.01)
    f = Following()
    p = partition_of_job("net", 2)
    f.add(p, "other", 7)  # another job's record first: passed over undecoded, it says nothing of the registry
    f.add(p, "net", 2)
    decode, down = registry_down_at_times(f)
    recall = models_module.ModelRecall(f.reader, TOPIC, decode, timeout=3.0, outage_patience=OUTAGE_PATIENCE)
    found = []

    started = time.monotonic()
    with pytest.raises(RegistryError, match="has not answered for"):
        recall.read({"net"}, p, found.append)
    assert time.monotonic() - started >= OUTAGE_PATIENCE, "waited out the patience"
    assert len(f.readers[0].seeks) > 1 and f.readers[0].closed, "read again every RECALL_RETRY meanwhile"

    with pytest.raises(RegistryError, match="has not answered for"):
        recall.read({"net"}, p, found.append)
    assert f.readers[1].seeks == [] and f.readers[1].closed, \
        "down for longer than the patience already: failed at its first record, without waiting"

    down[0] = False
    assert recall.read({"net"}, p, found.append) == {"net": 1}, "the registry answers again"
    down[0] = True
    started = time.monotonic()
    with pytest.raises(RegistryError):
        recall.read({"net"}, p, found.append)
    assert time.monotonic() - started >= OUTAGE_PATIENCE, "a new outage: waited out again"
    assert len(f.readers[3].seeks) > 1
    assert [w["version"] for w in found] == [2]

    # a read that ends without giving up (none of its jobs there) ends the outage it carried
    assert recall.read({"ghost"}, p, found.append) == {"ghost": 0}
    started = time.monotonic()
    with pytest.raises(RegistryError):
        recall.read({"net"}, p, found.append)
    assert time.monotonic() - started >= OUTAGE_PATIENCE, "after a read that did not give up: waited out again"
    assert len(f.readers[5].seeks) > 1
    # nor does a give-up carry over to a read that starts longer than the patience after it
    time.sleep(OUTAGE_PATIENCE + 0.05)
    started = time.monotonic()
    with pytest.raises(RegistryError):
        recall.read({"net"}, p, found.append)
    assert time.monotonic() - started >= OUTAGE_PATIENCE, "long after the last give-up: waited out again"
    assert len(f.readers[6].seeks) > 1


def test_the_reads_queued_behind_a_long_registry_outage_fail_at_once_and_their_jobs_cool_down(monkeypatch):
    monkeypatch.setattr(models_module, "RECALL_RETRY", 0.01)
    f = Following()
    cache = f.cache
    f.forget_a_and_d()
    decode, down = registry_down_at_times(f)
    cache.decode = decode
    cache.recall_reader.outage_patience = OUTAGE_PATIENCE

    with cache.cond:  # both queued before the first read starts
        assert cache.recall("a") and cache.recall("d")
    started = time.monotonic()
    await_recalls_ended(f, "a", "d")
    assert time.monotonic() - started < OUTAGE_PATIENCE + 2.0, "the patience once, not a read's timeout each"
    assert len(f.readers) == 2 and len(f.readers[0].seeks) > 1 and f.readers[1].seeks == [], \
        "the first read waited the registry out, the one queued behind it failed at once"
    assert cache.missed == {"a": RETENTION, "d": RETENTION}, "a miss for each: they cool down"
    assert not cache.recall("a") and not cache.recall("d")

    down[0] = False
    f.at(RETENTION + COOL_DOWN)
    assert cache.recall("a")
    f.await_recall_ended("a")
    assert cache.latest("a")["version"] == 1 and cache.missed == {"d": RETENTION}


def test_a_registry_outage_at_a_partitions_last_record_is_waited_out_through_a_slow_fetch(monkeypatch):
    """librdkafka before 1.9 keeps the position past the record after a seek back to it, which
    reads as the partition's end; and the record read again may take a quiet spell to come."""
    monkeypatch.setattr(models_module, "RECALL_RETRY", 0.01)
    monkeypatch.setattr(models_module, "MARKER_WAIT", 0.02)
    monkeypatch.setattr(models_module, "QUIET_END", 0.05)
    f = Following()
    f.seek_keeps_position = True
    cache = f.cache
    p = partition_of_job("edge", 2)
    f.add(p, "edge", 1)
    last = f.add(p, "edge", 2)
    f.drain()
    f.at(RETENTION)
    fetched = threading.Event()

    def slow_fetch():  # the record read again comes after a quiet spell far past either limit
        f.readers[0].hold = ((p, 1), fetched)
        threading.Timer(0.3, fetched.set).start()

    f.outage[last] = 1
    f.on_outage = slow_fetch
    versions = told(cache, "edge")

    assert cache.recall("edge")
    f.await_recall_ended("edge")
    assert fetched.is_set(), "the read waited for the record"
    assert versions == [1, 2] and cache.latest("edge")["version"] == 2 and cache.missed == {}
    assert f.readers[0].seeks == [(p, 1)]


def test_a_partition_read_again_ends_at_its_end_though_a_transactions_marker_takes_its_last_offset(monkeypatch):
    monkeypatch.setattr(models_module, "MARKER_WAIT", 0.05)
    f = Following()
    cache = f.cache
    p = partition_of_job("tx", 2)
    f.add(p, "tx", 1)
    f.topic.add_marker(p)  # the commit marker of the trainer's transaction
    f.add(p, "tx", 2)
    f.topic.add_marker(p)
    f.drain()
    f.at(RETENTION)

    assert cache.recall("tx")
    f.await_recall_ended("tx")
    assert cache.latest("tx")["version"] == 2
    assert f.readers[0].positions[p] == f.topic.ends[p] - 1, "one short of the end: past its last record"


def test_a_read_again_whose_last_record_comes_after_a_quiet_spell_still_finds_it(monkeypatch):
    monkeypatch.setattr(models_module, "MARKER_WAIT", 0.02)
    monkeypatch.setattr(models_module, "QUIET_END", 0.05)
    f = Following()
    cache = f.cache
    p = partition_of_job("slow", 2)
    f.add(p, "slow", 1)
    f.add(p, "other", 1)
    f.add(p, "slow", 2)
    last = f.topic.ends[p] - 1
    f.drain()
    f.at(RETENTION)
    for held_from in (1, last):  # quiet anywhere, and one short of the end
        fetched = threading.Event()
        f.holds.append(((p, held_from), fetched))
        reads = len(f.readers) + 1
        assert cache.recall("slow")
        f.await_readers(reads)
        time.sleep(0.3)  # quiet far longer than either limit
        assert cache.reading_again("slow"), "not at the end yet: the read goes on"
        fetched.set()
        f.await_recall_ended("slow")
        assert cache.latest("slow")["version"] == 2, "its last record found"
        f.at(f.clock.now + RETENTION)  # forgotten again
        assert cache.latest("slow") is None


def test_two_partitions_recalled_are_read_one_after_the_other_and_both_found():
    f = Following()
    cache = f.cache
    f.forget_a_and_d()
    assert cache.jobs() == 0
    gate = threading.Event()
    f.gates.append(gate)

    assert cache.recall("a")
    assert cache.recall("d")
    assert cache.reading_again("a") and cache.reading_again("d"), "one read, one waiting for it"
    f.await_readers(1)
    time.sleep(0.05)
    assert len(f.readers) == 1, "one partition at a time"
    gate.set()

    assert cache.await_version("a", 1, PATIENCE)["version"] == 1
    assert cache.await_version("d", 7, PATIENCE)["version"] == 7
    f.await_recall_ended("d")
    assert len(f.readers) == 2 and all(r.closed for r in f.readers) and f.consumer.seeks == []


def await_recalls_ended(f, *jobs):
    for job in jobs:
        f.await_recall_ended(job)


def test_jobs_recalled_for_one_partition_before_its_read_starts_share_one_read():
    f = Following()
    cache = f.cache
    p, q = 0, 1
    f.add(q, "c", 3)
    f.add(p, "a", 1)
    other = f.add(p, "other", 5)
    f.add(p, "b", 2)
    f.add(p, "a", 2)
    f.drain()
    f.at(RETENTION)
    assert cache.jobs() == 0
    gate = threading.Event()
    f.gates.append(gate)  # the read of q stays under way: p's waits to start meanwhile
    kept = kept_again(cache)
    f.decoded.clear()

    assert cache.recall("c")
    f.await_readers(1)
    assert cache.recall("a")
    assert cache.recall("b"), "a second job of the same partition, recalled before its read starts"
    assert cache.recall("a"), "asked again while it waits: waiting"
    assert all(cache.reading_again(job) for job in ("a", "b", "c"))
    gate.set()
    await_recalls_ended(f, "a", "b", "c")

    assert len(f.readers) == 2 and all(r.closed for r in f.readers), "one read of each partition"
    assert list(f.readers[0].next) == [q] and list(f.readers[1].next) == [p]
    assert kept == [("c", 3), ("a", 1), ("b", 2), ("a", 2)], "both jobs' versions handed over in the topic's order"
    assert (cache.latest("a")["version"], cache.latest("b")["version"], cache.latest("c")["version"]) == (2, 2, 3)
    assert cache.latest("other") is None and other not in f.decoded and len(f.decoded) == 4
    assert not any(cache.reading_again(job) for job in ("a", "b", "c")) and cache.missed == {}
    assert cache.waiting == {} and cache.queued == set()


def test_a_job_on_another_partition_is_read_by_a_read_of_its_own():
    f = Following()
    cache = f.cache
    p, q = 0, 1
    f.add(p, "a", 1)
    f.add(q, "d", 4)
    f.add(p, "b", 2)
    f.drain()
    f.at(RETENTION)

    with cache.cond:  # all recalled before the thread of the reads again takes a partition
        assert cache.recall("a") and cache.recall("d") and cache.recall("b")
    await_recalls_ended(f, "a", "d", "b")

    assert len(f.readers) == 2, "a read of p for a and b, one of q for d"
    assert [list(r.next) for r in f.readers] == [[p], [q]], "in the order the partitions were recalled"
    assert (cache.latest("a")["version"], cache.latest("b")["version"], cache.latest("d")["version"]) == (1, 2, 4)
    assert cache.missed == {}


def test_a_job_recalled_while_its_partitions_read_is_under_way_waits_for_the_next_read():
    f = Following()
    cache = f.cache
    p = 0
    for job, version in (("a", 1), ("b", 2), ("c", 3)):
        f.add(p, job, version)
    f.drain()
    f.at(RETENTION)
    gate = threading.Event()
    f.gates.append(gate)

    assert cache.recall("a")
    f.await_readers(1)  # the read of p for a is under way (its jobs taken before its consumer is made)
    assert cache.recall("b") and cache.recall("c")
    assert cache.reading_again("b") and cache.reading_again("c"), "waiting for the next read of p"
    gate.set()
    await_recalls_ended(f, "a", "b", "c")

    assert len(f.readers) == 2 and all(list(r.next) == [p] for r in f.readers), "a second read, for b and c"
    assert [cache.latest(job)["version"] for job in ("a", "b", "c")] == [1, 2, 3] and cache.missed == {}

    f.at(2 * RETENTION)  # all forgotten again: p is queued again at the next recall
    assert cache.latest("a") is None and cache.recall("a")
    f.await_recall_ended("a")
    assert len(f.readers) == 3 and cache.latest("a")["version"] == 1


def test_a_shared_read_that_finds_one_job_and_not_the_other_cools_down_only_the_other(caplog):
    f = Following()
    cache = f.cache
    p = 0
    f.add(p, "b", 1)
    f.add(p, "a", 3)
    f.drain()
    f.at(RETENTION)
    f.topic.delete_before(p, 1)  # b's record deleted (by the topic's retention, say)

    with caplog.at_level(logging.INFO, logger="pyagent.models"):
        with cache.cond:
            assert cache.recall("a") and cache.recall("b")
        await_recalls_ended(f, "a", "b")

    assert len(f.readers) == 1, "one read for both"
    assert cache.latest("a")["version"] == 3 and cache.latest("b") is None
    assert cache.missed == {"b": RETENTION}, "a miss for the job not found only"
    assert not cache.recall("b"), "missed just now: not read again"
    assert not cache.recall("a"), "found: no longer forgotten"
    said = [r.getMessage() for r in caplog.records if "read again from partition" in r.getMessage()]
    assert len(said) == 1 and "2 jobs (a, b)" in said[0] and "1 version(s) of 1 job(s) found" in said[0]
    assert "job b not read again for 60 s" in said[0]

    f.at(RETENTION + COOL_DOWN)
    assert cache.recall("b"), "cooled down: read again"
    f.await_recall_ended("b")
    assert len(f.readers) == 2 and cache.missed == {"b": RETENTION + COOL_DOWN}


def test_a_shared_read_that_failed_is_a_miss_for_each_of_its_jobs():
    f = Following()
    cache = f.cache
    p = 0
    f.add(p, "a", 1)
    f.add(p, "b", 2)
    f.drain()
    f.at(RETENTION)
    f.broken = 1  # its consumer cannot be made (no broker reachable, say)

    with cache.cond:
        assert cache.recall("a") and cache.recall("b")
    await_recalls_ended(f, "a", "b")
    assert f.readers == [] and cache.latest("a") is None and cache.latest("b") is None
    assert cache.missed == {"a": RETENTION, "b": RETENTION}
    assert not cache.recall("a") and not cache.recall("b")


def test_the_interleaved_slices_of_jobs_read_again_together_are_put_together_per_job():
    f = Following()
    cache = f.cache
    p = 0
    data = model_datum(4)["parameters"]
    f.add(p, "a", 4, parameters=data[:20], chunk=0, chunks=2)
    f.add(p, "b", 7, parameters=data[:8], chunk=0, chunks=3)
    other = f.add(p, "ab", 1, parameters=data[:20], chunk=0, chunks=2)  # a name a's is the start of
    f.add(p, "a", 4, parameters=data[20:], chunk=1, chunks=2, task=None)
    f.add(p, "b", 7, parameters=data[8:28], chunk=1, chunks=3, task=None)
    f.add(p, "ab", 1, parameters=data[20:], chunk=1, chunks=2, task=None)
    f.add(p, "b", 7, parameters=data[28:], chunk=2, chunks=3, task=None)
    f.drain()
    f.at(RETENTION)
    f.decoded.clear()

    found = []
    counts = models_module.ModelRecall(f.reader, TOPIC, f.decode).read({"a", "b", "c"}, p, found.append)
    assert counts == {"a": 1, "b": 1, "c": 0}, "versions found per job"
    assert [(w["job"], w["version"], w["parameters"], w["chunk"], w["chunks"]) for w in found] == \
        [("a", 4, data, 0, 1), ("b", 7, data, 0, 1)], "each job's slices put together, whole in the topic's order"
    assert all(w["task"] == model_datum(4)["task"] for w in found), "the task of each job's first slice"
    assert len(f.decoded) == 5 and other not in f.decoded, "the jobs' slices decoded, no other's"
    assert len(f.readers) == 1 and f.readers[0].closed

    with cache.cond:
        assert cache.recall("a") and cache.recall("b")
    await_recalls_ended(f, "a", "b")
    assert len(f.readers) == 2 and cache.latest("ab") is None
    assert [(cache.latest(job)["version"], cache.latest(job)["parameters"]) for job in ("a", "b")] == \
        [(4, data), (7, data)]


def test_a_forgotten_job_read_live_again_is_no_longer_forgotten():
    f = Following()
    cache = f.cache
    f.add(0, "back", 2)
    f.drain()
    f.at(RETENTION)
    assert cache.latest("back") is None
    f.add(0, "back", 3)  # its trainer goes on
    f.drain()

    assert cache.latest("back")["version"] == 3
    assert not cache.recall("back"), "nothing to read again"
    assert f.readers == []


def test_a_job_forgotten_long_ago_is_still_read_again():
    f = Following()
    cache = f.cache
    f.add(partition_of_job("old", 2), "old", 3)
    f.drain()
    f.at(RETENTION)
    assert cache.latest("old") is None
    for retentions in (10, 100, 1000):  # looked for jobs to forget many times since
        f.at(retentions * RETENTION)

    assert cache.recall("old"), "its trainer back however late: read again"
    f.await_recall_ended("old")
    assert cache.latest("old")["version"] == 3 and len(f.readers) == 1


def test_a_forgotten_job_is_read_again_from_the_partition_it_was_heard_on():
    f = Following()
    cache = f.cache
    elsewhere = 1 - partition_of_job("moved", 2)  # written before the topic's partitions changed, say
    f.add(elsewhere, "moved", 4)
    f.drain()
    f.at(RETENTION)
    assert cache.latest("moved") is None

    assert cache.recall("moved")
    f.await_recall_ended("moved")
    assert list(f.readers[0].next) == [elsewhere], "read where it was heard, not where its name falls today"
    assert cache.latest("moved")["version"] == 4

    f.at(2 * RETENTION)  # forgotten again: the partition it was read again from is kept too
    assert cache.latest("moved") is None and cache.recall("moved")
    f.await_recall_ended("moved")
    assert list(f.readers[1].next) == [elsewhere] and cache.latest("moved")["version"] == 4


def test_a_cache_that_cannot_read_again_forgets_nothing():
    f = Following(reads_again=False)
    cache = f.cache
    f.add(0, "kept", 1)
    f.drain()
    f.at(3 * RETENTION)

    assert cache.latest("kept")["version"] == 1 and cache.quiet_for("kept") == 3 * RETENTION
    assert not cache.recall("kept") and cache.forgotten == {}


def test_close_stops_a_read_again_under_way_and_returns_once_its_thread_ended():
    f = Following()
    cache = f.cache
    p = partition_of_job("slow", 2)
    f.add(p, "slow", 1)
    f.add(partition_of_job("later", 2), "later", 1)
    f.drain()
    f.at(RETENTION)
    never = threading.Event()
    f.holds.append(((p, 0), never))  # a slow fetch: the read stays under way
    assert cache.recall("slow")
    f.await_readers(1)
    time.sleep(0.05)
    assert cache.reading_again("slow")

    cache.close()
    assert not cache.recall_thread.is_alive(), "close waited for the read's thread"
    assert len(f.readers) == 1 and f.readers[0].closed, "the read under way stopped, its consumer closed"
    assert not cache.recall("later"), "closed: nothing more is read again"
    assert f.consumer.closed and cache.latest("slow") is None


def test_a_read_queued_behind_another_is_dropped_by_the_close_and_no_longer_said_to_be_under_way(monkeypatch):
    monkeypatch.setattr(models_module, "RECALL_CLOSE_WAIT", 0.05)
    f = Following()
    cache = f.cache
    f.forget_a_and_d()
    gate = threading.Event()
    f.gates.append(gate)  # a's read never ends while the test runs
    assert cache.recall("a")
    f.await_readers(1)
    assert cache.recall("d"), "queued behind a's read, on the one thread of the reads"

    cache.close()
    assert not cache.reading_again("d"), "its read was dropped: its assignments are not kept waiting for it"
    assert not cache.reading_again("a")
    assert not cache.recall("d") and not cache.recall("a"), "closed: nothing more is read again"
    gate.set()
    cache.recall_thread.join(PATIENCE)
    assert not cache.recall_thread.is_alive()
    assert len(f.readers) == 1, "d's read was never started"
    assert cache.recalling == set() and cache.waiting == {} and cache.queued == set()


def test_an_error_escaping_a_read_again_does_not_stop_the_thread_of_the_reads(caplog):
    f = Following()
    cache = f.cache
    f.forget_a_and_d()
    read_again = cache._read_again
    calls = []

    def broken_once(jobs, partition):
        calls.append(set(jobs))
        if len(calls) == 1:
            raise RuntimeError("a bug")
        read_again(jobs, partition)

    cache._read_again = broken_once
    with caplog.at_level(logging.ERROR, logger="pyagent.models"):
        assert cache.recall("a")
        f.await_recall_ended("a")
    assert "a bug" in caplog.text and cache.latest("a") is None
    assert cache.queued == set(), "a's partition is not left queued"

    assert cache.recall("d"), "a later recall, of another partition"
    assert cache.await_version("d", 7, PATIENCE)["version"] == 7
    f.await_recall_ended("d")
    assert cache.recall_thread.is_alive(), "the thread of the reads went on"
    assert cache.recall("a"), "a's partition is not blocked for good"
    assert cache.await_version("a", 1, PATIENCE)["version"] == 1
    assert calls == [{"a"}, {"d"}, {"a"}]


def test_the_retention_must_be_positive():
    with pytest.raises(ValueError, match="must be positive"):
        ModelCache(None, TOPIC, None, None).set_retention(0)
