"""A mixed fleet, end to end: Kafka and the broker (``./ata kafka``, ``./ata broker``), two Java
agents (``./ata worker``) and one Python agent (``python3 -m pyagent``) on loopback ports, and one
job (``./ata trainer``) on a generated IDX data set.

Every round closes with B results; the Python agent's results are accepted and the broker learns
its statistics like any other's; each model version equals SGD on the mean of the round's accepted
gradients, whichever runtime computed them, and every accepted gradient (Java's too) is what the
Python agent computes for that task. Then hostile records on the Python agent's task partition and
on the model topic: it dead-letters each with its reason and keeps working (a second job closes).
"""

from __future__ import annotations

import os
import re
import struct
import time

import pytest

from conftest import missing_packages

if missing_packages():
    pytest.skip("the mixed-fleet test needs the Debian packages %s" % ", ".join(missing_packages()),
                allow_module_level=True)

import numpy as np  # noqa: E402

from kafka_tools import await_ready, await_workers, get_json, metric, python_agent_command, python_env, read_topic  # noqa: E402
from conftest import ata_command  # noqa: E402
from pyagent import tensor  # noqa: E402
from pyagent.codec import Codec, schema_id_of  # noqa: E402
from pyagent.data import generated_images, training_set, write_idx  # noqa: E402
from pyagent.network import NetworkSpec, TaskComputer  # noqa: E402
from pyagent.registry import RegistryClient  # noqa: E402
from pyagent.samples import task_samples  # noqa: E402

pytestmark = pytest.mark.e2e

BATCH = 6
ROUNDS = 10
LEARNING_RATE = 0.05
NETWORK = "mlp:32"
PY = "py-1"
JAVA = ("java-1", "java-2")


@pytest.fixture(scope="module")
def fleet(cluster, tmp_path_factory):
    folder = tmp_path_factory.mktemp("data")
    pixels, labels = generated_images(800, seed=11)
    data_dir = write_idx(folder / "shapes", pixels[:600], labels[:600], pixels[600:], labels[600:])
    agents = []
    for worker in JAVA:
        agents.append(cluster.start(worker, ata_command() + [
            "worker", "--bootstrap-servers", cluster.bootstrap, "--schema-registry-url", cluster.registry,
            "--worker-id", worker, "--threads", "1", "--heartbeat-interval", "500ms"]))
    python = cluster.start(PY, python_agent_command(cluster.bootstrap, cluster.registry, PY,
                                                    "--heartbeat-interval", "500ms"), env=python_env())
    metrics_url = python.wait_for(r"metrics=(\S+)", 120).group(1)
    await_workers(cluster.http, list(JAVA) + [PY])
    yield {"cluster": cluster, "data": str(data_dir), "python": python, "metrics": metrics_url}


def run_trainer(cluster, job, data, rounds, timeout=300, extra=()):
    trainer = cluster.start("trainer-" + job, ata_command() + [
        "trainer", "--bootstrap-servers", cluster.bootstrap, "--schema-registry-url", cluster.registry,
        "--job", job, "--model", NETWORK, "--data", data, "--batch", str(BATCH), "--rounds", str(rounds),
        "--samples-per-task", "16", "--micro-batch", "8", "--learning-rate", str(LEARNING_RATE),
        "--norm-factor", "Infinity", "--eval-every", "0"] + list(extra))
    trainer.wait_for(r"job %s finished at round %d" % (job, rounds), timeout)
    assert trainer.proc.wait(60) == 0, trainer.tail()
    return trainer.lines


