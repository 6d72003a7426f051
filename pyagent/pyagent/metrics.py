"""The agent's Prometheus metrics, named as the Java agent's (Micrometer's Prometheus names), each
labelled ``worker``, and the ``/metrics``, ``/health`` and ``/ready`` endpoints.

| metric | type | what |
|---|---|---|
| ``ata_agent_tasks_total{outcome}`` | counter | completed, cancelled (round closed part-way), not_run |
| ``ata_agent_task_compute_time_seconds`` | summary | compute time of each completed task, as paced |
| ``ata_agent_task_overhead_seconds`` | summary | assignment read (a parked one: its run) to result committed, less compute |
| ``ata_agent_assignments_total{outcome}`` | counter | completed, skipped_stale, stopped_round_closed |
| ``ata_agent_assignments_parked_total`` | counter | parked until its model version came (then counted above too) |
| ``ata_agent_dead_letters_total{source}`` | counter | records dead-lettered, by source topic |
| ``ata_agent_retries_total`` | counter | assignments given back after a transient failure |
| ``ata_agent_transactions_total{outcome}`` | counter | committed, aborted |
| ``ata_agent_device{kind,name}`` | gauge | 1, labelled with what computes the tasks |
"""

from __future__ import annotations

import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Optional

# no *_created series beside every counter and summary (the Java agents export none)
os.environ.setdefault("PROMETHEUS_DISABLE_CREATED_SERIES", "True")

from prometheus_client import CollectorRegistry, Counter, Gauge, Summary, generate_latest  # noqa: E402
from prometheus_client.exposition import CONTENT_TYPE_LATEST  # noqa: E402


class AgentMetrics:
    def __init__(self, worker_id: str, registry: Optional[CollectorRegistry] = None):
        self.registry = registry or CollectorRegistry()
        r = self.registry
        w = worker_id
        self._tasks = Counter("ata_agent_tasks", "tasks by outcome", ["worker", "outcome"], registry=r)
        self._compute = Summary("ata_agent_task_compute_time_seconds", "compute time of each completed task",
                                ["worker"], registry=r).labels(w)
        self._overhead = Summary("ata_agent_task_overhead_seconds",
                                 "assignment read to result committed, less the compute time", ["worker"],
                                 registry=r).labels(w)
        self._assignments = Counter("ata_agent_assignments", "assignments by outcome", ["worker", "outcome"], registry=r)
        self._parked = Counter("ata_agent_assignments_parked", "assignments held until their model version came",
                               ["worker"], registry=r).labels(w)
        self._letters = Counter("ata_agent_dead_letters", "records sent to the dead-letter topic",
                                ["worker", "source"], registry=r)
        self._retries = Counter("ata_agent_retries", "assignments given back to run again after a transient failure",
                                ["worker"], registry=r).labels(w)
        self._transactions = Counter("ata_agent_transactions", "Kafka transactions by outcome",
                                     ["worker", "outcome"], registry=r)
        self._restarts = Counter("ata_agent_restarts", "agents started over with new clients after losing their "
                                 "producer's epoch", ["worker"], registry=r).labels(w)
        self._device = Gauge("ata_agent_device", "what computes the tasks, in its labels", ["worker", "kind", "name"],
                             registry=r)
        self.worker = w
        for outcome in ("completed", "cancelled", "not_run"):
            self._tasks.labels(w, outcome)
        for outcome in ("completed", "skipped_stale", "stopped_round_closed"):
            self._assignments.labels(w, outcome)
        for outcome in ("committed", "aborted"):
            self._transactions.labels(w, outcome)
        self.overheads_ms = []  # every task's overhead, for benchmarks and the log
        self._lock = threading.Lock()

    def task(self, outcome: str, n: int = 1, compute_ms: Optional[float] = None) -> None:
        self._tasks.labels(self.worker, outcome).inc(n)
        if compute_ms is not None:
            self._compute.observe(compute_ms / 1000.0)

    def overhead(self, ms: float) -> None:
        self._overhead.observe(ms / 1000.0)
        with self._lock:
            self.overheads_ms.append(ms)

    def assignment(self, outcome: str) -> None:
        self._assignments.labels(self.worker, outcome).inc()

    def parked(self) -> None:
        self._parked.inc()

    def dead_letter(self, source: str) -> None:
        self._letters.labels(self.worker, source).inc()

    def retry(self) -> None:
        self._retries.inc()

    def transaction(self, outcome: str) -> None:
        self._transactions.labels(self.worker, outcome).inc()

    def restarted(self) -> None:
        self._restarts.inc()

    def device(self, kind: str, name: str) -> None:
        self._device.clear()
        self._device.labels(self.worker, kind, name).set(1)

    def value(self, name: str, **labels) -> float:
        """A sample's value, e.g. ``value("ata_agent_tasks_total", outcome="completed")``."""
        labels.setdefault("worker", self.worker)
        found = self.registry.get_sample_value(name, labels)
        return 0.0 if found is None else found

    def dead_letters(self) -> float:
        return sum(s.value for m in self.registry.collect() if m.name == "ata_agent_dead_letters"
                   for s in m.samples if s.name.endswith("_total"))


def serve(metrics: AgentMetrics, host: str, port: int, ready: Callable[[], bool]) -> ThreadingHTTPServer:
    """Serves GET /metrics (Prometheus text), /health and /ready on a daemon thread."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the http.server API
            path = self.path.split("?")[0]
            if path == "/metrics":
                self._send(200, generate_latest(metrics.registry), CONTENT_TYPE_LATEST)
            elif path == "/health":
                self._json(200, {"status": "UP"})
            elif path == "/ready":
                up = ready()
                self._json(200 if up else 503, {"status": "UP" if up else "DOWN"})
            else:
                self._json(404, {"error": "unknown path: %s" % path[:200]})

        def do_HEAD(self):  # noqa: N802
            self.do_GET()

        def _json(self, status, body):
            self._send(status, json.dumps(body).encode("utf-8"), "application/json")

        def _send(self, status, body, content_type):
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="ata-agent-metrics", daemon=True).start()
    return server
