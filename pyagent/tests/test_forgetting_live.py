"""A job's model forgotten and read again, on the real Kafka (the session's cluster, topics of their
own prefix, no broker): an agent whose model retention is 3 s reads a hand-published model version,
forgets it once it has been quiet that long, and when an assignment of the job comes after all,
reads the job's partition of the model topic again and runs it, instead of dead-lettering it as of
a job without a model.
"""

from __future__ import annotations

import threading
import time

import pytest

from conftest import missing_packages

if missing_packages():
    pytest.skip("the model retention test needs the Debian packages %s" % ", ".join(missing_packages()),
                allow_module_level=True)

from kafka_tools import read_topic  # noqa: E402
from pyagent.agent import AgentConfig, WorkerAgent  # noqa: E402
from pyagent.codec import Codec  # noqa: E402
from pyagent.registry import RegistryClient  # noqa: E402
from pyagent.topics import Topics, partition_of_job  # noqa: E402
from test_loop import FakeWorkload, model_datum  # noqa: E402

pytestmark = pytest.mark.e2e

PREFIX = "forgetting-%d." % (time.time() * 1000)  # its own topics, on a cluster used before too
JOB = "comeback"
WORKER = "py-forgetting"
PATIENCE = 60.0


def create_topics(bootstrap):
    from confluent_kafka.admin import AdminClient, NewTopic

    topics = Topics(PREFIX)
    admin = AdminClient({"bootstrap.servers": bootstrap})
    wanted = [NewTopic(topics.model, 2, 1, config={"cleanup.policy": "compact"})]
    wanted += [NewTopic(name, 1, 1) for name in (topics.tasks, topics.gradients, topics.timings, topics.workers,
                                                  topics.dead_letters)]
    for future in admin.create_topics(wanted, operation_timeout=30).values():
        future.result(60)


def await_true(what, check, timeout=PATIENCE):
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def test_a_jobs_model_forgotten_after_the_retention_is_read_again_when_the_job_comes_back(cluster):
    from confluent_kafka import Producer

    create_topics(cluster.bootstrap)
    topics = Topics(PREFIX)
    codec = Codec(RegistryClient(cluster.registry))
    producer = Producer({"bootstrap.servers": cluster.bootstrap})

    def send(topic, key, value, **where):
        failures = []
        producer.produce(topic, key=key, value=value, on_delivery=lambda err, msg: failures.append(err), **where)
        producer.flush(30)
        assert failures == [None], failures

    # as the trainer writes it: to the job's partition, in a transaction (whose marker ends the partition)
    trainer = Producer({"bootstrap.servers": cluster.bootstrap, "transactional.id": PREFIX + "trainer"})
    trainer.init_transactions(30)
    trainer.begin_transaction()
    trainer.produce(topics.model, key=JOB, value=codec.encode(topics.model, "ModelVersion", dict(model_datum(0), job=JOB)),
                    partition=partition_of_job(JOB, 2))
    trainer.commit_transaction(30)
    config = AgentConfig(cluster.bootstrap, cluster.registry, worker_id=WORKER, topic_prefix=PREFIX,
                         heartbeat_interval=0.5, model_wait=1.0, stalled_job_wait=2.0, model_retention=3.0)
    agent = WorkerAgent(config, FakeWorkload())
    runs = threading.Thread(target=agent.run, name="agent-" + WORKER, daemon=True)
    runs.start()
    try:
        await_true("the model read", lambda: agent.models.jobs() == 1)
        await_true("the model forgotten once quiet for 3 s", lambda: agent.models.jobs() == 0)
        await_true("the agent owns the task partition", lambda: agent.owned.snapshot() == [0])

        # the job is back
        send(topics.tasks, WORKER, codec.encode(topics.tasks, "TaskAssignment", {
            "job": JOB, "round": 1, "model_version": 0, "worker_id": WORKER, "partition": 0,
            "task_ids": ["%s/1/0" % JOB], "batch": 1, "policy": "", "created_ms": 1, "deadline_ms": 0.0,
            "backup_of": ""}), partition=0)

        await_true("the assignment ran or was dead-lettered", lambda: agent.metrics.value(
            "ata_agent_assignments_total", outcome="completed") + agent.metrics.dead_letters() > 0)
        letters = [codec.decode("DeadLetter", m.value())["reason"] for m in read_topic(cluster.bootstrap,
                                                                                       topics.dead_letters)]
        assert letters == [], "nothing refused"
        results = [codec.decode("TaskResult", m.value()) for m in read_topic(cluster.bootstrap, topics.gradients)]
        assert [(r["task_id"], r["model_version"], r["status"]) for r in results] == [
            ("%s/1/0" % JOB, 0, "COMPLETED")], "the assignment ran on the model read again"
        assert agent.models.jobs() == 1
        assert runs.is_alive() and agent.failure is None, agent.failure
    finally:
        agent.request_stop()
        runs.join(30)
