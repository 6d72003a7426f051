"""One worker agent kept running, as the Java agents' ``SupervisedAgent`` keeps theirs: when the
agent stops on a producer that only new clients heal (``new_clients_heal``: its epoch is gone,
because it paused past its transaction timeout and the coordinator aborted its transaction, or a
newer producer of its transactional id fenced it; or librdkafka left it unusable), a new
agent with new clients starts under the same ids, at most ``MAX_RESTARTS`` times in
``WINDOW_SECONDS``. Its consumer takes the task partitions back and runs what was not committed,
as after a crash. Any other stop is final.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from typing import Callable, Optional

from .publisher import new_clients_heal

log = logging.getLogger(__name__)

MAX_RESTARTS = 3
WINDOW_SECONDS = 600.0


class RestartBudget:
    """At most ``limit`` starts over within ``window`` seconds: two agents under one worker id
    would fence each other for ever, and the budget stops that."""

    def __init__(self, limit: int = MAX_RESTARTS, window: float = WINDOW_SECONDS):
        self.limit = limit
        self.window = window
        self.starts: deque = deque()

    def allow(self, now: float) -> bool:
        while self.starts and now - self.starts[0] >= self.window:
            self.starts.popleft()
        if len(self.starts) >= self.limit:
            return False
        self.starts.append(now)
        return True


class SupervisedAgent:
    """Runs agents made by ``new_agent`` one after the other on the calling thread (``run``)."""

    def __init__(self, new_agent: Callable[[], object], clock: Callable[[], float] = time.monotonic,
                 budget: Optional[RestartBudget] = None):
        self.new_agent = new_agent
        self.clock = clock
        self.budget = budget or RestartBudget()
        self.restarts = 0
        self.lock = threading.Lock()
        self.stop_requested = False
        self.current = None

    def run(self) -> int:
        """Runs the agent until it stops for good; its exit code (0 after a clean stop)."""
        while True:
            agent = self.new_agent()
            with self.lock:
                self.current = agent
                stop = self.stop_requested
            if stop:
                agent.request_stop()
            code = agent.run()
            failure = agent.failure
            if self.stop_requested or failure is None:
                return code
            if not new_clients_heal(failure):
                log.error("agent %s stopped for good: new clients would not heal %s", agent.config.worker_id, failure)
                return code
            if not self.budget.allow(self.clock()):
                log.error("agent %s stopped for good: it lost its producer again (%s) after %d starts over in %.0f s",
                          agent.config.worker_id, failure, self.budget.limit, self.budget.window)
                return code
            self.restarts += 1
            agent.metrics.restarted()
            log.warning("agent %s lost its producer (%s; e.g. paused past its transaction timeout): "
                        "starting over with new clients", agent.config.worker_id, failure)

    def ready(self) -> bool:
        with self.lock:
            agent = self.current
        return agent is not None and agent.ready()

    def request_stop(self, *_signal) -> None:
        """Clean stop of the running agent (a signal handler: takes the signal's arguments)."""
        with self.lock:
            self.stop_requested = True
            agent = self.current
        if agent is not None:
            agent.request_stop()
