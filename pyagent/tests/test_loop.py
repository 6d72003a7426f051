"""The agent's loop without Kafka: assignments run, skipped, stopped or dead-lettered as the Java
AssignmentRunner does; model versions assembled and refused; transactions grouped; pacing."""

import json
import math
import threading
import time

import pytest

from conftest import require_packages

require_packages("avro", "numpy", "prometheus_client", "confluent_kafka")

import numpy as np  # noqa: E402

from pyagent import tensor  # noqa: E402
from pyagent.agent import AgentConfig, OwnedPartitions, WorkerAgent, assignment_problem, result_slices  # noqa: E402
from pyagent.codec import Codec  # noqa: E402
from pyagent.metrics import AgentMetrics  # noqa: E402
from pyagent.models import ModelAssembler, ModelCache, whole_problem  # noqa: E402
from pyagent.pacing import Distribution, Schedule, TaskPacer, load_scenario_worker, time_model  # noqa: E402
from pyagent.parking import ParkedAssignments  # noqa: E402
from pyagent.publisher import FatalKafkaError, ProducerUnusableError, TransactionPublisher, new_clients_heal  # noqa: E402
from pyagent.topics import ChunkAssembler, Topics, dead_letter, murmur2, partition_of_job  # noqa: E402
from test_codec import FakeRegistry  # noqa: E402


class Message:
    def __init__(self, topic, value, key=None, partition=0, offset=0):
        self._t, self._v, self._k, self._p, self._o = topic, value, key, partition, offset

    def topic(self):
        return self._t

    def value(self):
        return self._v

    def key(self):
        return self._k

    def partition(self):
        return self._p

    def offset(self):
        return self._o


class FakePublisher:
    def __init__(self):
        self.outputs = []

    def publish(self, records, on_committed=None):
        self.outputs.append((records, None))
        if on_committed:
            on_committed(time.monotonic())

    def publish_and_commit(self, records, offsets, group, on_committed=None):
        self.outputs.append((records, [(tp.topic, tp.partition, tp.offset) for tp in offsets]))
        if on_committed:
            on_committed(time.monotonic())

    def wait(self):
        pass


class FakeWorkload:
    def __init__(self, stop_after=None):
        self.stop_after = stop_after
        self.prepared = []

    def prepare(self, model):
        self.prepared.append(model["version"])

    def compute(self, model, task_id, stop):
        if self.stop_after is not None and stop():
            return None
        return tensor.encode(np.ones(3, dtype=np.float32), "FLOAT32_LE"), "FLOAT32_LE", 0.5, 8

    def describe(self):
        return "fake"

    def device(self):
        return "CPU", "test", 0, 1


class NoConsumer:
    def consumer_group_metadata(self):
        return "group"


class Producer:
    def list_topics(self, topic, timeout=None):
        class Info:
            partitions = {0: None, 1: None}
            error = None

        class Meta:
            topics = {topic: Info()}

        return Meta()


def agent_with(models, workload=None):
    agent = WorkerAgent.__new__(WorkerAgent)
    agent.config = AgentConfig("x:1", "http://x", worker_id="py-1", model_wait=0.3)
    agent.topics = Topics()
    agent.workload = workload or FakeWorkload()
    agent.pacer = TaskPacer()
    agent.metrics = AgentMetrics("py-1")
    agent.codec = Codec(FakeRegistry())
    agent.stop_requested = threading.Event()
    agent.models = ModelCache(None, "ata.model", None, None)
    agent.models.caught_up = True
    for m in models:
        agent.models.models[m["job"]] = m
    agent.publisher = FakePublisher()
    agent.parked = ParkedAssignments()
    agent.owned = OwnedPartitions("ata.tasks", lambda: None, agent._drop_parked)
    agent.consumer = NoConsumer()
    agent.producer = Producer()
    agent._partition_counts = {}
    agent.payload_prefix = "py-1-0-"
    agent.payloads = 0
    return agent


