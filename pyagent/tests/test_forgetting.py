"""The model cache forgets a job whose model has been quiet for the retention, and reads it again
from the model topic when the job comes back (the Java ``ModelCache``'s "forgetting quiet jobs"),
without Kafka: the cache follows a stand-in of the topic's partitions, its quiet times on a clock
the test moves."""

import math

import pytest

from conftest import require_packages

require_packages("avro", "numpy", "confluent_kafka")

from confluent_kafka import OFFSET_BEGINNING, TopicPartition  # noqa: E402

from pyagent.models import ModelCache  # noqa: E402
from test_codec import FakeRegistry  # noqa: E402
from test_loop import Message, model_datum  # noqa: E402
from pyagent.codec import Codec  # noqa: E402

TOPIC = "ata.model"
RETENTION = 3600.0
NO_OFFSET = -1001  # librdkafka's position of a partition nothing was read of since its seek


class Record(Message):
    def error(self):
        return None


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class ModelTopic:
    """The model topic's partitions, and a consumer of them as librdkafka's behaves: one record a
    poll (of the partitions' next ones, the one written first); a position past the last record
    read, no offset after a seek until a record is read; a seek to the beginning starts at the
    oldest record kept."""

    def __init__(self, partitions=2):
        self.records = {p: [] for p in range(partitions)}
        self.ends = {p: 0 for p in range(partitions)}
        self.next = {p: 0 for p in range(partitions)}
        self.positions = {p: NO_OFFSET for p in range(partitions)}
        self.seeks = []
        self.written = []  # every record, in the order written

    def add(self, partition, value, key):
        offset = self.ends[partition]
        record = Record(TOPIC, value, key, partition, offset)
        self.records[partition].append(record)
        self.written.append(record)
        self.ends[partition] = offset + 1
        return offset

    def delete_before(self, partition, offset):
        """As the topic's retention or compaction does."""
        self.records[partition] = [r for r in self.records[partition] if r.offset() >= offset]

    def low(self, partition):
        records = self.records[partition]
        return records[0].offset() if records else self.ends[partition]

    # ---- the consumer ----

    def list_topics(self, topic, timeout=None):
        class Info:
            partitions = {p: None for p in self.records}
            error = None

        class Metadata:
            topics = {TOPIC: Info()}

        return Metadata()

    def assign(self, partitions):
        for tp in partitions:
            self.next[tp.partition] = self.low(tp.partition)

    def poll(self, timeout):
        for record in self.written:
            p = record.partition()
            if record in self.records[p] and record.offset() >= self.next[p]:
                self.next[p] = self.positions[p] = record.offset() + 1
                return record
        return None

    def position(self, partitions):
        return [TopicPartition(tp.topic, tp.partition, self.positions[tp.partition]) for tp in partitions]

    def get_watermark_offsets(self, tp, timeout=None):
        return self.low(tp.partition), self.ends[tp.partition]

    def seek(self, tp):
        self.seeks.append((tp.partition, tp.offset))
        self.next[tp.partition] = self.low(tp.partition) if tp.offset == OFFSET_BEGINNING else tp.offset
        self.positions[tp.partition] = NO_OFFSET


class Following:
    """A cache following ``topic`` with retention ``RETENTION`` on ``clock``, caught up with the
    topic (empty at its start), and the reasons it dead-lettered."""

    def __init__(self, partitions=2):
        self.topic = ModelTopic(partitions)
        self.clock = Clock()
        self.letters = []
        self.codec = Codec(FakeRegistry())
        self.cache = ModelCache(self.topic, TOPIC, lambda v: self.codec.decode("ModelVersion", v),
                                lambda message, reason, error: self.letters.append(reason), clock=self.clock)
        self.cache.set_retention(RETENTION)
        self.drain()
        assert self.cache.caught_up

    def add(self, partition, job, version, **fields):
        datum = dict(model_datum(version), job=job, **fields)
        key = job if datum["chunks"] == 1 else "%s#%d" % (job, datum["chunk"])
        return self.topic.add(partition, self.codec.encode(TOPIC, "ModelVersion", datum), key.encode())

    def add_junk(self, partition):
        return self.topic.add(partition, b"\x00\x00\x00\x00\x01garbage", b"junk")

    def drain(self):
        """Polls until the topic has nothing more to give, and once more."""
        for _ in range(100):
            before = dict(self.topic.next)
            self.cache.poll_once(0)
            if self.topic.next == before and not self.cache.recalled:
                return
        raise AssertionError("the cache never stopped reading")

    def at(self, seconds):
        self.clock.now = seconds
        self.drain()


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
    assert f.topic.seeks == [] and f.letters == []