def test_a_mixed_fleet_trains_one_job(fleet):
    cluster = fleet["cluster"]
    lines = run_trainer(cluster, "mixed", fleet["data"], ROUNDS)
    accepted = [int(m.group(1)) for m in (re.search(r"\(accepted (\d+),", line) for line in lines) if m]
    assert accepted == [BATCH] * ROUNDS, lines

    codec = Codec(RegistryClient(cluster.registry))
    closed = {}
    for message in read_topic(cluster.bootstrap, "ata.rounds"):
        event = codec.decode("RoundEvent", message.value())
        if event["job"] == "mixed" and event["type"] == "CLOSED":
            closed[event["round"]] = [(t["worker_id"], t["task_id"]) for t in event["timings"] if t["status"] == "COMPLETED"]
    assert sorted(closed) == list(range(1, ROUNDS + 1))
    by_worker = {}
    for pairs in closed.values():
        assert len(pairs) == BATCH
        for worker, _ in pairs:
            by_worker[worker] = by_worker.get(worker, 0) + 1
    assert by_worker.get(PY, 0) > 0, "the Python agent's results were accepted: %s" % by_worker

    results = {}
    ids = {}
    for message in read_topic(cluster.bootstrap, "ata.gradients"):
        r = codec.decode("TaskResult", message.value())
        if r["job"] == "mixed" and r["status"] == "COMPLETED":
            results.setdefault((r["worker_id"], r["task_id"]), r)
            ids.setdefault(r["worker_id"], set()).add(schema_id_of(message.value()))
    assert len({frozenset(s) for s in ids.values()}) == 1, "Java and Python results carry one schema id: %s" % ids
    models = {}
    for message in read_topic(cluster.bootstrap, "ata.model"):
        m = codec.decode("ModelVersion", message.value())
        if m["job"] == "mixed":
            models[m["version"]] = m  # one record a version: the model is small
    task = models[0]["task"]
    spec = NetworkSpec.parse(task["network"])
    data = training_set(fleet["data"])
    computer = TaskComputer(spec, task["micro_batch"])
    worst_gradient = 0.0
    worst_update = 0.0
    for k in range(1, ROUNDS + 1):
        before = tensor.decode_floats(models[k - 1]["parameters"], "FLOAT32_LE")
        after = tensor.decode_floats(models[k]["parameters"], "FLOAT32_LE")
        computer.use(k - 1, before)
        gradients = []
        for worker, task_id in closed[k]:
            r = results[(worker, task_id)]
            g = tensor.decode(r["gradient"], r["encoding"]).astype(np.float64)
            gradients.append(g)
            idx = task_samples(task["sample_seed"], task_id, task["dataset_size"], task["samples_per_task"])
            mine = computer.compute(data.features(idx), data.targets(idx), lambda: False)[0]
            worst_gradient = max(worst_gradient, np.linalg.norm(mine - g) / np.linalg.norm(g))
        expected = before.astype(np.float64) - LEARNING_RATE * np.mean(gradients, axis=0)
        worst_update = max(worst_update, np.max(np.abs(after - expected) / (np.abs(expected) + 1e-3)))
    print("accepted results by worker %s; worst relative gradient difference %.2e, update %.2e"
          % (by_worker, worst_gradient, worst_update))
    assert worst_gradient < 1e-5, "the accepted gradients are what any runtime computes"
    assert worst_update < 1e-5, "each version is SGD on the mean of the accepted gradients"

    stats = get_json(cluster.http + "/jobs/mixed/stats")
    learned = {w["worker"]: w for w in stats["workers"]}
    assert learned[PY]["tasks"] > 0 and learned[PY]["mean_ms"] > 0, stats
    assert metric(fleet["metrics"], "ata_agent_tasks_total", outcome="completed") >= by_worker[PY]
    for topic in ("ata.gradients", "ata.timings", "ata.workers", "ata.tasks", "ata.model"):
        versions = get_json("%s/subjects/%s-value/versions" % (cluster.registry, topic))
        assert versions == [1], "%s: the Python agent's schema is the Java parts' (%s)" % (topic, versions)