def assignment(agent, **fields):
    a = {"job": "j", "round": 3, "model_version": 2, "worker_id": "java-1", "partition": 3,
         "task_ids": ["j/3/0", "j/3/1"], "batch": 4, "policy": "", "created_ms": 1, "deadline_ms": 0.0, "backup_of": ""}
    a.update(fields)
    return Message("ata.tasks", agent.codec.encode("ata.tasks", "TaskAssignment", a), b"java-1", partition=3, offset=41)


def model(job="j", version=2):
    return {"job": job, "version": version, "parameters": b"", "encoding": "FLOAT32_LE", "chunk": 0, "chunks": 1,
            "task": None}


def decode_records(agent, records):
    names = {"ata.gradients": "TaskResult", "ata.timings": "TaskTiming", "ata.dead-letters": "DeadLetter"}
    return [(topic, partition, key, agent.codec.decode(names[topic], value)) for topic, partition, key, value in records]


def test_tasks_run_in_order_each_in_its_transaction_the_last_with_the_offset():
    agent = agent_with([model()])
    assert agent.handle(assignment(agent), time.monotonic()) == "completed"
    (first, no_offsets), (second, offsets) = agent.publisher.outputs
    assert no_offsets is None and offsets == [("ata.tasks", 3, 42)]
    topic, partition, key, result = decode_records(agent, first)[0]
    assert (topic, partition, key) == ("ata.gradients", 1, "j")  # tasks partition 3 modulo 2 gradients partitions
    assert result["worker_id"] == "py-1" and result["assigned_worker_id"] == "java-1"
    assert result["task_id"] == "j/3/0" and result["status"] == "COMPLETED" and result["samples"] == 8
    timing = decode_records(agent, first)[1][3]
    assert timing["task_id"] == "j/3/0" and timing["compute_ms"] == result["compute_ms"]
    assert agent.metrics.value("ata_agent_tasks_total", outcome="completed") == 2
    assert agent.metrics.value("ata_agent_task_overhead_seconds_count") == 2


def test_a_closed_round_is_skipped_with_its_offset():
    agent = agent_with([model(version=3)])
    assert agent.handle(assignment(agent), time.monotonic()) == "skipped_stale"
    assert agent.publisher.outputs == [([], [("ata.tasks", 3, 42)])]
    assert agent.metrics.value("ata_agent_tasks_total", outcome="not_run") == 2


@pytest.mark.parametrize("value, reason", [
    (b"\x00\x00\x00\x00\x63junk", "unknown schema id 99"),
    (b"", "empty"),
])
def test_undecodable_assignments_are_dead_lettered_with_the_offset(value, reason):
    agent = agent_with([model()])
    message = Message("ata.tasks", value, b"k", partition=3, offset=7)
    assert agent.handle(message, time.monotonic()) == "dead_lettered"
    (records, offsets), = agent.publisher.outputs
    assert offsets == [("ata.tasks", 3, 8)]
    topic, _, key, letter = decode_records(agent, records)[0]
    assert topic == "ata.dead-letters" and key == "ata.tasks" and reason in letter["reason"]
    assert letter["component"] == "worker-agent" and letter["offset"] == 7 and letter["value"] == value


def test_out_of_range_and_never_coming_assignments_are_dead_lettered():
    agent = agent_with([model()])
    for fields, reason in [({"round": 0}, "out of range"), ({"task_ids": []}, "without tasks"),
                           ({"model_version": 1 << 40}, "out of range"), ({"model_version": 5000}, "can never come")]:
        agent.publisher.outputs.clear()
        assert agent.handle(assignment(agent, **fields), time.monotonic()) == "dead_lettered", fields
        letter = decode_records(agent, agent.publisher.outputs[0][0])[0][3]
        assert reason in letter["reason"], (fields, letter["reason"])


def test_a_task_whose_round_closes_part_way_is_cancelled():
    agent = agent_with([model()], FakeWorkload(stop_after=0))
    agent.models.models["j"] = model(version=3)  # the round closes as the task computes
    agent.models.models["j"] = model(version=2)

    def compute_closes(model_, task_id, stop):
        agent.models.models["j"] = model(version=3)
        return None if stop() else (b"", "FLOAT32_LE", 0, 0)

    agent.workload.compute = compute_closes
    assert agent.handle(assignment(agent), time.monotonic()) == "stopped_round_closed"
    (records, offsets), = agent.publisher.outputs
    result = decode_records(agent, records)[0][3]
    assert result["status"] == "CANCELLED" and result["gradient"] == b"" and offsets == [("ata.tasks", 3, 42)]
    assert agent.metrics.value("ata_agent_tasks_total", outcome="cancelled") == 1


