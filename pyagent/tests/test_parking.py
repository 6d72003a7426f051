"""Parking without Kafka: an assignment one or two model versions ahead of its job's newest (a round
planned ahead, as pipelined allocation sends it) is held while the agent reads on, runs when its
version comes (skipped if the model passed it), and no offset of its partition is committed past
it; it is dead-lettered once its job looks stopped (it and the job's model quiet for the stalled-job
wait); three or more ahead and jobs without a model keep the bounded wait."""

import re
import threading
import time

import pytest

from conftest import require_packages

require_packages("avro", "numpy", "prometheus_client", "confluent_kafka")

from pyagent import agent as agent_module  # noqa: E402
from pyagent.models import ModelCache  # noqa: E402
from pyagent.parking import Parked, ParkedAssignments  # noqa: E402
from test_loop import Message, agent_with, decode_records, following, model, model_datum  # noqa: E402

TASKS = ("ata.tasks", 3)


class Record(Message):
    def error(self):
        return None


def record(agent, offset, partition=3, **fields):
    a = {"job": "j", "round": 3, "model_version": 2, "worker_id": "py-1", "partition": partition,
         "task_ids": ["j/3/0"], "batch": 4, "policy": "", "created_ms": 1, "deadline_ms": 0.0, "backup_of": ""}
    a.update(fields)
    return Record("ata.tasks", agent.codec.encode("ata.tasks", "TaskAssignment", a), b"py-1", partition, offset)


def parked_at(offset, partition=3, job="j", version=2):
    return Parked(Message("ata.tasks", b"", None, partition, offset), {"job": job, "model_version": version}, 0.0)


def committed(agent):
    """The offsets committed with each output, in order (outputs without offsets left out)."""
    return commits(agent.publisher)


def commits(publisher):
    return [offsets[0][2] for _, offsets in publisher.outputs if offsets]


def parked_total(agent):
    return agent.metrics.value("ata_agent_assignments_parked_total")


# ---- the offset rule ----

def test_without_anything_parked_the_offset_is_past_the_record():
    parked = ParkedAssignments()
    assert parked.commit_offset(TASKS, 7) == 8
    parked.done(TASKS, 7)
    assert parked.commit_offset(TASKS, 8) == 9


def test_no_commit_passes_a_parked_record_and_its_run_commits_past_every_record_done():
    parked = ParkedAssignments()
    assert parked.park(parked_at(10))
    assert parked.commit_offset(TASKS, 11) == 10
    parked.done(TASKS, 11)
    assert parked.commit_offset(TASKS, 12) == 10
    parked.done(TASKS, 12)
    assert parked.commit_offset(TASKS, 10) == 13  # the parked one runs: past 12, the highest done
    parked.done(TASKS, 10)
    assert len(parked) == 0 and parked.commit_offset(TASKS, 13) == 14


def test_the_oldest_parked_record_bounds_the_offset():
    parked = ParkedAssignments()
    parked.park(parked_at(10))
    parked.park(parked_at(11))
    assert parked.commit_offset(TASKS, 11) == 10  # the younger one runs first
    parked.done(TASKS, 11)
    assert parked.commit_offset(TASKS, 10) == 12
    parked.done(TASKS, 10)
    parked.park(parked_at(20))
    assert parked.commit_offset(TASKS, 15) == 16  # a record before the parked one commits past itself


def test_partitions_are_bounded_each_by_its_own_parked_records_and_forgotten_when_they_go():
    parked = ParkedAssignments()
    parked.park(parked_at(10, partition=3))
    parked.park(parked_at(4, partition=1))
    assert parked.commit_offset(("ata.tasks", 2), 30) == 31
    assert parked.commit_offset(("ata.tasks", 1), 9) == 4
    assert [(p.partition, p.offset) for p in parked.all()] == [(("ata.tasks", 1), 4), (("ata.tasks", 3), 10)]
    assert parked.forget([("ata.tasks", 3), ("ata.tasks", 0)]) == 1
    assert parked.commit_offset(TASKS, 11) == 12
    assert parked.clear() == 1 and len(parked) == 0