def test_jobs_are_looked_for_to_forget_at_most_once_a_minute():
    f = Following()
    f.add(0, "old", 3)
    f.drain()
    f.at(RETENTION - 1)  # looked: quiet for a second less than the retention
    f.at(RETENTION + 58)  # not looked: a minute has not passed since
    assert f.cache.jobs() == 1
    f.at(RETENTION + 59)
    assert f.cache.jobs() == 0


def test_a_forgotten_job_recalled_is_read_again_without_touching_the_others_or_lettering_again():
    f = Following()
    cache = f.cache
    f.add(0, "old", 3)
    f.add(0, "other", 5)
    junk = f.add_junk(0)
    f.add(0, "other", 6)
    f.drain()
    assert len(f.letters) == 1 and "malformed" in f.letters[0], "the junk, dead-lettered when read live"
    f.at(RETENTION - 600)
    f.add(0, "other", 7)  # keeps other alive
    f.drain()
    f.at(RETENTION)
    assert cache.latest("old") is None and not cache.arriving("old", 3)
    assert cache.latest("other")["version"] == 7 and cache.quiet_for("other") == 600

    assert cache.recall("old")
    assert cache.arriving("old", 3), "being read again: worth the longer wait"
    f.drain()

    assert f.topic.seeks == [(0, OFFSET_BEGINNING)], "its partition read again from the beginning, no other"
    assert cache.latest("old")["version"] == 3, "read again"
    assert cache.latest("other")["version"] == 7, "the other job untouched"
    assert cache.quiet_for("other") == 600, "the other job's records skipped: not heard again"
    assert len(f.letters) == 1, "nothing read again is lettered again (no 'goes backwards', not the junk %d)" % junk
    assert cache.quiet_for("old") == 0, "heard again"
    assert not cache.recall("old"), "no longer forgotten"
    assert not cache.arriving("old", 4) and cache.rereading_until == {}

    f.add(0, "other", 4)  # read live again: a real backwards version
    f.add_junk(0)
    f.drain()
    assert len(f.letters) == 3, "past where the partition stood, records are live"
    assert "goes backwards" in f.letters[1] and "malformed" in f.letters[2]


def test_every_record_of_a_recalled_job_is_applied_its_versions_slices_and_newer_versions_too():
    f = Following()
    cache = f.cache
    f.add(0, "old", 3)
    data = model_datum(4)["parameters"]
    f.add(0, "old", 4, parameters=data[:20], chunk=0, chunks=2)
    f.add(1, "old", 4, parameters=data[20:], chunk=1, chunks=2, task=None)
    f.add(0, "other", 1)
    f.add(0, "old", 5)  # not compacted away yet
    f.drain()
    assert cache.latest("old")["version"] == 5
    f.at(RETENTION)
    assert cache.jobs() == 0
    f.add(0, "other", 2)
    f.drain()

    assert cache.recall("old")
    f.drain()

    assert sorted(f.topic.seeks) == [(0, OFFSET_BEGINNING), (1, OFFSET_BEGINNING)], "every partition it was on"
    assert cache.latest("old")["version"] == 5 and cache.latest("other")["version"] == 2
    assert f.letters == []


def test_a_job_recalled_while_its_partition_is_read_again_for_another_is_read_again_after_it():
    f = Following()
    cache = f.cache
    f.add(0, "first", 1)
    f.add(0, "second", 2)
    f.add(0, "third", 3)
    f.drain()
    f.at(RETENTION)
    assert cache.jobs() == 0

    assert cache.recall("second")
    cache.poll_once(0)  # partition 0 sought back; "first" read again, skipped
    assert cache.recall("first"), "its record is behind where the re-read stands"
    assert cache.arriving("first", 1)
    f.drain()

    assert f.topic.seeks == [(0, OFFSET_BEGINNING)] * 2
    assert cache.latest("first")["version"] == 1 and cache.latest("second")["version"] == 2
    assert cache.latest("third") is None and f.letters == []


def test_a_recalled_job_not_found_again_is_no_longer_arriving_once_its_partitions_are_read_again():
    f = Following()
    cache = f.cache
    f.add(1, "gone", 2)
    f.add(1, "other", 1)
    f.add(0, "deleted", 1)
    f.drain()
    f.at(RETENTION)
    f.topic.delete_before(1, 1)  # its record deleted (by the topic's retention, say)
    f.topic.delete_before(0, 1)

    assert cache.recall("gone") and cache.recall("deleted")
    assert cache.arriving("gone", 2) and cache.arriving("deleted", 1)
    f.drain()

    assert f.topic.seeks == [(1, OFFSET_BEGINNING)], "partition 0 has nothing left to read again"
    assert not cache.arriving("gone", 2) and not cache.arriving("deleted", 1), "read again without finding them"
    assert cache.latest("gone") is None and cache.latest("other") is None
    assert cache.recall("gone"), "still forgotten"


def test_the_retention_must_be_positive():
    with pytest.raises(ValueError, match="must be positive"):
        ModelCache(None, TOPIC, None, None).set_retention(0)