def test_large_gradients_travel_in_slices_of_one_payload():
    result = {"gradient": bytes(range(256)) * 10, "job": "j"}
    slices = result_slices(result, 1000, lambda: "p-1")
    assert [s["chunk"] for s in slices] == [0, 1, 2] and {s["chunks"] for s in slices} == {3}
    assert b"".join(s["gradient"] for s in slices) == result["gradient"]
    assert {s["payload_id"] for s in slices} == {"p-1"}
    assert result_slices({"gradient": b"abc"}, 1000, None) == [{"gradient": b"abc"}]


def test_assembler_bounds_and_refusals():
    a = ChunkAssembler(10, 1)
    assert a.offer("x", 0, 2, b"12345")[0] == "incomplete"
    assert a.offer("y", 0, 2, b"1")[1].startswith("more than 1")
    assert a.offer("x", 0, 2, b"12345") == ("refused", "chunk 0 of 2 arrived twice")
    assert a.offer("z", 1, 2, b"123456789012")[0] == "refused"
    assert a.offer("w", 0, 1, b"abc") == ("complete", b"abc")


def whole(version, values, **task):
    spec = {"network": "mlp:2,in=2,classes=2",
            "parameters": [{"name": "01Linear_weight", "shape": [2, 2]}, {"name": "01Linear_bias", "shape": [2]},
                           {"name": "03Linear_weight", "shape": [2, 2]}, {"name": "03Linear_bias", "shape": [2]}]}
    spec.update(task)
    return {"job": "j", "version": version, "parameters": tensor.encode(np.array(values, dtype=np.float32), "FLOAT32_LE"),
            "encoding": "FLOAT32_LE", "chunk": 0, "chunks": 1, "task": spec}


@pytest.mark.parametrize("job, hashed, of_7, of_2", [
    # as the Java client's Utils.murmur2 and Topics.partitionOfJob give them
    ("j1", -1868005524, 2, 0), ("demo-ata-auto", -1618888877, 5, 1), ("\u00fc", 1419834458, 0, 0),
    ("comeback", 260747363, 2, 1), ("", 275646681, 2, 1), ("a-little-bit-longer-string", -1486304829, 0, 1),
])
def test_a_jobs_partition_is_kafkas_murmur2_of_its_name(job, hashed, of_7, of_2):
    assert murmur2(job.encode("utf-8")) == hashed
    assert partition_of_job(job, 7) == of_7 and partition_of_job(job, 2) == of_2
    with pytest.raises(ValueError, match="partitions must be >= 1"):
        partition_of_job(job, 0)


def test_model_rules():
    assert whole_problem(whole(1, [0.0] * 12)) is None
    assert "parameter 3 is not finite" in whole_problem(whole(1, [0.0] * 3 + [float("nan")] + [0.0] * 8))
    assert "has 11 parameters" in whole_problem(whole(1, [0.0] * 11))
    assert "does not parse" in whole_problem(whole(1, [0.0] * 12, network="rnn"))
    assert "does not match" in whole_problem(whole(1, [0.0] * 12, network="mlp:3,in=2,classes=2"))


def test_chunked_versions_come_out_whole_and_older_ones_are_dropped():
    assembler = ModelAssembler()
    data = tensor.encode(np.arange(12, dtype=np.float32), "FLOAT32_LE")
    first = dict(whole(4, [0.0] * 12), parameters=data[:20], chunk=0, chunks=2)
    second = dict(first, parameters=data[20:], chunk=1, task=None)
    assert assembler.offer(first)[0] == "pending"
    outcome, model_ = assembler.offer(second)
    assert outcome == "whole" and model_["parameters"] == data and model_["task"] is not None and model_["chunks"] == 1
    assert assembler.offer(dict(first, version=5))[0] == "pending"
    assert assembler.offer(dict(first, version=6))[0] == "pending"
    assert len(assembler.slices.open) == 1  # version 5 gave way to 6