def test_the_same_record_parked_again_is_not_new():
    parked = ParkedAssignments()
    assert parked.park(parked_at(10))
    assert not parked.park(parked_at(10))
    assert len(parked) == 1


# ---- the parking decision ----

def no_wait(agent):
    """Fails the test if the agent waits for a model version that is not there."""
    def there(job, version, timeout):
        model_ = agent.models.latest(job)
        assert model_ is not None and model_["version"] >= version, "the agent waited for %s version %d" % (
            job, version)
        return model_
    agent.models.await_version = there


def test_an_assignment_one_version_ahead_is_parked_not_waited_for():
    agent = agent_with([model(version=1)])
    no_wait(agent)
    assert agent.handle(record(agent, 41, model_version=2), time.monotonic()) == "parked"
    assert agent.publisher.outputs == [] and len(agent.parked) == 1 and parked_total(agent) == 1
    assert agent.metrics.value("ata_agent_assignments_total", outcome="completed") == 0


def test_two_ahead_is_parked_too_so_the_open_rounds_parked_one_can_run():
    # the broker's plan for round 4 (version 3) came before version 2 reached the cache, while
    # round 3 (version 2) was parked: waiting for version 3 would hold round 3 back, and with it 3
    agent = agent_with([model(version=1)])
    no_wait(agent)
    assert agent.handle(record(agent, 41, round=3, model_version=2, task_ids=["j/3/0"]), time.monotonic()) == "parked"
    assert agent.handle(record(agent, 42, round=4, model_version=3, task_ids=["j/4/0"]), time.monotonic()) == "parked"
    agent.models.models["j"] = model(version=2)
    agent.run_parked()
    assert len(agent.parked) == 1 and committed(agent) == [42]  # round 3 ran; round 4 waits for version 3
    result = decode_records(agent, agent.publisher.outputs[-1][0])[0][3]
    assert (result["task_id"], result["model_version"]) == ("j/3/0", 2)


@pytest.mark.parametrize("models, version, why", [
    ([model(version=0)], 3, " (the newest is 0)"),
    ([], 0, " (the job has no model)"),
    ([], 1, " (the job has no model)"),
])
def test_three_or_more_ahead_and_jobs_without_a_model_are_parked_for_the_model_wait_only(models, version, why):
    agent = agent_with(models)
    no_wait(agent)
    ahead = record(agent, 41, model_version=version)
    behind = record(agent, 42, round=1, model_version=0, task_ids=["j/1/5"])
    assert agent.handle(ahead, time.monotonic()) == "parked"
    assert len(agent.parked) == 1 and parked_total(agent) == 1
    a = agent.parked.all()[0].assignment
    assert not agent.overdue(a, 0.29) and agent.overdue(a, 0.3)
    if models:  # the record behind it runs meanwhile (a job without a model has nothing to run it at)
        assert agent.handle(behind, time.monotonic()) == "completed"
        assert committed(agent) == [41]  # not past the parked record
    agent.run_parked()
    assert len(agent.parked) == 1, "not overdue yet"
    time.sleep(0.31)
    agent.run_parked()
    letter = decode_records(agent, agent.publisher.outputs[-1][0])[0][3]
    assert "did not arrive within 0.3 s" + why in letter["reason"] and letter["offset"] == 41
    assert len(agent.parked) == 0 and committed(agent)[-1] == (43 if models else 42)


def test_a_far_parked_assignment_waits_while_the_model_moves_once_two_ahead_and_keeps_its_first_time():
    agent = agent_with([model(version=0)])
    no_wait(agent)
    assert agent.handle(record(agent, 41, round=5, model_version=4, task_ids=["j/5/0"]), time.monotonic()) == "parked"
    first = agent.parked.all()[0]
    # given back after a failed attempt and parked again: the first time stays
    assert agent.handle(record(agent, 41, round=5, model_version=4, task_ids=["j/5/0"]), time.monotonic()) == "parked"
    assert agent.parked.all()[0].parked_at == first.parked_at and parked_total(agent) == 1
    agent.models.models["j"] = model(version=2)  # two ahead now: a round planned ahead
    agent.models.last_heard["j"] = time.monotonic()  # version 2 just read, as the cache notes it
    assert not agent.overdue(first.assignment, 3600)


