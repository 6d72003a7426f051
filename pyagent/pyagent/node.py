"""A node with several devices: ``--device gpu:0,gpu:1,...`` runs a worker per device, each an
agent process of its own named ``<worker id>-0``, ``-1``, ... in the list's order (the names ``ata
worker`` gives its workers).

A process per device, not a thread: what PyTorch does for several GPUs (``torchrun``), since the
interpreter's lock would make the workers' Python parts (decoding, encoding, Kafka) take turns, and
each process keeps its own CUDA context. So, unlike the Java agent's workers, each has a consumer
of its own in the fleet's group. The node stops as one: on SIGTERM or Ctrl-C every worker stops
cleanly; a worker that ends on its own (a failure) stops the others, and the node's exit status is
that worker's, for the process manager to start the node again.
"""

from __future__ import annotations

import logging
import signal
import subprocess
import sys
import time
from typing import List, Optional, Sequence

from .devices import DeviceChoice

log = logging.getLogger(__name__)

#: How long the workers get to stop cleanly once the node stops, before they are killed.
STOP_TIMEOUT = 30.0


def worker_args(argv: Sequence[str], worker_id: str, device: DeviceChoice, metrics_port: Optional[int]) -> List[str]:
    """The options of one worker: the node's own, then its id, device and port, which override them
    (argparse keeps the last value of an option given twice)."""
    args = list(argv) + ["--worker-id", worker_id, "--device", str(device)]
    if metrics_port is not None:
        args += ["--metrics-port", str(metrics_port)]
    return args


def worker_port(node_port: Optional[int], index: int) -> Optional[int]:
    """``--metrics-port P``: worker i serves on P + i; 0 (any free port) and none stay as they are."""
    return node_port + index if node_port else node_port


class Node:
    """The worker processes of a node, started and stopped together."""

    def __init__(self, argv: Sequence[str], worker_id: str, devices: Sequence[DeviceChoice],
                 metrics_port: Optional[int], python: str = sys.executable):
        self.commands = [
            [python, "-m", "pyagent"] + worker_args(argv, "%s-%d" % (worker_id, i), device, worker_port(metrics_port, i))
            for i, device in enumerate(devices)]
        self.worker_ids = ["%s-%d" % (worker_id, i) for i in range(len(devices))]
        self.processes: List[subprocess.Popen] = []
        self.stopping = False

    def request_stop(self, *_args) -> None:
        self.stopping = True

    def run(self) -> int:
        """Starts the workers and waits until the node stops; the exit status."""
        log.info("node of %d workers: %s", len(self.commands), ", ".join(self.worker_ids))
        for command in self.commands:
            self.processes.append(subprocess.Popen(command))
        status = 0
        try:
            while not self.stopping:
                ended = [(wid, p) for wid, p in zip(self.worker_ids, self.processes) if p.poll() is not None]
                if ended:
                    wid, p = ended[0]
                    status = p.returncode or 1
                    log.error("worker %s ended (exit status %d): stopping the node's other workers", wid, p.returncode)
                    break
                time.sleep(0.2)
        finally:
            self._stop_all()
        return status

    def _stop_all(self) -> None:
        for p in self.processes:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT
        for wid, p in zip(self.worker_ids, self.processes):
            try:
                p.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                log.warning("worker %s did not stop within %g s: killed", wid, STOP_TIMEOUT)
                p.kill()
                p.wait()