def model_datum(version):
    """A whole version of job j as the trainer writes it (every field of ModelVersion)."""
    datum = whole(version, [0.0] * 12)
    datum.update(objective=0.0, timestamp_ms=1, delivery_margin_ms=0.0, median_round_ms=0.0)
    datum["task"].update(dtype="float32", dataset="d", dataset_size=10, samples_per_task=2, sample_seed=0,
                         micro_batch=2)
    return datum


def following(cache, letters):
    """Makes ``cache`` decode and letter as the agent's does; a ``send(datum, key)`` that hands it a record."""
    codec = Codec(FakeRegistry())
    cache.decode = lambda v: codec.decode("ModelVersion", v)
    cache.dead_letter = lambda message, reason, error: letters.append(reason)

    def send(datum, key=b"j"):
        cache.accept(Message("ata.model", None if datum is None else codec.encode("ata.model", "ModelVersion", datum), key))

    return send


def test_the_model_cache_refuses_and_letters_bad_records():
    letters = []
    cache = ModelCache(None, "ata.model", None, None)
    send = following(cache, letters)
    ok = model_datum(2)
    send(ok)
    assert cache.latest("j")["version"] == 2
    send(None)
    send(dict(ok, version=1))
    send(dict(ok, version=1 << 60))
    send(dict(ok, version=3), key=b"other")
    send(dict(ok, version=3, parameters=tensor.encode(np.full(12, np.nan, dtype=np.float32), "FLOAT32_LE")))
    cache.accept(Message("ata.model", b"\x00\x00\x00\x00\x01garbage", b"j"))
    assert cache.latest("j")["version"] == 2
    assert [r.split(" ")[0] for r in letters] == ["tombstone", "model", "job", "model", "model", "malformed"]
    assert "goes backwards" in letters[1] and "out of range" in letters[2] and "not finite" in letters[4]


def test_the_model_cache_keeps_when_it_last_read_each_jobs_model():
    letters = []
    cache = ModelCache(None, "ata.model", None, None)
    send = following(cache, letters)
    assert cache.quiet_for("j") == math.inf  # nothing read yet
    send(model_datum(2))
    assert cache.quiet_for("j") < 0.2 and cache.quiet_for("other") == math.inf
    time.sleep(0.3)
    assert cache.quiet_for("j") >= 0.3  # it grows while nothing comes
    send(dict(model_datum(3), version=1))  # goes backwards
    send(model_datum(3), key=b"other")  # under a wrong key
    send(dict(model_datum(3), parameters=tensor.encode(np.full(12, np.nan, dtype=np.float32), "FLOAT32_LE")))
    assert len(letters) == 3 and cache.quiet_for("j") >= 0.3  # refused records say nothing of the job
    first = dict(model_datum(4), parameters=model_datum(4)["parameters"][:20], chunk=0, chunks=2)
    send(first, key=b"j#0")  # a slice stored
    assert cache.quiet_for("j") < 0.2 and cache.latest("j")["version"] == 2
    time.sleep(0.3)
    send(first, key=b"j#0")  # the same slice again: refused
    assert len(letters) == 4 and "arrived twice" in letters[3] and cache.quiet_for("j") >= 0.3
    send(first, key=b"j#0")
    time.sleep(0.3)
    send(dict(first, parameters=model_datum(4)["parameters"][20:], chunk=1, task=None), key=b"j#1")
    assert cache.latest("j")["version"] == 4 and cache.quiet_for("j") < 0.2  # the version kept


def test_dead_letters_cut_what_they_carry():
    letter = dead_letter("ata.tasks", 1, 2, b"k" * 10, b"v" * 100_000, "x" * 5000, ValueError("boom"), 7)
    assert letter["truncated"] and len(letter["value"]) == 65536 and letter["value_size"] == 100_000
    assert letter["key_size"] == 10 and len(letter["reason"]) == 4096 and letter["reason"].startswith("[payload truncated")
    assert letter["error_class"] == "ValueError"


