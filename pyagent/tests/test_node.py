"""A node of several devices, end to end: ``python3 -m pyagent --device cpu,cpu`` beside a broker
of its own topics runs two workers, ``<worker id>-0`` and ``-1``, each a process and a member of
the fleet; a job trains on both; the node stops as one, cleanly on SIGTERM (both say LEAVING, exit
status 0), and when one worker dies (the other is stopped, the node's exit status is not 0)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from conftest import missing_packages

if missing_packages():
    pytest.skip("the node test needs the Debian packages %s" % ", ".join(missing_packages()), allow_module_level=True)

from kafka_tools import (  # noqa: E402
    await_workers, completed_by_round, get_json, python_agent_command, python_env, small_data_set, start_broker,
    train_small_job)

pytestmark = pytest.mark.e2e

PREFIX = "node."
BATCH = 4
ROUNDS = 8


@pytest.fixture(scope="module")
def topics(cluster, tmp_path_factory):
    folder = tmp_path_factory.mktemp("node")
    data_dir = small_data_set(folder, seed=7)
    broker, http = start_broker(cluster, "broker-node", PREFIX, folder)
    yield {"cluster": cluster, "data": data_dir, "http": http}
    broker.stop()


def start_node(cluster, http, node_id):
    node = cluster.start(node_id, python_agent_command(
        cluster.bootstrap, cluster.registry, node_id, "--topic-prefix", PREFIX, "--heartbeat-interval", "500ms",
        "--device", "cpu,cpu"), env=python_env())
    workers = [node_id + "-0", node_id + "-1"]
    await_workers(http, workers)
    return node, workers


def statuses(http, workers):
    return {w["worker"]: w["status"] for w in get_json(http + "/workers") if w["worker"] in workers}


def await_statuses(http, workers, status, timeout=60.0):
    deadline = time.monotonic() + timeout
    while True:
        seen = statuses(http, workers)
        if all(seen.get(w) == status for w in workers):
            return
        assert time.monotonic() < deadline, "not every worker of %s %s: %s" % (workers, status, seen)
        time.sleep(0.5)


def children(pid):
    """The processes ``pid`` started (Linux)."""
    path = Path("/proc/%d/task/%d/children" % (pid, pid))
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def test_a_node_of_two_workers_trains_a_job_on_both_and_stops_as_one_on_sigterm(topics):
    cluster, http = topics["cluster"], topics["http"]
    node, workers = start_node(cluster, http, "pynode")
    assert len(children(node.proc.pid)) == 2, "a process per device"

    job = "node-job"
    train_small_job(cluster, PREFIX, job, topics["data"], BATCH, ROUNDS, "--policy", "uta")
    by_worker = {}
    for completed in completed_by_round(cluster, PREFIX, job).values():
        for worker in completed:
            by_worker[worker] = by_worker.get(worker, 0) + 1
    assert set(by_worker) == set(workers), "uta gives both workers of the node tasks: %s" % by_worker

    os.kill(node.proc.pid, signal.SIGTERM)  # the node only, as a process manager would
    assert node.proc.wait(60) == 0, node.tail()
    await_statuses(http, workers, "LEAVING")


def test_a_worker_that_dies_stops_the_node(topics):
    cluster, http = topics["cluster"], topics["http"]
    node, workers = start_node(cluster, http, "pynode-b")
    first, second = children(node.proc.pid)

    os.kill(second, signal.SIGKILL)
    status = node.proc.wait(60)
    assert status != 0, "a node with a worker gone ends failed, for its manager to start it again"
    assert "stopping the node's other workers" in node.tail(60)
    with pytest.raises(ProcessLookupError):
        os.kill(first, 0)  # the other worker is stopped too (cleanly: it says LEAVING)
    await_statuses(http, workers[:1], "LEAVING")