def test_a_round_planned_ahead_is_overdue_once_it_and_its_jobs_model_were_quiet_for_the_stalled_job_wait():
    agent = agent_with([model(version=1)])
    agent.config.stalled_job_wait = 0.5  # the model wait is 0.3: not the rule here
    no_wait(agent)
    assert agent.handle(record(agent, 41, model_version=2), time.monotonic()) == "parked"
    assert agent.handle(record(agent, 42, round=4, model_version=3, task_ids=["j/4/0"]), time.monotonic()) == "parked"
    one, two = (p.assignment for p in agent.parked.all())
    quiet = {"j": 0.49}
    agent.models.quiet_for = lambda job: quiet[job]
    for a in (one, two):
        assert not agent.overdue(a, 0.3) and not agent.overdue(a, 0.49)
        assert not agent.overdue(a, 3600), "the job's model was read 0.49 s ago: its job is alive"
    quiet["j"] = 0.5
    for a in (one, two):
        assert not agent.overdue(a, 0.49) and agent.overdue(a, 0.5)
    quiet["j"] = 3600.0
    assert not agent.overdue(one, 0.49) and agent.overdue(two, 0.5)
    agent.models.models["j"] = model(version=2)  # its version came: never overdue
    assert not agent.overdue(one, 3600)


def test_a_round_planned_ahead_of_a_stopped_job_is_dead_lettered_and_its_offset_passed():
    agent = agent_with([model(version=1)])
    agent.config.stalled_job_wait = 0.3
    agent.models.last_heard["j"] = time.monotonic()  # version 1 just read; then the trainer stops
    no_wait(agent)
    assert agent.handle(record(agent, 41, model_version=2), time.monotonic()) == "parked"
    behind = record(agent, 42, round=2, model_version=1, task_ids=["j/2/5"])
    assert agent.handle(behind, time.monotonic()) == "completed"
    assert committed(agent) == [41]
    agent.run_parked()
    assert len(agent.parked) == 1, "not stalled yet"
    time.sleep(0.31)
    agent.run_parked()
    letter = decode_records(agent, agent.publisher.outputs[-1][0])[0][3]
    why = (r"job j round 3: model version 2 waited (\d+\.\d) s while the job's model stayed at version 1 "
           r"\(nothing of it read for \d+\.\d s\): its job looks stopped")
    matched = re.fullmatch(why, letter["reason"])
    assert matched and float(matched.group(1)) >= 0.3, letter["reason"]
    assert letter["offset"] == 41 and letter["partition"] == 3
    assert len(agent.parked) == 0 and committed(agent) == [41, 43]  # past the record, and the one run behind it
    assert agent.metrics.value("ata_agent_assignments_total", outcome="completed") == 1


def parked_long_ago(agent, offset, seconds, **fields):
    """Parks the assignment of ``record`` as if ``seconds`` ago."""
    message = record(agent, offset, **fields)
    agent.parked.park(Parked(message, agent.codec.decode("TaskAssignment", message.value()),
                             time.monotonic() - seconds))


@pytest.mark.parametrize("newest, version", [(1, 2), (0, 3)])  # a round planned ahead; one further ahead
def test_a_version_that_comes_after_the_overdue_check_runs_the_parked_assignment_instead_of_dead_lettering_it(
        newest, version):
    agent = agent_with([model(version=newest)])
    agent.config.stalled_job_wait = 0.5
    agent.models.quiet_for = lambda job: 3600.0  # its job looks stopped
    no_wait(agent)
    parked_long_ago(agent, 41, 3600, round=3, model_version=version, task_ids=["j/3/0"])
    checked, said = agent.overdue, []

    def overdue_then_the_version_comes(a, waited):
        said.append(checked(a, waited))
        agent.models.models["j"] = model(version=version)  # the model cache's thread, meanwhile
        return said[-1]

    agent.overdue = overdue_then_the_version_comes
    agent.run_parked()
    assert said == [True]
    assert agent.metrics.dead_letters() == 0 and committed(agent) == [42] and len(agent.parked) == 0
    result = decode_records(agent, agent.publisher.outputs[-1][0])[0][3]
    assert (result["task_id"], result["model_version"], result["status"]) == ("j/3/0", version, "COMPLETED")