class FakeTxProducer:
    def __init__(self, fail_on=None, fatal=True, abort_fails=False):
        self.log = []
        self.fail_on = fail_on
        self.fatal = fatal
        self.abort_fails = abort_fails
        self.commit_gate = threading.Event()
        self.commit_gate.set()

    def begin_transaction(self):
        self.log.append(("begin",))

    def produce(self, topic, key=None, value=None, partition=None):
        self.log.append(("send", value))

    def send_offsets_to_transaction(self, offsets, group, timeout):
        self.log.append(("offsets", offsets))

    def commit_transaction(self, timeout):
        self.commit_gate.wait(5)
        if self.fail_on is not None and any(e == ("send", self.fail_on) for e in self.log):
            from confluent_kafka import KafkaError, KafkaException
            if self.fatal:
                raise KafkaException(KafkaError(KafkaError._FENCED, "fenced", fatal=True))
            # an error librdkafka does not name, whose transaction must be aborted
            raise KafkaException(KafkaError(KafkaError.UNKNOWN, "unknown server error", txn_requires_abort=True))
        self.log.append(("commit",))

    def abort_transaction(self, timeout):
        self.log.append(("abort",))
        if self.abort_fails:
            from confluent_kafka import KafkaError, KafkaException
            raise KafkaException(KafkaError(KafkaError._STATE, "in an error state"))


def test_tasks_that_finish_during_a_commit_share_the_next():
    producer = FakeTxProducer()
    publisher = TransactionPublisher(producer)
    producer.commit_gate.clear()
    publisher.publish([("t", None, "k", b"1")])
    time.sleep(0.1)  # the first transaction is committing
    publisher.publish([("t", None, "k", b"2")])
    publisher.publish([("t", None, "k", b"3")])
    producer.commit_gate.set()
    publisher.publish_and_commit([("t", None, "k", b"4")], ["offset"], "group")
    begins = [i for i, e in enumerate(producer.log) if e == ("begin",)]
    assert len(begins) == 2, producer.log
    second = producer.log[begins[1]:]
    assert [e[1] for e in second if e[0] == "send"] == [b"2", b"3", b"4"] and ("offsets", ["offset"]) in second
    publisher.close()


def test_a_failed_transaction_is_raised_once_and_drops_what_waited():
    producer = FakeTxProducer(fail_on=b"bad")
    publisher = TransactionPublisher(producer)
    publisher.publish([("t", None, "k", b"bad")])
    with pytest.raises(Exception, match="cannot go on"):
        publisher.wait()
    publisher.wait()  # raised once
    publisher.close()


def test_a_producer_that_cannot_abort_is_unusable_and_new_clients_heal_it():
    producer = FakeTxProducer(fail_on=b"bad", fatal=False, abort_fails=True)
    publisher = TransactionPublisher(producer)
    publisher.publish([("t", None, "k", b"bad")])
    with pytest.raises(ProducerUnusableError, match="cannot abort after") as raised:
        publisher.wait()
    assert ("abort",) in producer.log and new_clients_heal(raised.value)
    publisher.close()


def test_an_error_that_leaves_the_producer_abortable_is_not_final():
    producer = FakeTxProducer(fail_on=b"bad", fatal=False)
    publisher = TransactionPublisher(producer)
    publisher.publish([("t", None, "k", b"bad")])
    with pytest.raises(Exception, match="unknown server error") as raised:
        publisher.wait()
    assert producer.log[-1] == ("abort",) and not isinstance(raised.value, FatalKafkaError)
    publisher.close()


def test_pacing_stretches_and_stops_when_the_round_closes():
    pacer = TaskPacer(Schedule(Distribution("constant", {"value": 80.0}), []), 1.0, 1)
    value, ms, cancelled = pacer.run(lambda stop: "v", lambda s: (time.sleep(s), False)[1], 1)
    assert value == "v" and not cancelled and ms >= 79
    value, ms, cancelled = pacer.run(lambda stop: "v", lambda s: s > 0, 1)
    assert cancelled and ms < 80
    assert time_model("linear", 3).shift == 87.0 and time_model("linear", 3).params == {"mean": 87.0}


