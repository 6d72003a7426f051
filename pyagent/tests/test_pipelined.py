"""Python agents under pipelined allocation, end to end: a broker started with ``ata broker
--pipelined-allocation`` (named, whatever the default; beside the session's broker, on topics of
their own prefix) sends round k+1's assignments at model version k as round k opens; two Python
agents park them instead of waiting, run them when version k comes, and every round of a job
closes with B results, nothing dead-lettered. Then, on the real consumer group, the offsets: a
round planned ahead with a backup copy of the open round behind it in one partition; the copy runs
at once while the committed offset stays at the parked record, which runs once its version comes,
the offset moving past both.
"""

from __future__ import annotations

import time

import pytest

from conftest import missing_packages

if missing_packages():
    pytest.skip("the pipelined-allocation test needs the Debian packages %s" % ", ".join(missing_packages()),
                allow_module_level=True)

from kafka_tools import (  # noqa: E402
    await_workers, completed_by_round, get_json, metric, python_agent_command, python_env, read_topic,
    small_data_set, start_broker, train_small_job)
from pyagent.codec import Codec  # noqa: E402
from pyagent.registry import RegistryClient  # noqa: E402
from pyagent.topics import Topics, chunk_key  # noqa: E402

pytestmark = pytest.mark.e2e

PREFIX = "pipelined."
BATCH = 4
ROUNDS = 12
AGENTS = ("py-pipelined-1", "py-pipelined-2")
JOB = "pipelined"


@pytest.fixture(scope="module")
def fleet(cluster, tmp_path_factory):
    folder = tmp_path_factory.mktemp("pipelined")
    data_dir = small_data_set(folder, seed=5)
    broker, http = start_broker(cluster, "broker-pipelined", PREFIX, folder, "--pipelined-allocation")
    agents = {}
    for worker in AGENTS:
        agent = cluster.start(worker, python_agent_command(
            cluster.bootstrap, cluster.registry, worker, "--topic-prefix", PREFIX, "--heartbeat-interval", "500ms"),
            env=python_env())
        agents[worker] = agent
    metrics = {worker: agent.wait_for(r"metrics=(\S+)", 120).group(1) for worker, agent in agents.items()}
    await_workers(http, list(AGENTS))
    yield {"cluster": cluster, "data": data_dir, "agents": agents, "metrics": metrics, "http": http}
    for agent in agents.values():
        agent.stop()
    broker.stop()


def test_every_round_closes_with_the_rounds_planned_ahead_parked(fleet):
    cluster = fleet["cluster"]
    job = JOB
    train_small_job(cluster, PREFIX, job, fleet["data"], BATCH, ROUNDS)
    closed = {r: set(workers) for r, workers in completed_by_round(cluster, PREFIX, job).items()}
    assert sorted(closed) == list(range(1, ROUNDS + 1))
    assert set().union(*closed.values()) <= set(AGENTS)
    # the pipelined path was taken, not only allowed (an agent may park now and then without it:
    # when an assignment overtakes its model version on the way)
    assert metric(fleet["http"] + "/metrics", "ata_broker_rounds_planned_ahead_total") > 0

    parked = {w: metric(url, "ata_agent_assignments_parked_total") for w, url in fleet["metrics"].items()}
    letters = {w: metric(url, "ata_agent_dead_letters_total") for w, url in fleet["metrics"].items()}
    print("assignments parked by agent %s" % parked)
    assert sum(parked.values()) > 0, "the agents parked the rounds planned ahead: %s" % parked
    assert sum(letters.values()) == 0, "no agent dead-lettered anything: %s" % letters
    codec = Codec(RegistryClient(cluster.registry))
    waited_out = [codec.decode("DeadLetter", m.value())["reason"] for m in read_topic(cluster.bootstrap,
                                                                                     PREFIX + "dead-letters")]
    assert not [r for r in waited_out if "did not arrive" in r], waited_out
    for worker, agent in fleet["agents"].items():
        assert agent.proc.poll() is None, "%s still runs: %s" % (worker, agent.tail())