def test_a_stopped_jobs_letter_names_how_long_the_assignment_waited_not_the_limit():
    agent = agent_with([model(version=1)])
    agent.config.stalled_job_wait = 0.5
    agent.models.quiet_for = lambda job: 7.0
    no_wait(agent)
    parked_long_ago(agent, 41, 3600, round=3, model_version=2, task_ids=["j/3/0"])
    agent.run_parked()
    letter = decode_records(agent, agent.publisher.outputs[-1][0])[0][3]
    why = (r"job j round 3: model version 2 waited 3600\.\d s while the job's model stayed at version 1 "
           r"\(nothing of it read for 7\.0 s\): its job looks stopped")
    assert re.fullmatch(why, letter["reason"]), letter["reason"]
    assert letter["offset"] == 41 and committed(agent) == [42] and len(agent.parked) == 0


def test_a_round_planned_ahead_stays_parked_while_its_jobs_model_moves():
    agent = agent_with([])
    agent.config.stalled_job_wait = 1.2  # each step below stays 0.6 s clear of it, for a loaded machine
    letters = []
    send = following(agent.models, letters)
    send(model_datum(1))
    no_wait(agent)
    assert agent.handle(record(agent, 41, round=4, model_version=3, task_ids=["j/4/0"]), time.monotonic()) == "parked"
    time.sleep(0.7)
    data = model_datum(2)["parameters"]
    send(dict(model_datum(2), parameters=data[:20], chunk=0, chunks=2), key=b"j#0")  # a slice of version 2
    time.sleep(0.6)  # parked 1.3 s, the model quiet for 0.6 s
    agent.run_parked()
    assert len(agent.parked) == 1 and agent.publisher.outputs == []
    send(dict(model_datum(2), parameters=data[20:], chunk=1, chunks=2, task=None), key=b"j#1")  # version 2 kept
    time.sleep(0.6)  # parked 1.9 s, the model quiet for 0.6 s (1.2 s since the slice): still one ahead
    agent.run_parked()
    assert len(agent.parked) == 1 and agent.publisher.outputs == [] and letters == []
    time.sleep(0.6)
    agent.run_parked()  # quiet for 1.2 s now
    letter = decode_records(agent, agent.publisher.outputs[-1][0])[0][3]
    assert "stayed at version 2" in letter["reason"] and "its job looks stopped" in letter["reason"]
    assert committed(agent) == [42] and len(agent.parked) == 0


class HeldRead:
    """A consumer for a read again of the model topic that stays under way (finding nothing) until
    ``released`` is set."""

    def __init__(self, released):
        self.released = released

    def get_watermark_offsets(self, tp, timeout=None):
        return 0, 1

    def assign(self, partitions):
        pass

    def position(self, partitions):
        from confluent_kafka import TopicPartition

        return [TopicPartition(tp.topic, tp.partition, -1001) for tp in partitions]

    def poll(self, timeout):
        if self.released.wait(timeout):
            raise RuntimeError("the test is over")
        return None

    def close(self):
        pass


def forgetting(agent, *jobs):
    """Gives ``agent`` a model cache that forgot ``jobs`` (and holds the models it held), whose
    reads again stay under way until the returned event is set."""
    released = threading.Event()
    cache = ModelCache(None, "ata.model", None, None, readers=lambda: HeldRead(released))
    cache.caught_up = True
    cache.partition_count = 2
    cache.models.update(agent.models.models)
    for job in jobs:
        cache.forgotten[job] = None  # quiet for the model retention: forgotten (its partition not known)
    agent.models = cache
    return released