def test_scenario_workers_and_their_changes(tmp_path):
    path = tmp_path / "fleet.json"
    path.write_text(json.dumps({"groups": [{"name": "gpu", "count": 2, "time": {"family": "constant", "value": 5}}],
                                "workers": [{"name": "py", "time": {"family": "exponential", "mean": 10},
                                             "changes": [{"after_round": 3, "time": {"family": "constant", "value": 1}}]}]}))
    schedule = load_scenario_worker(path, "py")
    assert schedule.time_in(3).family == "exponential" and schedule.time_in(4).params == {"value": 1.0}
    assert load_scenario_worker(path, "gpu-2").base.params == {"value": 5.0}
    with pytest.raises(ValueError, match="no worker named 'cpu'"):
        load_scenario_worker(path, "cpu")


def test_assignment_rules():
    ok = {"job": "j", "round": 1, "model_version": 0, "task_ids": ["j/1/0"]}
    assert assignment_problem(ok) is None
    assert "blank task id" in assignment_problem(dict(ok, task_ids=[" "]))
    assert "without job" in assignment_problem(dict(ok, job=" "))
    # "j#1" is the key of job j's model slice 1: the Java agents refuse it too
    assert "contains '#'" in assignment_problem(dict(ok, job="j#1"))


def test_job_names_follow_the_java_rule():
    from pyagent.topics import chunk_key, job_name_problem

    assert job_name_problem("demo-ata-auto") is None and job_name_problem("\u00e9" * 255) is None
    assert "contains '#'" in job_name_problem(chunk_key("a", 1, 3))
    assert "256 characters (at most 255)" in job_name_problem("j" * 256)
    # Java counts UTF-16 units: 128 characters outside the BMP are 256 of them
    assert "256 characters" in job_name_problem("\U0001F600" * 128)
    assert "control character" in job_name_problem("a\u0085b")
    assert "needs a name" in job_name_problem(" ")


# what Java's Character.isWhitespace takes for whitespace (Java 17, every code point), and what
# str.strip() takes for it but Java does not
JAVA_WHITESPACE = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \u1680" + "".join(map(chr, range(0x2000, 0x2007))) + \
    "\u2008\u2009\u200a\u2028\u2029\u205f\u3000"
NOT_JAVA_WHITESPACE = "\x85\u00a0\u2007\u202f"


def test_blank_is_what_javas_is_blank_means():
    from pyagent.topics import java_blank

    assert java_blank("") and java_blank(JAVA_WHITESPACE) and all(java_blank(c) for c in JAVA_WHITESPACE)
    for c in NOT_JAVA_WHITESPACE + "a\x00\x7f\u200b\ufeff":
        assert not java_blank(c) and not java_blank(" %s\u2028" % c), "U+%04X" % ord(c)
    assert all(not c.strip() for c in NOT_JAVA_WHITESPACE), "what str.strip() gets wrong"


def test_a_no_break_space_is_a_name_and_a_line_separator_is_blank_as_in_java():
    from pyagent.topics import job_name_problem

    ok = {"job": "j", "round": 1, "model_version": 0, "task_ids": ["j/1/0"]}
    for space in "\u00a0\u2007\u202f":
        assert job_name_problem(space) is None and job_name_problem("a%sb" % space) is None
        assert assignment_problem(dict(ok, job=space)) is None
        assert assignment_problem(dict(ok, task_ids=["j/1/0", space])) is None
        assert ModelCache._problem(None, model(job=space)) is None
    for blank in ("\u2028", "\u2029", "\x1c", "\x1f", "\u3000", " \t\u2003"):
        assert "needs a name" in job_name_problem(blank), repr(blank)
        assert assignment_problem(dict(ok, job=blank)) == "task assignment without job"
        assert "blank task id" in assignment_problem(dict(ok, task_ids=["j/1/0", blank]))
        assert ModelCache._problem(None, model(job=blank)) == "model version without job"
    assert "control character" in job_name_problem("\x85"), "no whitespace to Java: not blank"


