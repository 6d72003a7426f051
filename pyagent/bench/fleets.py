"""Measures the Python agent beside the Java agents, side by side in one run on one machine (one
Kafka; each part under its own topic prefix):

``accuracy``: the demo's problem (mlp on Fashion-MNIST, batch 8, 32 samples a task, Adam 1e-3,
agents emulating the linear time model) trained three times under one job name and seeds: by 3
Java agents, again by 3 Java agents (how much two all-Java runs differ), and by 2 Java agents and
1 Python agent. Per round the accepted task ids, the update's and the parameters' relative L2
difference from the first all-Java run, and every evaluation's test accuracy. The policy is
``uta`` by default: it hands out exactly B tasks a round, so which tasks are accepted does not
depend on who is faster (a learning policy's probes and backups make that timing-dependent).

``overhead``: per-task overhead, from the assignment to the committed result less the compute time,
of one Java and one Python agent taking turns on the same tasks (policy uta, one task each a round)
at two network sizes. An observer reads ``tasks`` and ``gradients`` (read_committed) and times when
each assignment and each whole result becomes visible; overhead = result visible - assignment
visible - compute_ms, the same clock and path for both runtimes.

``fuzz``: the hostile records of the Java fuzz test (empty, random, cut in half, unknown schema
id, 1 MB, a job that never comes, round 0) on the task partitions of a Java and of a Python agent,
and a NaN model at version 2^60, a tombstone and random bytes on ``model``, in the middle of a job:
each record's dead letters and reasons, whether both agents still run, whether the job closes every
round.

``all`` runs the three in this order.

    /usr/bin/python3 pyagent/bench/fleets.py all --rounds 150 --overhead-rounds 60
    /usr/bin/python3 pyagent/bench/fleets.py accuracy --rounds 150
    /usr/bin/python3 pyagent/bench/fleets.py overhead --sizes 128,1260 --rounds 60
    /usr/bin/python3 pyagent/bench/fleets.py fuzz
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests"))

import numpy as np  # noqa: E402

from conftest import Process, ata_command  # noqa: E402
from kafka_tools import await_workers, get_json, python_agent_command, python_env, read_topic  # noqa: E402
from pyagent import tensor  # noqa: E402
from pyagent.codec import Codec  # noqa: E402
from pyagent.registry import RegistryClient  # noqa: E402


def load():
    return "load average %s" % " ".join(open("/proc/loadavg").read().split()[:3])


class Deployment:
    """Kafka once; per fleet a broker (embedded registry) under its own topic prefix, agents, a trainer."""

    def __init__(self, workdir: Path, task_partitions: int):
        self.workdir = workdir
        self.processes = []
        self.task_partitions = task_partitions
        self.kafka = self.start("kafka", ata_command() + ["kafka", "--port", "0"])
        self.bootstrap = self.kafka.wait_for(r"bootstrap\.servers=(\S+)", 1200).group(1)

    def start(self, name, args, env=None):
        p = Process(name, args, self.workdir, env)
        self.processes.append(p)
        return p

    def broker(self, prefix, *extra):
        b = self.start("broker-" + prefix.strip("."), ata_command() + [
            "broker", "--bootstrap-servers", self.bootstrap, "--topic-prefix", prefix, "--create-topics",
            "--task-partitions", str(self.task_partitions), "--registry-port", "0", "--http-port", "0",
            "--liveness-timeout", "5s", "--state-dir", str(self.workdir / ("state-" + prefix))] + list(extra))
        return b.wait_for(r"schema\.registry\.url=(\S+)", 180).group(1), b.wait_for(r"^http=(\S+)", 60).group(1), b

    def java_agent(self, prefix, registry, worker, *extra):
        return self.start(prefix + worker, ata_command() + [
            "worker", "--bootstrap-servers", self.bootstrap, "--schema-registry-url", registry, "--topic-prefix",
            prefix, "--worker-id", worker, "--threads", "1"] + list(extra))

    def python_agent(self, prefix, registry, worker, *extra):
        return self.start(prefix + worker, python_agent_command(self.bootstrap, registry, worker, "--topic-prefix",
                                                                prefix, *extra), env=python_env())

    def trainer(self, prefix, registry, job, args, timeout):
        t = self.start(prefix + "trainer", ata_command() + [
            "trainer", "--bootstrap-servers", self.bootstrap, "--schema-registry-url", registry, "--topic-prefix",
            prefix, "--job", job] + args)
        t.wait_for(r"job %s finished at round" % job, timeout)
        t.proc.wait(60)
        return t.lines

    def stop(self, processes=None):
        for p in reversed(processes if processes is not None else self.processes):
            p.stop()


# ---- accuracy: all-Java and mixed fleets on the demo's problem ----

def fleet_run(d: Deployment, prefix, python_workers, args):
    # every model version is compared: one segment holds them all, so compaction keeps every one
    registry, http, broker = d.broker(prefix, "--topic-config", "model:segment.bytes=1073741824")
    started = [broker]
    names = []
    for j in (1, 2, 3):
        name = "agent-%d" % j
        names.append(name)
        emulate = ["--time-model", "linear", "--worker-index", str(j), "--time-scale", str(args.time_scale)]
        if name in python_workers:
            started.append(d.python_agent(prefix, registry, name, *emulate))
        else:
            started.append(d.java_agent(prefix, registry, name, *emulate))
    await_workers(http, names)
    began = time.monotonic()
    lines = d.trainer(prefix, registry, "demo", [
        "--model", "mlp", "--data", "fashion-mnist", "--batch", "8", "--rounds", str(args.rounds), "--optimizer", "adam",
        "--learning-rate", "1e-3", "--sample-seed", "5", "--seed", "5", "--eval-every", "10",
        "--policy", args.policy], 120 + args.rounds * 20)
    seconds = time.monotonic() - began
    codec = Codec(RegistryClient(registry))
    accepted = {}
    for m in read_topic(d.bootstrap, prefix + "rounds"):
        e = codec.decode("RoundEvent", m.value())
        if e["job"] == "demo" and e["type"] == "CLOSED":
            accepted[e["round"]] = sorted((t["task_id"], t["worker_id"]) for t in e["timings"] if t["status"] == "COMPLETED")
    slices = {}
    for m in read_topic(d.bootstrap, prefix + "model"):
        v = codec.decode("ModelVersion", m.value())
        if v["job"] == "demo":
            slices.setdefault(v["version"], {})[v["chunk"]] = v["parameters"]
    models = {k: tensor.decode_floats(b"".join(s[i] for i in sorted(s)), "FLOAT32_LE").astype(np.float64)
              for k, s in slices.items()}
    evaluations = {}
    for m in read_topic(d.bootstrap, prefix + "evaluations"):
        e = codec.decode("Evaluation", m.value())
        if e["job"] == "demo":
            evaluations[e["model_version"]] = e["test_accuracy"]
    d.stop(started)
    print("  %s: %d rounds in %.0f s; results accepted by worker %s (%s)" % (
        prefix.strip("."), len(accepted), seconds, accepted_by_worker(accepted), load()), flush=True)
    return {"accepted": accepted, "models": models, "evaluations": evaluations, "seconds": seconds}


def accepted_by_worker(accepted):
    counts = {}
    for pairs in accepted.values():
        for _, worker in pairs:
            counts[worker] = counts.get(worker, 0) + 1
    return dict(sorted(counts.items()))


def relative(a, b):
    """||a - b|| / ||a||, L2 over every parameter."""
    return float(np.linalg.norm(a - b) / max(1e-30, float(np.linalg.norm(a))))


def compare(reference, other):
    """Per version: the same accepted task ids, the parameters' and the update's relative difference."""
    rows = []
    for k in sorted(set(reference["models"]) & set(other["models"])):
        a, b = reference["models"][k], other["models"][k]
        row = {"version": k, "same_task_ids": [t for t, _ in reference["accepted"].get(k, [])]
               == [t for t, _ in other["accepted"].get(k, [])],
               "param_rel_l2": relative(a, b),
               "param_max_abs": float(np.max(np.abs(a - b)))}
        if k > 0 and k - 1 in reference["models"] and k - 1 in other["models"]:
            row["update_rel_l2"] = relative(a - reference["models"][k - 1], b - other["models"][k - 1])
        rows.append(row)
    return rows


def summary(rows):
    updates = [r["update_rel_l2"] for r in rows if "update_rel_l2" in r]
    return {"versions": len(rows), "updates": len(updates),
            "update_rel_l2_median": statistics.median(updates) if updates else float("nan"),
            "update_rel_l2_max": max(updates) if updates else float("nan"),
            "param_rel_l2_last": rows[-1]["param_rel_l2"] if rows else float("nan"),
            "param_rel_l2_max": max(r["param_rel_l2"] for r in rows) if rows else float("nan")}


def accuracy(args, d: Deployment, out: Path):
    print("accuracy: mlp on fashion-mnist, batch 8, adam 1e-3, policy %s, %d rounds, linear time model x %s (%s)"
          % (args.policy, args.rounds, args.time_scale, load()), flush=True)
    fleets = {"all-Java": fleet_run(d, "alljava.", (), args),
              "all-Java again": fleet_run(d, "alljava2.", (), args),
              "mixed": fleet_run(d, "mixed.", ("agent-3",), args)}
    reference = fleets["all-Java"]
    report = {"policy": args.policy, "rounds": args.rounds, "comparisons": {}}
    for name in ("all-Java again", "mixed"):
        rows = compare(reference, fleets[name])
        s = summary(rows)
        ids = lambda accepted: {k: [t for t, _ in pairs] for k, pairs in accepted.items()}  # noqa: E731
        mine, theirs = ids(reference["accepted"]), ids(fleets[name]["accepted"])
        s["rounds"] = len(mine)
        s["rounds_same_ids"] = sum(1 for k in mine if theirs.get(k) == mine[k])
        report["comparisons"][name] = {"summary": s, "rows": rows}
        print("all-Java vs %s: same accepted task ids in %d of %d rounds; %d versions compared: update relative L2 "
              "difference median %.2e, max %.2e; parameters' relative L2 difference at the end %.2e (max %.2e)"
              % (name, s["rounds_same_ids"], s["rounds"], s["versions"], s["update_rel_l2_median"],
                 s["update_rel_l2_max"], s["param_rel_l2_last"], s["param_rel_l2_max"]), flush=True)
    report["python_accepted"] = sum(1 for pairs in fleets["mixed"]["accepted"].values()
                                    for _, w in pairs if w == "agent-3")
    report["accepted"] = {name: sum(len(p) for p in f["accepted"].values()) for name, f in fleets.items()}
    report["seconds"] = {name: f["seconds"] for name, f in fleets.items()}
    versions = sorted(set().union(*(f["evaluations"] for f in fleets.values())))
    report["evaluations"] = [{"version": v, **{name: f["evaluations"].get(v) for name, f in fleets.items()}}
                             for v in versions]
    print("Python results accepted in the mixed fleet: %d of %d" % (report["python_accepted"],
                                                                     report["accepted"]["mixed"]))
    for name in ("all-Java again", "mixed"):
        gaps = [abs(e[name] - e["all-Java"]) for e in report["evaluations"]
                if e[name] is not None and e["all-Java"] is not None]
        report["comparisons"][name]["summary"]["accuracy_gap_max"] = max(gaps) if gaps else float("nan")
        print("test accuracy, all-Java vs %s: largest difference over %d evaluations %.4f"
              % (name, len(gaps), max(gaps) if gaps else float("nan")))
    print("version  test accuracy: all-Java  all-Java again  mixed")
    for e in report["evaluations"]:
        print("%7d  %8s  %8s  %8s" % (e["version"], e["all-Java"], e["all-Java again"], e["mixed"]))
    (out / "accuracy.json").write_text(json.dumps(report, indent=1))
    return report


# ---- overhead: Java and Python agents on the same tasks ----

class Observer(threading.Thread):
    """Times when assignments and whole results become visible to a read_committed reader."""

    def __init__(self, bootstrap, prefix, codec):
        super().__init__(daemon=True)
        from confluent_kafka import OFFSET_END, Consumer, TopicPartition

        self.codec = codec
        self.prefix = prefix
        self.consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "pyagent-bench-observer",
                                  "isolation.level": "read_committed", "enable.auto.commit": False,
                                  "fetch.wait.max.ms": 10})
        parts = []
        for topic in (prefix + "tasks", prefix + "gradients"):
            info = self.consumer.list_topics(topic, timeout=10).topics[topic]
            parts += [TopicPartition(topic, p, OFFSET_END) for p in info.partitions]
        self.consumer.assign(parts)
        self.assigned = {}  # task id -> (time, worker the assignment was for, its position, its task ids)
        self.results = {}   # (task id, worker) -> (time, compute_ms)
        self.running = True

    def run(self):
        while self.running:
            m = self.consumer.poll(0.1)
            if m is None or m.error() is not None:
                continue
            now = time.monotonic()
            if m.topic().endswith("tasks"):
                a = self.codec.decode("TaskAssignment", m.value())
                for i, t in enumerate(a["task_ids"]):
                    self.assigned.setdefault(t, (now, a["worker_id"], i, a["task_ids"]))
            else:
                r = self.codec.decode("TaskResult", m.value())
                if r["status"] == "COMPLETED" and r["chunk"] == r["chunks"] - 1:
                    self.results.setdefault((r["task_id"], r["worker_id"]), (now, r["compute_ms"]))

    def overheads(self, warmup_rounds):
        per_worker = {}
        for (task, worker), (seen, compute) in self.results.items():
            if task not in self.assigned or int(task.split("/")[-2]) <= warmup_rounds:
                continue
            at, _, position, ids = self.assigned[task]
            earlier = sum(self.results.get((t, worker), (0, 0))[1] for t in ids[:position])
            per_worker.setdefault(worker, []).append((seen - at) * 1000 - compute - earlier)
        return per_worker


def quartiles(values):
    return [round(q, 1) for q in statistics.quantiles(values, n=4)] if len(values) >= 2 else []


def overhead(args, d: Deployment, out: Path):
    rows = []
    for size in args.sizes.split(","):
        prefix = "over%s." % size
        registry, http, broker = d.broker(prefix)
        agents = [broker, d.java_agent(prefix, registry, "java"), d.python_agent(prefix, registry, "python")]
        await_workers(http, ["java", "python"])
        observer = Observer(d.bootstrap, prefix, Codec(RegistryClient(registry)))
        observer.start()
        print("mlp:%s ... (%s)" % (size, load()), flush=True)
        d.trainer(prefix, registry, "over", [
            "--model", "mlp:%s" % size, "--data", "fashion-mnist", "--batch", "2", "--rounds", str(args.rounds),
            "--policy", "uta", "--samples-per-task", "8", "--micro-batch", "8", "--eval-every", "0"],
                  120 + args.rounds * 30)
        time.sleep(2)
        observer.running = False
        observer.join(5)
        during = load()
        per_worker = observer.overheads(args.warmup)
        python_own = None
        metrics = re.search(r"metrics=(\S+)", "\n".join(agents[2].lines))
        if metrics:
            import urllib.request
            text = urllib.request.urlopen(metrics.group(1), timeout=10).read().decode()
            s = re.search(r'ata_agent_task_overhead_seconds_sum\{[^}]*\} (\S+)', text)
            c = re.search(r'ata_agent_task_overhead_seconds_count\{[^}]*\} (\S+)', text)
            if s and c and float(c.group(1)) > 0:
                python_own = 1000 * float(s.group(1)) / float(c.group(1))
        from pyagent.network import NetworkSpec
        params = NetworkSpec.parse("mlp:%s" % size).parameter_count()
        row = {"network": "mlp:%s" % size, "parameters": params,
               "java_median_ms": statistics.median(per_worker.get("java", [float("nan")])),
               "python_median_ms": statistics.median(per_worker.get("python", [float("nan")])),
               "java_tasks": len(per_worker.get("java", [])), "python_tasks": len(per_worker.get("python", [])),
               "java_quartiles_ms": quartiles(per_worker.get("java", [])),
               "python_quartiles_ms": quartiles(per_worker.get("python", [])),
               "python_own_mean_ms": python_own, "load": during}
        row["ratio"] = row["python_median_ms"] / row["java_median_ms"]
        rows.append(row)
        print(json.dumps(row), flush=True)
        d.stop(agents)
    (out / "overhead.json").write_text(json.dumps(rows, indent=1))
    print("network  parameters  Java median ms  Python median ms  ratio  tasks (J/P)  load")
    for r in rows:
        print("%s  %d  %.1f  %.1f  %.2f  %d/%d  %s" % (r["network"], r["parameters"], r["java_median_ms"],
                                                       r["python_median_ms"], r["ratio"], r["java_tasks"],
                                                       r["python_tasks"], r["load"]))


# ---- fuzz: hostile records on the task partitions of a Java and a Python agent, and on model ----

OVERSIZE = 1_048_405  # the Java fuzz test's: what Kafka takes at its default message.max.bytes


def hostile_records(codec, prefix, job, worker, partition, seed):
    """The fuzz test's kinds for an agent's task partition: (value, the reason its letter must name)."""
    import random
    import struct

    rnd = random.Random(seed)
    tasks = prefix + "tasks"

    def assignment(job_name, rnd_, version, ids):
        return codec.encode(tasks, "TaskAssignment", {
            "job": job_name, "round": rnd_, "model_version": version, "worker_id": worker, "partition": partition,
            "task_ids": ids, "batch": 1, "policy": "", "created_ms": 1, "deadline_ms": 0.0, "backup_of": ""})

    valid = assignment(job, 1, 0, [job + "/1/0"])
    return [
        (b"", "empty"),
        (bytes(rnd.getrandbits(8) for _ in range(64)), ""),
        (valid[: len(valid) // 2], ""),
        (b"\x00" + struct.pack(">I", 987_654) + valid[5:], "987654"),
        (b"\x00\x00\x00\x00\x01" + bytes(rnd.getrandbits(8) for _ in range(OVERSIZE - 5)), "truncated"),
        (assignment("nomodel", 1_000_001, 1_000_000, ["nomodel/1000001/0"]), "never come"),
        (assignment(job, 0, 0, [job + "/0/0"]), "out of range"),
    ]


def fuzz(args, d: Deployment, out: Path):
    from confluent_kafka import Producer

    prefix = "fuzz."
    job = "fuzzed"
    registry, http, broker = d.broker(prefix)
    java = d.java_agent(prefix, registry, "java")
    python = d.python_agent(prefix, registry, "python")
    await_workers(http, ["java", "python"])
    codec = Codec(RegistryClient(registry))
    print("fuzz: a job of %d rounds on a Java and a Python agent (%s)" % (args.fuzz_rounds, load()), flush=True)
    trainer = d.start(prefix + "trainer", ata_command() + [
        "trainer", "--bootstrap-servers", d.bootstrap, "--schema-registry-url", registry, "--topic-prefix", prefix,
        "--job", job, "--model", "mlp:32", "--data", "fashion-mnist", "--batch", "2", "--rounds",
        str(args.fuzz_rounds), "--policy", "uta", "--samples-per-task", "8", "--micro-batch", "8",
        "--eval-every", "0"])
    trainer.wait_for(r"^round ([5-9]|\d\d+):", 300)
    workers = {w["worker"]: w for w in get_json(http + "/workers")}
    producer = Producer({"bootstrap.servers": d.bootstrap, "message.max.bytes": 2 * OVERSIZE})
    sent = {}  # (topic, partition, offset) -> (whose, reason)

    def remember(whose, reason):
        def delivered(err, msg):
            if err is not None:
                raise RuntimeError("not sent: %s" % err)
            sent[(msg.topic(), msg.partition(), msg.offset())] = (whose, reason)
        return delivered

    for whose in ("java", "python"):
        partition = workers[whose]["partitions"][0]
        for value, reason in hostile_records(codec, prefix, job, whose, partition, 20261123):
            producer.produce(prefix + "tasks", key=whose, value=value, partition=partition,
                             on_delivery=remember(whose, reason))
    nan_model = codec.encode(prefix + "model", "ModelVersion", {
        "job": "ghost", "version": 1 << 60, "parameters": tensor.encode(np.full(4, np.nan, dtype=np.float32),
                                                                         "FLOAT32_LE"),
        "encoding": "FLOAT32_LE", "chunk": 0, "chunks": 1, "task": None, "objective": 0.0, "timestamp_ms": 1,
        "delivery_margin_ms": 0.0, "median_round_ms": 0.0})
    for value, reason in ((nan_model, "out of range"), (None, "tombstone"),
                          (bytes(np.random.default_rng(5).integers(0, 256, 64, dtype=np.uint8)), "")):
        producer.produce(prefix + "model", key=b"ghost" if value is not None else job.encode(), value=value,
                         on_delivery=remember("both", reason))
    producer.flush(60)
    sent_at = time.monotonic()
    trainer.wait_for(r"job %s finished at round" % job, 120 + args.fuzz_rounds * 10)
    trainer.proc.wait(60)
    time.sleep(3)
    accepted = [int(m.group(1)) for m in (re.search(r"\(accepted (\d+),", line) for line in trainer.lines) if m]
    letters = {}
    for m in read_topic(d.bootstrap, prefix + "dead-letters"):
        letter = codec.decode("DeadLetter", m.value())
        letters.setdefault((letter["source_topic"], letter["partition"], letter["offset"]), []).append(letter)
    rows = []
    for where, (whose, reason) in sorted(sent.items()):
        mine = letters.get(where, [])
        expected = 2 if whose == "both" else 1
        rows.append({"topic": where[0], "partition": where[1], "offset": where[2], "agent": whose, "letters": len(mine),
                     "expected_letters": expected, "reason_ok": bool(mine) and all(reason in x["reason"] for x in mine),
                     "reasons": [x["reason"][:160] for x in mine]})
    alive = {w["worker"]: w["status"] for w in get_json(http + "/workers")}
    result = {"rounds": len(accepted), "rounds_with_all_results": sum(1 for a in accepted if a == 2),
              "java_running": java.proc.poll() is None, "python_running": python.proc.poll() is None,
              "status": alive, "records": rows, "seconds_after_sending": time.monotonic() - sent_at}
    for whose in ("java", "python"):
        own = [r for r in rows if r["agent"] == whose]
        print("  %s agent: %d hostile task records, %d with exactly one letter naming its reason; running: %s, %s"
              % (whose, len(own), sum(1 for r in own if r["letters"] == 1 and r["reason_ok"]),
                 result[whose + "_running"], alive.get(whose)))
    model_rows = [r for r in rows if r["agent"] == "both"]
    print("  model topic: %d hostile records, %d with a letter from each agent naming its reason"
          % (len(model_rows), sum(1 for r in model_rows if r["letters"] == 2 and r["reason_ok"])))
    for r in rows:
        print("    %s@%d %s: %s" % (r["topic"], r["offset"], r["agent"], " | ".join(r["reasons"]) or "NO LETTER"))
    print("  the job: %d rounds closed, %d with both results (%s)" % (
        len(accepted), result["rounds_with_all_results"], load()), flush=True)
    d.stop([trainer, python, java, broker])
    (out / "fuzz.json").write_text(json.dumps(result, indent=1))
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("what", choices=["all", "accuracy", "overhead", "fuzz"])
    p.add_argument("--rounds", type=int, default=40)
    p.add_argument("--time-scale", type=float, default=0.2, help="accuracy: factor on the emulated task times")
    p.add_argument("--sizes", default="128,1260", help="overhead: hidden units of mlp:N (128: 0.1M, 1260: 1M)")
    p.add_argument("--warmup", type=int, default=5, help="overhead: rounds left out first")
    p.add_argument("--overhead-rounds", type=int, default=60, help="all: the overhead part's rounds")
    p.add_argument("--policy", default="uta", help="accuracy: the job's allocation policy")
    p.add_argument("--fuzz-rounds", type=int, default=30)
    p.add_argument("--out", default="out/pyagent-bench")
    args = p.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix="pyagent-bench-"))
    d = Deployment(workdir, task_partitions=4)
    try:
        print("start: %s, %d cores" % (load(), os.cpu_count()), flush=True)
        if args.what in ("all", "accuracy"):
            accuracy(args, d, out)
        if args.what in ("all", "overhead"):
            if args.what == "all":
                args.rounds = args.overhead_rounds
            overhead(args, d, out)
        if args.what in ("all", "fuzz"):
            fuzz(args, d, out)
        print("end: %s" % load())
    finally:
        d.stop()


if __name__ == "__main__":
    main()