def test_an_assignment_of_a_forgotten_job_has_the_cache_read_its_model_again():
    agent = agent_with([model(job="known", version=3)])
    released = forgetting(agent, "gone")
    no_wait(agent)
    recall = agent.models.recall
    asked = []
    agent.models.recall = lambda job: asked.append((job, recall(job))) or asked[-1][1]
    try:
        assert agent.handle(record(agent, 41, job="known", round=6, model_version=5, task_ids=["known/6/0"]),
                            time.monotonic()) == "parked"
        assert asked == [("known", False)], "its job's model is there, versions behind: nothing to read again"
        assert agent.handle(record(agent, 42, job="gone", round=5, model_version=4, task_ids=["gone/5/0"]),
                            time.monotonic()) == "parked"
        assert asked[-1] == ("gone", True), "a job back after its model was forgotten: read again"
        gone = agent.parked.all()[-1].assignment
        assert agent.models.reading_again("gone"), "being read again"
        assert not agent.overdue(gone, 3600), "waits for the read to end, however long it takes"
        assert agent.models.reading_again("gone"), "asking starts no read, nor ends one"
    finally:
        released.set()
    read_ended(agent, "gone")
    assert agent.overdue(gone, 0.3), "read without finding it: given up as a job without a model, from its parking"


def read_ended(agent, job):
    deadline = time.monotonic() + 20
    while agent.models.reading_again(job):
        assert time.monotonic() < deadline, "the read again of %s did not end" % job
        time.sleep(0.005)


def test_an_assignment_of_a_job_whose_model_is_read_again_is_parked_however_far_ahead_it_looks():
    agent = agent_with([])
    released = forgetting(agent, "gone")
    no_wait(agent)
    try:
        # what the agent knew of the job before it forgot its model says nothing of what can come
        assert agent.handle(record(agent, 41, job="gone", round=1501, model_version=1500, task_ids=["gone/1501/0"]),
                            time.monotonic()) == "parked"
        assert agent.models.reading_again("gone") and agent.metrics.dead_letters() == 0
        gone = agent.parked.all()[0].assignment
        assert not agent.overdue(gone, 29.9), "waits while its model is read again"
        # a job never seen (nor forgotten): as far ahead of nothing, it can never come
        assert agent.handle(record(agent, 42, job="new", round=1501, model_version=1500, task_ids=["new/1501/0"]),
                            time.monotonic()) == "dead_lettered"
        letter = decode_records(agent, agent.publisher.outputs[-1][0])[0][3]
        assert letter["reason"] == ("job new round 1501: model version 1500 can never come: it is more than 1000 "
                                    "versions ahead of a job without a model") and letter["offset"] == 42
        assert len(agent.parked) == 1
    finally:
        released.set()


def test_an_assignment_of_a_forgotten_job_whose_read_cools_down_waits_as_of_a_job_without_a_model():
    agent = agent_with([])
    released = forgetting(agent, "back")
    agent.models.missed["back"] = agent.models.clock()  # its last read again found nothing just now
    no_wait(agent)
    try:
        # no read now, and version 1500 may still come live: it is not dead-lettered as never coming
        assert agent.handle(record(agent, 41, job="back", round=1501, model_version=1500, task_ids=["back/1501/0"]),
                            time.monotonic()) == "parked"
        assert not agent.models.reading_again("back") and agent.models.forgot("back")
        assert agent.metrics.dead_letters() == 0 and len(agent.parked) == 1
        back = agent.parked.all()[0].assignment
        assert not agent.overdue(back, 0.29) and agent.overdue(back, 0.3), "the model wait of a job without a model"
        agent.run_parked()
        assert len(agent.parked) == 1, "not overdue yet"
        time.sleep(0.31)
        agent.run_parked()
    finally:
        released.set()
    letter = decode_records(agent, agent.publisher.outputs[-1][0])[0][3]
    assert letter["reason"] == ("job back round 1501: model version 1500 did not arrive within 0.3 s "
                                "(the job has no model)") and letter["offset"] == 41
    assert len(agent.parked) == 0 and committed(agent) == [42]