def test_the_stalled_job_wait_is_ten_minutes_unless_told_and_must_be_positive(capsys):
    from pyagent.cli import main, parser

    cluster = ["--bootstrap-servers", "k:9092", "--schema-registry-url", "http://r:8081"]
    assert parser().parse_args(cluster).stalled_job_wait == 600.0 == AgentConfig("k:9092", "http://r").stalled_job_wait
    assert parser().parse_args(cluster + ["--stalled-job-wait", "90s"]).stalled_job_wait == 90.0
    assert main(cluster + ["--stalled-job-wait", "0"]) == 2
    assert "--stalled-job-wait must be positive" in capsys.readouterr().err


@pytest.mark.parametrize("text, seconds", [
    ("30", 30.0), ("0.5", 0.5), ("500ms", 0.5), ("1s", 1.0), ("2m", 120.0), ("1h", 3600.0), ("1.5H", 5400.0),
    ("PT1H", 3600.0), ("pt90s", 90.0), ("P1D", 86400.0), ("PT0.5S", 0.5), ("PT1H30M", 5400.0),
    ("p1dt2h", 93600.0), (" PT10S ", 10.0),
])
def test_durations_take_what_ata_worker_takes_and_plain_seconds(text, seconds):
    from pyagent.cli import duration

    assert duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["1x", "PT", "P", "-5s", "P1DT", "PT1S2M", "PT-5S", "h", "soon", ""])
def test_what_is_not_a_duration_is_refused_with_the_forms_it_may_take(text):
    import argparse

    from pyagent.cli import duration

    with pytest.raises(argparse.ArgumentTypeError, match=r"not a duration: .*1h or ISO-8601 \(PT10S"):
        duration(text)


def test_the_stalled_job_wait_takes_iso_8601_and_hours(capsys):
    from pyagent.cli import parser

    cluster = ["--bootstrap-servers", "k:9092", "--schema-registry-url", "http://r:8081"]
    assert parser().parse_args(cluster + ["--stalled-job-wait", "PT1H"]).stalled_job_wait == 3600.0
    assert parser().parse_args(cluster + ["--stalled-job-wait", "2h"]).stalled_job_wait == 7200.0
    with pytest.raises(SystemExit):
        parser().parse_args(cluster + ["--stalled-job-wait", "PT"])
    assert "'PT' is not a duration" in capsys.readouterr().err


def test_the_model_retention_is_a_day_unless_told_and_no_shorter_than_the_stalled_job_wait(capsys):
    from pyagent.cli import main, parser

    cluster = ["--bootstrap-servers", "k:9092", "--schema-registry-url", "http://r:8081"]
    assert parser().parse_args(cluster).model_retention == 86400.0 == AgentConfig("k:9092", "http://r").model_retention
    assert parser().parse_args(cluster + ["--model-retention", "2h"]).model_retention == 7200.0
    assert parser().parse_args(cluster + ["--model-retention", "P1D"]).model_retention == 86400.0
    assert parser().parse_args(cluster + ["--model-retention", "PT1H30M"]).model_retention == 5400.0
    assert parser().parse_args(cluster + ["--model-retention", "900"]).model_retention == 900.0
    assert parser().parse_args(cluster + ["--stalled-job-wait", "30s", "--model-retention", "1m"]).model_retention == 60.0
    with pytest.raises(SystemExit):
        parser().parse_args(cluster + ["--model-retention", "never"])
    assert "'never' is not a duration" in capsys.readouterr().err
    assert main(cluster + ["--model-retention", "5m"]) == 2
    assert "error: --model-retention must be at least --stalled-job-wait (600 s), was 300 s" in capsys.readouterr().err
    assert main(cluster + ["--stalled-job-wait", "2h", "--model-retention", "1h"]) == 2
    assert "at least --stalled-job-wait (7200 s), was 3600 s" in capsys.readouterr().err
    with pytest.raises(ValueError, match=r"the model retention \(300 s\) must be at least the stalled-job wait \(600 s\)"):
        AgentConfig("k:9092", "http://r", model_retention=300.0)
    assert AgentConfig("k:9092", "http://r", stalled_job_wait=30.0, model_retention=30.0).model_retention == 30.0
