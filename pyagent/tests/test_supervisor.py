"""The supervisor's decisions: which stops start the agent over, how often, and a stop request
between two agents. Its agents here are stand-ins that stop as told; ``test_mixed_fleet`` takes a
real agent's epoch on a real cluster."""

import pytest

from conftest import require_packages

require_packages("confluent_kafka")

from confluent_kafka import KafkaError  # noqa: E402

from pyagent.publisher import FatalKafkaError, ProducerUnusableError, new_clients_heal  # noqa: E402
from pyagent.supervisor import MAX_RESTARTS, RestartBudget, SupervisedAgent  # noqa: E402


class Config:
    worker_id = "py-1"


class Metrics:
    def __init__(self):
        self.restarts = 0

    def restarted(self):
        self.restarts += 1


class StoppingAgent:
    """Stops at once with ``failure`` (None: a clean stop), as its run loop would."""

    def __init__(self, failure, metrics=None):
        self.config = Config()
        self.metrics = metrics or Metrics()
        self.failure = failure
        self.stop_requested = False

    def request_stop(self, *_args):
        self.stop_requested = True

    def ready(self):
        return True

    def run(self):
        return 1 if self.failure is not None else 0


def fenced():
    return FatalKafkaError("fenced", KafkaError._FENCED)


def test_a_lost_epoch_or_an_unusable_producer_is_healed_by_new_clients():
    assert new_clients_heal(fenced())
    assert new_clients_heal(FatalKafkaError("old epoch", KafkaError.INVALID_PRODUCER_EPOCH))
    assert new_clients_heal(FatalKafkaError("aborted while frozen", KafkaError.INVALID_TXN_STATE))
    # librdkafka's fatal error of another kind, an abort that failed (with a code or none)
    assert new_clients_heal(ProducerUnusableError("fatal", KafkaError._INCONSISTENT))
    assert new_clients_heal(ProducerUnusableError("cannot abort", KafkaError._TIMED_OUT))
    assert new_clients_heal(ProducerUnusableError("cannot abort", None))


def test_what_new_clients_cannot_change_is_final():
    assert not new_clients_heal(FatalKafkaError("static member fenced", KafkaError.FENCED_INSTANCE_ID))
    assert not new_clients_heal(ProducerUnusableError("refused", KafkaError.TRANSACTIONAL_ID_AUTHORIZATION_FAILED))
    assert not new_clients_heal(ProducerUnusableError("old broker", KafkaError.UNSUPPORTED_VERSION))
    assert not new_clients_heal(ProducerUnusableError("bad password", KafkaError.SASL_AUTHENTICATION_FAILED))
    assert not new_clients_heal(FatalKafkaError("a consumer's fatal error, no code"))
    assert not new_clients_heal(RuntimeError("bug"))
    assert not new_clients_heal(None)


def test_an_agent_that_keeps_losing_its_epoch_starts_over_three_times_then_stops_for_good():
    made = []
    metrics = Metrics()
    supervisor = SupervisedAgent(lambda: made.append(StoppingAgent(fenced(), metrics)) or made[-1], clock=lambda: 0.0)
    assert supervisor.run() == 1
    assert supervisor.restarts == MAX_RESTARTS
    assert metrics.restarts == MAX_RESTARTS, "each start over is counted"
    assert len(made) == MAX_RESTARTS + 1, "a new agent, with new clients, each time"


@pytest.mark.parametrize("failure", [None, FatalKafkaError("refused", KafkaError.TOPIC_AUTHORIZATION_FAILED),
                                     RuntimeError("bug")])
def test_any_other_stop_is_final(failure):
    made = []
    supervisor = SupervisedAgent(lambda: made.append(StoppingAgent(failure)) or made[-1])
    assert supervisor.run() == (0 if failure is None else 1)
    assert supervisor.restarts == 0 and len(made) == 1


def test_a_stop_requested_while_the_agent_runs_is_not_started_over():
    made = []

    def new_agent():
        made.append(StoppingAgent(fenced() if not made else None))
        if len(made) == 1:
            supervisor.request_stop()  # the signal comes while the first one runs
        return made[-1]

    supervisor = SupervisedAgent(new_agent)
    supervisor.run()
    assert len(made) == 1, "a stop request ends it instead of starting over"
    assert made[0].stop_requested


def test_the_budget_is_per_window():
    budget = RestartBudget(limit=3, window=600)
    assert budget.allow(0) and budget.allow(1) and budget.allow(2)
    assert not budget.allow(3)
    assert budget.allow(600), "the first start left the window"
    assert not budget.allow(600.5)
