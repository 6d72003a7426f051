"""Fixtures: the Debian packages the agent needs (tests skip, saying which is missing, without
them), and a real cluster for the tests that need one: ``./ata kafka`` and ``./ata broker`` (whose
embedded Schema Registry the parts share) as subprocesses on loopback ports.

``ATA`` names the command that runs the project's jar (default: the repository's ``./ata``
launcher, which builds the jar when it is missing or stale), e.g. ``ATA="java -jar /opt/ata.jar"``.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "pyagent"))

DEBIAN_PACKAGES = {
    "confluent_kafka": "python3-confluent-kafka",
    "avro": "python3-avro",
    "torch": "python3-torch",
    "prometheus_client": "python3-prometheus-client",
    "numpy": "python3-numpy",
}


def missing_packages():
    missing = []
    for module, package in DEBIAN_PACKAGES.items():
        try:
            importlib.import_module(module)
        except Exception:  # noqa: BLE001 - an import that fails in any way is a missing package
            missing.append(package)
    return missing


def require_packages(*modules):
    """Skips the calling test module unless the Debian packages of ``modules`` import."""
    lacking = []
    for module in modules:
        try:
            importlib.import_module(module)
        except Exception:  # noqa: BLE001
            lacking.append(DEBIAN_PACKAGES[module])
    if lacking:
        pytest.skip("needs the Debian packages %s (apt-get install %s)" % (", ".join(lacking), " ".join(lacking)),
                    allow_module_level=True)


def ata_command():
    command = os.environ.get("ATA", str(REPO / "ata"))
    return command.split()


class Process:
    """A subprocess whose stdout lines are collected on a thread; stderr goes to a file."""

    def __init__(self, name, args, workdir, env=None):
        self.name = name
        self.log_path = Path(workdir) / (name + ".log")
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self.log, text=True, cwd=str(REPO),
                                     env=env, start_new_session=True)
        self.lines = []
        self.cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            with self.cond:
                self.lines.append(line.rstrip("\n"))
                self.cond.notify_all()
        with self.cond:
            self.cond.notify_all()

    def wait_for(self, pattern, timeout):
        """The first match of ``pattern`` in a stdout line, waiting up to ``timeout`` s."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        exited_once = False
        with self.cond:
            while True:
                for line in self.lines:
                    m = regex.search(line)
                    if m:
                        return m
                remaining = deadline - time.monotonic()
                if remaining <= 0 or (self.proc.poll() is not None and exited_once):
                    raise AssertionError("%s printed no line matching %r within %.0f s (exit %s); its log: %s\n%s"
                                         % (self.name, pattern, timeout, self.proc.poll(), self.log_path,
                                            self.tail()))
                exited_once = self.proc.poll() is not None
                self.cond.wait(min(remaining, 0.5))

    def tail(self, lines=30):
        if not self.log.closed:
            self.log.flush()
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def stop(self, sig=signal.SIGTERM, timeout=20):
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self.log.close()
        return self.proc.returncode


class Cluster:
    def __init__(self, workdir, task_partitions=4):
        self.workdir = Path(workdir)
        self.processes = []
        ata = ata_command()
        self.kafka = self.start("kafka", ata + ["kafka", "--port", "0", "--topics",
                                                "--task-partitions", str(task_partitions)])
        self.bootstrap = self.kafka.wait_for(r"bootstrap\.servers=(\S+)", 1200).group(1)
        self.broker = self.start("broker", ata + ["broker", "--bootstrap-servers", self.bootstrap,
                                                  "--registry-port", "0", "--http-port", "0",
                                                  "--liveness-timeout", "5s",
                                                  "--state-dir", str(self.workdir / "broker-state")])
        self.registry = self.broker.wait_for(r"schema\.registry\.url=(\S+)", 180).group(1)
        self.http = self.broker.wait_for(r"^http=(\S+)", 60).group(1)

    def start(self, name, args, env=None):
        process = Process(name, args, self.workdir, env)
        self.processes.append(process)
        return process

    def stop(self):
        for process in reversed(self.processes):
            process.stop()


@pytest.fixture(scope="session")
def cluster():
    """Kafka and the broker with its registry, shared by the tests of a session (or the running
    cluster that ATA_TEST_BOOTSTRAP, ATA_TEST_REGISTRY and ATA_TEST_HTTP name)."""
    if os.environ.get("ATA_TEST_BOOTSTRAP"):
        running = Cluster.__new__(Cluster)
        running.workdir = Path(tempfile.mkdtemp(prefix="pyagent-cluster-"))
        running.processes = []
        running.bootstrap = os.environ["ATA_TEST_BOOTSTRAP"]
        running.registry = os.environ["ATA_TEST_REGISTRY"]
        running.http = os.environ.get("ATA_TEST_HTTP", "")
        yield running
        running.stop()
        return
    if shutil.which("java") is None:
        pytest.skip("needs Java 17 to run the project's Kafka and broker (./ata)")
    workdir = tempfile.mkdtemp(prefix="pyagent-cluster-")
    c = Cluster(workdir)
    yield c
    c.stop()
    shutil.rmtree(workdir, ignore_errors=True)