def forget(agent, job):
    """What the model cache's thread does to a job quiet for the model retention."""
    with agent.models.cond:
        del agent.models.models[job]
        agent.models.forgotten[job] = None


def stopped_job_parked(agent):
    """Parks a round planned ahead (version 2 of job j, whose newest is 1) an hour ago; its job
    looks stopped (quiet for an hour); the loop's overdue check is recorded, and followed by
    ``then`` (the model cache's thread meanwhile)."""
    agent.config.stalled_job_wait = 0.5
    agent.models.quiet_for = lambda job: 3600.0
    no_wait(agent)
    parked_long_ago(agent, 41, 3600, round=3, model_version=2, task_ids=["j/3/0"])
    checked, said, then = agent.overdue, [], []

    def overdue_then(a, waited):
        said.append(checked(a, waited))
        for step in then:
            step()
        return said[-1]

    agent.overdue = overdue_then
    return said, then


def test_a_parked_assignment_whose_jobs_model_is_forgotten_meanwhile_is_given_up_as_of_a_job_without_a_model():
    agent = agent_with([model(version=1)])
    said, then = stopped_job_parked(agent)
    then.append(lambda: forget(agent, "j"))  # between the overdue check and the giving up

    agent.run_parked()
    assert said == [True], "overdue as a round planned ahead of a stopped job"
    letter = decode_records(agent, agent.publisher.outputs[-1][0])[0][3]
    assert letter["reason"] == "job j round 3: model version 2 did not arrive within 0.3 s (the job has no model)"
    assert letter["offset"] == 41 and committed(agent) == [42] and len(agent.parked) == 0
    assert agent.metrics.value("ata_agent_retries_total") == 0, "given up at once, not failed and tried again"


def test_a_parked_assignment_given_up_goes_by_one_look_at_its_jobs_model_though_it_is_forgotten_meanwhile():
    agent = agent_with([model(version=1)])
    said, then = stopped_job_parked(agent)
    latest = agent.models.latest

    def forgotten_after_the_first_look(job):  # while the assignment is given up
        found = latest(job)
        if job in agent.models.models:
            forget(agent, job)
        return found

    then.append(lambda: setattr(agent.models, "latest", forgotten_after_the_first_look))
    agent.run_parked()
    assert said == [True]
    letter = decode_records(agent, agent.publisher.outputs[-1][0])[0][3]
    assert re.fullmatch(r"job j round 3: model version 2 waited 3600\.\d s while the job's model stayed at version 1 "
                        r"\(nothing of it read for 3600\.0 s\): its job looks stopped", letter["reason"]), letter["reason"]
    assert committed(agent) == [42] and agent.metrics.value("ata_agent_retries_total") == 0


def test_the_records_behind_a_parked_one_run_at_once_and_it_runs_when_its_version_comes():
    agent = agent_with([model(version=1)])
    no_wait(agent)
    ahead = record(agent, 41, round=3, model_version=2, task_ids=["j/3/0"])
    backup = record(agent, 42, round=2, model_version=1, task_ids=["j/2/5"], backup_of="java-1")
    assert agent.handle(ahead, time.monotonic()) == "parked"
    assert agent.handle(backup, time.monotonic()) == "completed"
    assert committed(agent) == [41]  # not past the parked record
    agent.run_parked()
    assert len(agent.publisher.outputs) == 1 and len(agent.parked) == 1  # its version has not come
    agent.models.models["j"] = model(version=2)
    agent.run_parked()
    assert committed(agent) == [41, 43] and len(agent.parked) == 0
    result = decode_records(agent, agent.publisher.outputs[-1][0])[0][3]
    assert (result["task_id"], result["model_version"], result["status"]) == ("j/3/0", 2, "COMPLETED")
    assert agent.workload.prepared == [1, 2]