def await_true(what, check, timeout=120.0):
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


def test_no_commit_passes_a_parked_assignment(fleet):
    """After the job above: its newest model is ROUNDS. Round ROUNDS + 2 (version ROUNDS + 1) is
    parked; a backup copy of round ROUNDS + 1 behind it runs at once."""
    from confluent_kafka import Consumer, Producer, TopicPartition

    cluster = fleet["cluster"]
    codec = Codec(RegistryClient(cluster.registry))
    worker = AGENTS[0]
    url = fleet["metrics"][worker]
    partition = {w["worker"]: w for w in get_json(fleet["http"] + "/workers")}[worker]["partitions"][0]
    newest = [codec.decode("ModelVersion", m.value()) for m in read_topic(cluster.bootstrap, PREFIX + "model")]
    newest = [m for m in newest if m["job"] == JOB and m["version"] == ROUNDS]
    assert len(newest) == 1, "one record of the job's last version (a small model)"

    def assignment(round_, version, task, backup_of=""):
        return codec.encode(PREFIX + "tasks", "TaskAssignment", {
            "job": JOB, "round": round_, "model_version": version, "worker_id": worker, "partition": partition,
            "task_ids": ["%s/%d/%d" % (JOB, round_, task)], "batch": BATCH, "policy": "", "created_ms": 1,
            "deadline_ms": 0.0, "backup_of": backup_of})

    offsets = []
    producer = Producer({"bootstrap.servers": cluster.bootstrap})

    def send(topic, key, value, **where):
        producer.produce(topic, key=key, value=value, on_delivery=lambda err, msg: offsets.append((err, msg.offset())),
                         **where)
        producer.flush(30)
        err, offset = offsets.pop()
        assert err is None, err
        return offset

    group = Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": Topics(PREFIX).worker_group(),
                      "enable.auto.commit": False})

    def committed():
        return group.committed([TopicPartition(PREFIX + "tasks", partition)], timeout=10)[0].offset

    try:
        parked_before = metric(url, "ata_agent_assignments_parked_total")
        completed_before = metric(url, "ata_agent_tasks_total", outcome="completed")
        ahead = send(PREFIX + "tasks", worker, assignment(ROUNDS + 2, ROUNDS + 1, 0), partition=partition)
        backup = send(PREFIX + "tasks", worker, assignment(ROUNDS + 1, ROUNDS, 5, backup_of=AGENTS[1]),
                      partition=partition)
        assert backup > ahead
        await_true("the backup copy ran", lambda: metric(url, "ata_agent_tasks_total", outcome="completed")
                   == completed_before + 1)
        assert metric(url, "ata_agent_assignments_parked_total") == parked_before + 1
        assert committed() == ahead, "the committed offset stays at the parked record"

        model = dict(newest[0], version=ROUNDS + 1, timestamp_ms=int(time.time() * 1000))
        send(PREFIX + "model", chunk_key(JOB, 0, 1), codec.encode(PREFIX + "model", "ModelVersion", model))
        await_true("the parked assignment ran", lambda: metric(url, "ata_agent_tasks_total", outcome="completed")
                   == completed_before + 2)
        await_true("the committed offset moved past both", lambda: committed() == backup + 1, 30)
    finally:
        group.close()
    results = [codec.decode("TaskResult", m.value()) for m in read_topic(cluster.bootstrap, PREFIX + "gradients")]
    ran = {(r["task_id"], r["model_version"]) for r in results if r["worker_id"] == worker and r["round"] > ROUNDS}
    assert ran == {("%s/%d/5" % (JOB, ROUNDS + 1), ROUNDS), ("%s/%d/0" % (JOB, ROUNDS + 2), ROUNDS + 1)}
    assert metric(url, "ata_agent_dead_letters_total") == 0
