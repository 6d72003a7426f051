"""Helpers of the end-to-end tests and the benchmarks: read a topic whole, wait for the fleet, start
agents and trainers."""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def read_topic(bootstrap, topic, timeout=30.0):
    """Every committed record of ``topic``, from the beginning to its current end."""
    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "pyagent-test-reader",
                         "isolation.level": "read_committed", "enable.auto.commit": False,
                         "auto.offset.reset": "earliest"})
    try:
        info = consumer.list_topics(topic, timeout=10).topics[topic]
        partitions = sorted(info.partitions)
        ends = {}
        for p in partitions:
            low, high = consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)
            if high > low:
                ends[p] = high
        consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in partitions])
        out = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is not None and message.error() is None:
                out.append(message)
                continue
            positions = consumer.position([TopicPartition(topic, p) for p in ends])
            if all(tp.offset >= ends[tp.partition] - 1 for tp in positions):
                if message is None:
                    break
        return out
    finally:
        consumer.close()


def get_json(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.loads(r.read())


def metric(url, name, **labels):
    """The sum of the samples of ``name`` (labelled ``labels``) that a /metrics endpoint serves."""
    text = urllib.request.urlopen(url, timeout=10).read().decode()
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name + "{") and all('%s="%s"' % kv in line for kv in labels.items()):
            total += float(line.rsplit(" ", 1)[1])
    return total


def await_workers(http, workers, timeout=180.0):
    """Waits until the broker sees every worker in ``workers`` ALIVE and owning a task partition."""
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        try:
            seen = get_json(http + "/workers")
        except OSError:
            seen = []
        alive = {w["worker"] for w in seen if w.get("status") == "ALIVE" and w.get("partitions")}
        if set(workers) <= alive:
            return seen
        time.sleep(0.5)
    raise AssertionError("the broker did not see %s alive with partitions within %.0f s: %s" % (workers, timeout, seen))


def await_ready(url, process, timeout=120.0):
    """Waits until the agent's /ready answers 200: joined, caught up and owning a task partition."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:
                if answer.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass  # 503 (not ready yet) or the server between two agents
        assert time.monotonic() < deadline, "the Python agent was not ready within %.0f s: %s" % (timeout, process.tail())
        time.sleep(0.5)


def python_agent_command(bootstrap, registry, worker_id, *extra):
    return [sys.executable, "-m", "pyagent", "--bootstrap-servers", bootstrap, "--schema-registry-url", registry,
            "--worker-id", worker_id, "--threads", "1", "--metrics-port", "0", "--log-level", "info"] + list(extra)


def python_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "pyagent") + os.pathsep + env.get("PYTHONPATH", "")
    return env


def train_small_job(cluster, prefix, job, data, batch, rounds, *extra):
    """Runs ``./ata trainer`` on a small ``mlp:16`` job of the topics of ``prefix`` to its end, and
    checks that it ended well and every round closed with ``batch`` accepted results."""
    import re

    from conftest import ata_command

    trainer = cluster.start("trainer-" + job, ata_command() + [
        "trainer", "--bootstrap-servers", cluster.bootstrap, "--schema-registry-url", cluster.registry,
        "--topic-prefix", prefix, "--job", job, "--model", "mlp:16", "--data", data,
        "--batch", str(batch), "--rounds", str(rounds), "--samples-per-task", "8", "--micro-batch", "8",
        "--learning-rate", "0.05", "--eval-every", "0"] + list(extra))
    trainer.wait_for(r"job %s finished at round %d" % (job, rounds), 600)
    assert trainer.proc.wait(60) == 0, trainer.tail()
    accepted = [int(m.group(1)) for m in (re.search(r"\(accepted (\d+),", line) for line in trainer.lines) if m]
    assert accepted == [batch] * rounds, trainer.lines


def completed_by_round(cluster, prefix, job):
    """Each closed round of ``job``: the workers of its completed timings, in order."""
    from pyagent.codec import Codec
    from pyagent.registry import RegistryClient

    codec = Codec(RegistryClient(cluster.registry))
    closed = {}
    for message in read_topic(cluster.bootstrap, prefix + "rounds"):
        event = codec.decode("RoundEvent", message.value())
        if event["job"] == job and event["type"] == "CLOSED":
            closed[event["round"]] = [t["worker_id"] for t in event["timings"] if t["status"] == "COMPLETED"]
    return closed


def small_data_set(folder, seed):
    """A generated IDX data set of 300 training and 100 test images in ``folder``: its directory."""
    from pyagent.data import generated_images, write_idx

    pixels, labels = generated_images(400, seed=seed)
    return str(write_idx(folder / "shapes", pixels[:300], labels[:300], pixels[300:], labels[300:]))


def start_broker(cluster, name, prefix, folder, *extra):
    """A broker of its own topics (``prefix``, created with 4 task partitions) beside the session's:
    the process and its HTTP address."""
    from conftest import ata_command

    broker = cluster.start(name, ata_command() + [
        "broker", "--bootstrap-servers", cluster.bootstrap, "--schema-registry-url", cluster.registry,
        "--topic-prefix", prefix, "--create-topics", "--task-partitions", "4", "--http-port", "0",
        "--liveness-timeout", "5s", "--state-dir", str(folder / "broker-state")] + list(extra))
    return broker, broker.wait_for(r"^http=(\S+)", 180).group(1)