def test_a_parked_assignment_the_model_passed_is_skipped_as_stale():
    agent = agent_with([model(version=1)])
    assert agent.handle(record(agent, 41, model_version=2), time.monotonic()) == "parked"
    agent.models.models["j"] = model(version=3)
    agent.run_parked()
    assert agent.publisher.outputs == [([], [("ata.tasks", 3, 42)])]
    assert agent.metrics.value("ata_agent_assignments_total", outcome="skipped_stale") == 1
    assert agent.workload.prepared == [] and len(agent.parked) == 0


def test_a_revoked_partition_drops_its_parked_assignments():
    from confluent_kafka import TopicPartition

    agent = agent_with([model(version=1)])
    agent.handle(record(agent, 41, partition=3, model_version=2), time.monotonic())
    agent.handle(record(agent, 7, partition=1, model_version=2), time.monotonic())
    agent.owned.revoked(None, [TopicPartition("ata.tasks", 3), TopicPartition("ata.other", 1)])
    assert [p.partition for p in agent.parked.all()] == [("ata.tasks", 1)]
    agent.models.models["j"] = model(version=2)
    agent.run_parked()
    assert committed(agent) == [8]  # only partition 1's ran


def test_a_stop_request_leaves_the_parked_assignments_not_run():
    agent = agent_with([model(version=1)])
    agent.handle(record(agent, 41, model_version=2), time.monotonic())
    agent.models.models["j"] = model(version=2)
    agent.stop_requested.set()
    agent.run_parked()
    assert agent.publisher.outputs == [] and len(agent.parked) == 1


class FailingOnce:
    """A publisher whose first commit with an offset fails (a transient broker error)."""

    def __init__(self, inner):
        self.inner = inner
        self.failed = False

    def publish(self, records, on_committed=None):
        self.inner.publish(records, on_committed)

    def publish_and_commit(self, records, offsets, group, on_committed=None):
        if not self.failed:
            self.failed = True
            raise RuntimeError("the coordinator is loading")
        self.inner.publish_and_commit(records, offsets, group, on_committed)

    def wait(self):
        pass


def test_a_parked_assignment_whose_run_fails_stays_parked_and_runs_again():
    agent = agent_with([model(version=1)])
    agent.config.retry_backoff = 0.0
    agent.handle(record(agent, 41, model_version=2), time.monotonic())
    plain = agent.publisher
    agent.publisher = FailingOnce(plain)
    agent.models.models["j"] = model(version=2)
    agent.run_parked()
    assert len(agent.parked) == 1 and agent.metrics.value("ata_agent_retries_total") == 1
    agent.run_parked()
    assert len(agent.parked) == 0 and commits(plain) == [42]


class Consumer:
    """The task consumer: hands out its records one per poll and remembers each poll's timeout."""

    def __init__(self, messages):
        self.messages = list(messages)
        self.timeouts = []

    def poll(self, timeout):
        self.timeouts.append(timeout)
        return self.messages.pop(0) if self.messages else None

    def consumer_group_metadata(self):
        return "group"


def test_the_loop_polls_in_short_slices_while_parked_and_runs_the_assignment_once_its_version_comes():
    agent = agent_with([model(version=1)])
    agent.consumer = Consumer([record(agent, 41, model_version=2)])
    agent.poll_once()
    assert len(agent.parked) == 1 and agent.consumer.timeouts == [agent_module.POLL_TIMEOUT]
    agent.poll_once()
    assert agent.consumer.timeouts[-1] == agent_module.PARKED_POLL_TIMEOUT and agent.publisher.outputs == []

    def publish_version():  # the model cache's thread
        with agent.models.cond:
            agent.models.models["j"] = model(version=2)
            agent.models.cond.notify_all()

    threading.Thread(target=publish_version).start()
    agent.models.await_version("j", 2, 10)
    agent.poll_once()
    assert committed(agent) == [42] and len(agent.parked) == 0
    agent.poll_once()
    assert agent.consumer.timeouts[-1] == agent_module.POLL_TIMEOUT
    assert agent.metrics.value("ata_agent_assignments_total", outcome="completed") == 1
