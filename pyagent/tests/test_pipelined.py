"""Python agents under pipelined allocation, end to end: a broker started with ``ata broker
--pipelined-allocation`` (beside the session's, on topics of their own prefix) sends round k+1's
assignments at model version k as round k opens; two Python agents park them instead of waiting,
run them when version k comes, and every round of a job closes with B results, nothing
dead-lettered.
"""

from __future__ import annotations

import re

import pytest

from conftest import missing_packages

if missing_packages():
    pytest.skip("the pipelined-allocation test needs the Debian packages %s" % ", ".join(missing_packages()),
                allow_module_level=True)

from kafka_tools import await_workers, metric, python_agent_command, python_env, read_topic  # noqa: E402
from conftest import ata_command  # noqa: E402
from pyagent.codec import Codec  # noqa: E402
from pyagent.data import generated_images, write_idx  # noqa: E402
from pyagent.registry import RegistryClient  # noqa: E402

pytestmark = pytest.mark.e2e

PREFIX = "pipelined."
BATCH = 4
ROUNDS = 12
AGENTS = ("py-pipelined-1", "py-pipelined-2")


@pytest.fixture(scope="module")
def fleet(cluster, tmp_path_factory):
    folder = tmp_path_factory.mktemp("pipelined")
    pixels, labels = generated_images(400, seed=5)
    data_dir = write_idx(folder / "shapes", pixels[:300], labels[:300], pixels[300:], labels[300:])
    broker = cluster.start("broker-pipelined", ata_command() + [
        "broker", "--bootstrap-servers", cluster.bootstrap, "--schema-registry-url", cluster.registry,
        "--topic-prefix", PREFIX, "--create-topics", "--task-partitions", "4", "--pipelined-allocation",
        "--http-port", "0", "--liveness-timeout", "5s", "--state-dir", str(folder / "broker-state")])
    http = broker.wait_for(r"^http=(\S+)", 180).group(1)
    agents = {}
    for worker in AGENTS:
        agent = cluster.start(worker, python_agent_command(
            cluster.bootstrap, cluster.registry, worker, "--topic-prefix", PREFIX, "--heartbeat-interval", "500ms"),
            env=python_env())
        agents[worker] = agent
    metrics = {worker: agent.wait_for(r"metrics=(\S+)", 120).group(1) for worker, agent in agents.items()}
    await_workers(http, list(AGENTS))
    yield {"cluster": cluster, "data": str(data_dir), "agents": agents, "metrics": metrics, "http": http}
    for agent in agents.values():
        agent.stop()
    broker.stop()


def test_every_round_closes_with_the_rounds_planned_ahead_parked(fleet):
    cluster = fleet["cluster"]
    job = "pipelined"
    trainer = cluster.start("trainer-" + job, ata_command() + [
        "trainer", "--bootstrap-servers", cluster.bootstrap, "--schema-registry-url", cluster.registry,
        "--topic-prefix", PREFIX, "--job", job, "--model", "mlp:16", "--data", fleet["data"],
        "--batch", str(BATCH), "--rounds", str(ROUNDS), "--samples-per-task", "8", "--micro-batch", "8",
        "--learning-rate", "0.05", "--eval-every", "0"])
    trainer.wait_for(r"job %s finished at round %d" % (job, ROUNDS), 600)
    assert trainer.proc.wait(60) == 0, trainer.tail()
    accepted = [int(m.group(1)) for m in (re.search(r"\(accepted (\d+),", line) for line in trainer.lines) if m]
    assert accepted == [BATCH] * ROUNDS, trainer.lines

    codec = Codec(RegistryClient(cluster.registry))
    closed = {}
    for message in read_topic(cluster.bootstrap, PREFIX + "rounds"):
        event = codec.decode("RoundEvent", message.value())
        if event["job"] == job and event["type"] == "CLOSED":
            closed[event["round"]] = {t["worker_id"] for t in event["timings"] if t["status"] == "COMPLETED"}
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
    waited_out = [codec.decode("DeadLetter", m.value())["reason"] for m in read_topic(cluster.bootstrap,
                                                                                     PREFIX + "dead-letters")]
    assert not [r for r in waited_out if "did not arrive" in r], waited_out
    for worker, agent in fleet["agents"].items():
        assert agent.proc.poll() is None, "%s still runs: %s" % (worker, agent.tail())