def test_hostile_records_are_dead_lettered_and_the_agent_goes_on(fleet):
    from confluent_kafka import Producer

    cluster = fleet["cluster"]
    codec = Codec(RegistryClient(cluster.registry))
    workers = {w["worker"]: w for w in get_json(cluster.http + "/workers")}
    partition = workers[PY]["partitions"][0]
    valid = codec.encode("ata.tasks", "TaskAssignment", {
        "job": "mixed", "round": 1, "model_version": 0, "worker_id": PY, "partition": partition,
        "task_ids": ["mixed/1/0"], "batch": BATCH, "policy": "", "created_ms": 1, "deadline_ms": 0.0, "backup_of": ""})
    never = codec.encode("ata.tasks", "TaskAssignment", {
        "job": "nomodel", "round": 1_000_001, "model_version": 1_000_000, "worker_id": PY, "partition": partition,
        "task_ids": ["nomodel/1000001/0"], "batch": 1, "policy": "", "created_ms": 1, "deadline_ms": 0.0,
        "backup_of": ""})
    zero_round = codec.encode("ata.tasks", "TaskAssignment", {
        "job": "mixed", "round": 0, "model_version": 0, "worker_id": PY, "partition": partition,
        "task_ids": ["mixed/0/0"], "batch": 1, "policy": "", "created_ms": 1, "deadline_ms": 0.0, "backup_of": ""})
    unknown_schema = b"\x00" + struct.pack(">I", 999_999) + valid[5:]
    oversize = b"\x00\x00\x00\x00\x01" + os.urandom(200_000)
    bad_tasks = [
        (b"", "empty"), (os.urandom(64), ""), (valid[: len(valid) // 2], "malformed"),
        (unknown_schema, "unknown schema id"), (oversize, "truncated"),
        (never, "can never come"), (zero_round, "out of range"),
    ]
    nan_model = codec.encode("ata.model", "ModelVersion", {
        "job": "ghost", "version": 1 << 60, "parameters": tensor.encode(np.full(4, np.nan, dtype=np.float32), "FLOAT32_LE"),
        "encoding": "FLOAT32_LE", "chunk": 0, "chunks": 1, "task": None, "objective": 0.0, "timestamp_ms": 1,
        "delivery_margin_ms": 0.0, "median_round_ms": 0.0})
    bad_models = [(b"ghost", nan_model, "out of range"), (b"ghost", None, "tombstone"),
                  (b"ghost", os.urandom(64), "")]
    letters_before = metric(fleet["metrics"], "ata_agent_dead_letters_total")
    producer = Producer({"bootstrap.servers": cluster.bootstrap})
    sent = {}

    def remember(key):
        def delivered(err, msg):
            assert err is None, err
            sent[(msg.topic(), msg.partition(), msg.offset())] = key
        return delivered

    for value, reason in bad_tasks:
        producer.produce("ata.tasks", key=PY, value=value, partition=partition, on_delivery=remember(reason))
    for key, value, reason in bad_models:
        producer.produce("ata.model", key=key, value=value, on_delivery=remember(reason))
    producer.flush(30)
    assert len(sent) == len(bad_tasks) + len(bad_models)

    expected = len(bad_tasks) + len(bad_models)
    deadline = time.monotonic() + 120
    while metric(fleet["metrics"], "ata_agent_dead_letters_total") - letters_before < expected:
        assert fleet["python"].proc.poll() is None, "the Python agent died: " + fleet["python"].tail()
        assert time.monotonic() < deadline, "dead letters so far: %s" % (
            metric(fleet["metrics"], "ata_agent_dead_letters_total") - letters_before)
        time.sleep(0.5)
    letters = {}
    for message in read_topic(cluster.bootstrap, "ata.dead-letters"):
        letter = codec.decode("DeadLetter", message.value())
        letters.setdefault((letter["source_topic"], letter["partition"], letter["offset"]), []).append(letter)
    for where, reason in sent.items():
        mine = letters.get(where, [])
        assert mine, "no dead letter of %s (%s)" % (where, reason)
        assert all(reason in letter["reason"] for letter in mine), (where, [l["reason"] for l in mine])
        if where[0] == "ata.tasks":
            assert len(mine) == 1, "only the partition's owner letters a task record: %s" % mine
    assert metric(fleet["metrics"], "ata_agent_dead_letters_total", source="ata.tasks") >= len(bad_tasks)

    lines = run_trainer(cluster, "after-fuzz", fleet["data"], 4)
    assert [int(m.group(1)) for m in (re.search(r"\(accepted (\d+),", l) for l in lines) if m] == [BATCH] * 4
    assert fleet["python"].proc.poll() is None, "the Python agent still runs"
    alive = {w["worker"]: w for w in get_json(cluster.http + "/workers")}
    assert alive[PY]["status"] == "ALIVE"


def test_the_python_agent_starts_over_after_losing_its_producers_epoch(fleet):
    """A producer of the Python agent's transactional id initializes, which takes the agent's
    epoch at once, as the coordinator does when a pause outlasts the transaction timeout. The
    agent's next transaction fails and its supervisor starts a new agent under the same ids; the
    job's rounds close meanwhile (the broker gives the silent agent's tasks to others). Once the new
    agent is ready, its results count: a second job's rounds close with its results committed."""
    from confluent_kafka import Producer
    from pyagent.topics import Topics

    cluster = fleet["cluster"]
    intruder = Producer({"bootstrap.servers": cluster.bootstrap,
                         "transactional.id": Topics("ata.").agent_transactional_id(PY)})
    intruder.init_transactions(30)
    # uta: every round gives each agent B / 3 tasks, so the Python agent meets the loss in round 1
    lines = run_trainer(cluster, "epoch", fleet["data"], 4, extra=("--policy", "uta"))
    assert [int(m.group(1)) for m in (re.search(r"\(accepted (\d+),", l) for l in lines) if m] == [BATCH] * 4
    assert "starting over with new clients" in fleet["python"].tail(200), fleet["python"].tail()
    # the new agent may still be starting (new clients, the model topic read again) on a busy
    # machine: the first job need not wait for it, the second one starts when it is ready
    await_ready(fleet["metrics"].replace("/metrics", "/ready"), fleet["python"])
    lines = run_trainer(cluster, "epoch-after", fleet["data"], 4, extra=("--policy", "uta"))
    assert [int(m.group(1)) for m in (re.search(r"\(accepted (\d+),", l) for l in lines) if m] == [BATCH] * 4
    assert fleet["python"].proc.poll() is None, "the Python agent still runs"
    codec = Codec(RegistryClient(cluster.registry))
    mine = [r for r in (codec.decode("TaskResult", m.value()) for m in read_topic(cluster.bootstrap, "ata.gradients"))
            if r["job"] == "epoch-after" and r["worker_id"] == PY and r["status"] == "COMPLETED"]
    assert mine, "the new agent's results were committed"
    assert metric(fleet["metrics"], "ata_agent_restarts_total") == 1
    alive = {w["worker"]: w for w in get_json(cluster.http + "/workers")}
    assert alive[PY]["status"] == "ALIVE" and alive[PY]["partitions"], alive[PY]


def test_the_python_agent_leaves_cleanly_on_sigterm(fleet):
    cluster = fleet["cluster"]
    assert fleet["python"].stop() == 0, fleet["python"].tail()
    deadline = time.monotonic() + 30
    while True:
        workers = {w["worker"]: w for w in get_json(cluster.http + "/workers")}
        if workers[PY]["status"] == "LEAVING":
            break
        assert time.monotonic() < deadline, workers[PY]
        time.sleep(0.5)
    assert workers[PY]["partitions"] == []
    assert "stopped" in fleet["python"].tail(5)
