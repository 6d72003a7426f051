"""``python3 -m pyagent``: runs a worker agent until SIGTERM or Ctrl-C, as ``ata worker`` does."""

from __future__ import annotations

import argparse
import importlib
import logging
import re
import signal
import sys
from pathlib import Path
from typing import Dict

from . import devices
from .agent import AgentConfig, WorkerAgent, default_worker_id
from .metrics import AgentMetrics, serve
from .node import Node
from .pacing import TaskPacer, load_scenario_worker, time_model
from .samples import task_seed
from .supervisor import SupervisedAgent

ENCODINGS = {"float32": "FLOAT32_LE", "float16": "FLOAT16_LE", "bfloat16": "BFLOAT16_LE"}


WITH_UNIT = re.compile(r"([0-9]*\.?[0-9]+)\s*(ms|s|m|h)?")
# ISO-8601 as java.time.Duration reads it, without signs: days, hours, minutes, seconds (a fraction)
ISO_8601 = re.compile(r"p(?:([0-9]+)d)?(?:t(?:([0-9]+)h)?(?:([0-9]+)m)?(?:([0-9]+(?:\.[0-9]+)?)s)?)?")
UNITS = {None: 1, "s": 1, "m": 60, "h": 3600}


def duration(text: str) -> float:
    """Seconds from a number with a unit (``500ms``, ``1s``, ``2m``, ``1h``), a plain number of
    seconds, or ISO-8601 (``PT10S``, ``PT1H30M``, ``P1D``, ``PT0.5S``), in any case: what ``ata
    worker`` takes, plain seconds besides."""
    t = text.strip().lower()
    m = WITH_UNIT.fullmatch(t)
    if m:
        value = float(m.group(1))
        return value / 1000 if m.group(2) == "ms" else value * UNITS[m.group(2)]
    m = ISO_8601.fullmatch(t)
    if m and any(m.groups()) and not t.endswith("t"):  # neither "P" nor "PT" alone, nor "P1DT"
        days, hours, minutes, seconds = (float(g or 0) for g in m.groups())
        return ((days * 24 + hours) * 60 + minutes) * 60 + seconds
    raise argparse.ArgumentTypeError("'%s' is not a duration: write seconds (30), 500ms, 1s, 2m, 1h or ISO-8601 "
                                     "(PT10S, PT1H30M, P1D, PT0.5S)" % text)


def read_properties(path: str) -> Dict[str, str]:
    """A Java-style properties file (key=value or key: value lines, # and ! comments)."""
    props = {}
    for line in Path(path).read_text("utf-8").splitlines():
        line = line.strip()
        if not line or line[0] in "#!":
            continue
        m = re.match(r"([^=:\s]+)\s*[=:]?\s*(.*)$", line)
        key, value = m.group(1), m.group(2)
        props[key] = value
    return props


def load_function(spec: str):
    """``module:function`` (the module importable, e.g. on PYTHONPATH) or ``path/file.py:function``."""
    module_name, _, name = spec.rpartition(":")
    if not module_name or not name:
        raise argparse.ArgumentTypeError("--model-function takes MODULE:FUNCTION or FILE.py:FUNCTION, not '%s'" % spec)
    if module_name.endswith(".py"):
        import importlib.util

        spec = importlib.util.spec_from_file_location(Path(module_name).stem, module_name)
        if spec is None:
            raise argparse.ArgumentTypeError("--model-function: cannot load %s" % module_name)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(module_name)
    return getattr(module, name)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python3 -m pyagent",
        description="Run a PyTorch worker agent until SIGTERM or Ctrl-C. It joins the fleet (the consumer group on "
                    "the tasks topic) beside the Java agents, computes the gradients of the networks the jobs name "
                    "(mlp, cnn) on the tasks' samples, and publishes results and timings exactly once.")
    p.add_argument("--bootstrap-servers", help="The Kafka cluster (bootstrap.servers).")
    p.add_argument("--schema-registry-url", help="The Schema Registry every part shares (the URL 'ata broker' "
                   "prints); or schema.registry.url in --command-config.")
    p.add_argument("--command-config", help="Kafka client properties for every client, in librdkafka's names "
                   "(security.protocol, sasl.mechanism, sasl.username, ...); may also hold schema.registry.url "
                   "and basic.auth.user.info.")
    p.add_argument("--topic-prefix", default="ata.", help="Prefix of the topic names (default: ata.).")
    p.add_argument("--worker-id", default="", help="This worker's id, unique in the fleet (default: HOSTNAME-PID).")
    p.add_argument("--group-id", default="", help="Consumer group of the fleet on the tasks topic; every agent "
                   "must share it (default: <topic-prefix>workers).")
    p.add_argument("--heartbeat-interval", type=duration, default=1.0, help="How often to tell the broker this "
                   "worker is alive, e.g. 1s, 500ms (default: 1s).")
    p.add_argument("--threads", type=int, default=0, help="PyTorch threads (default: PyTorch's, all cores).")
    p.add_argument("--device", default="auto", help="Where networks are computed: auto (the first GPU PyTorch sees, "
                   "else the CPU), cpu, gpu or gpu:N (cuda and cuda:N too); several, comma-separated (gpu:0,gpu:1), "
                   "run a worker per device in a process of its own, named <worker id>-0, -1, ... (default: auto).")
    p.add_argument("--data", default=None, help="Training data instead of the data set each job names: "
                   "fashion-mnist or a directory of IDX files; as many samples as the job's.")
    p.add_argument("--gradient-encoding", choices=sorted(ENCODINGS), default="float32",
                   help="How gradients are sent (default: float32).")
    p.add_argument("--model-function", type=load_function, default=None, metavar="MODULE:FUNCTION",
                   help="Compute gradients with your own function (parameters, inputs, labels) -> (gradient, loss) "
                        "instead of the built-in networks; see the docs.")
    p.add_argument("--time-model", default=None, help="Emulate worker --worker-index of this time model: linear, "
                   "log, sqrt, quadratic, gamma, mixture (default: natural speed).")
    p.add_argument("--worker-index", type=int, default=None, help="Which worker of --time-model, 1-based.")
    p.add_argument("--scenario", default=None, help="Emulate the worker named --worker-id of this scenario file of "
                   "'ata simulate' (JSON, or YAML with python3-yaml), its changes after given rounds included.")
    p.add_argument("--time-scale", type=float, default=1.0, help="Factor on every emulated task time (default: 1).")
    p.add_argument("--seed", type=int, default=0, help="Base seed of the emulated times (default: 0).")
    p.add_argument("--model-wait", type=duration, default=5.0, help="How long a parked assignment waits for its model "
                   "version before it is dead-lettered (the agent runs the records behind it meanwhile); one a "
                   "version or two ahead of its job's newest (a round planned ahead) waits while its job's model "
                   "moves, see --stalled-job-wait (default: 5s).")
    p.add_argument("--stalled-job-wait", type=duration, default=600.0, help="How long a parked assignment a version "
                   "or two ahead of its job's newest model waits while that model stays quiet (no version, no slice) "
                   "before it is dead-lettered as the assignment of a stopped job, e.g. 10m, 1h, PT1H30M "
                   "(default: 10m).")
    p.add_argument("--model-retention", type=duration, default=86400.0, help="How long a job's model is kept in "
                   "memory while nothing of it is read; then it is dropped, and read again from the model topic if "
                   "the job comes back, e.g. 24h, 90m, P1D. At least --stalled-job-wait (default: 24h).")
    p.add_argument("--metrics-port", type=int, default=None, help="Serve GET /metrics (Prometheus), /health and "
                   "/ready on this port (with several devices, worker i on this port + i); 0 for any free port "
                   "(default: not served).")
    p.add_argument("--metrics-host", default="127.0.0.1", help="Address --metrics-port listens on (default: "
                   "127.0.0.1; 0.0.0.0 for all).")
    p.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"],
                   help="Log level on stderr (default: info).")
    return p


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser().parse_args(argv)
    logging.basicConfig(level=getattr(logging, args.log_level.upper()), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s [%(threadName)s] %(name)s: %(message)s")
    props = read_properties(args.command_config) if args.command_config else {}
    registry_url = args.schema_registry_url or props.pop("schema.registry.url", None)
    basic_auth = props.pop("basic.auth.user.info", None)
    props.pop("basic.auth.credentials.source", None)
    bootstrap = args.bootstrap_servers or props.pop("bootstrap.servers", None)
    if not bootstrap or not registry_url:
        print("error: --bootstrap-servers and --schema-registry-url are needed (or their properties in "
              "--command-config)", file=sys.stderr)
        return 2
    if args.stalled_job_wait <= 0:
        # 0 would dead-letter every round planned ahead at once (as 'ata worker' refuses it)
        print("error: --stalled-job-wait must be positive, was %s s" % args.stalled_job_wait, file=sys.stderr)
        return 2
    if args.model_retention < args.stalled_job_wait:
        # a round planned ahead of a quiet job must be given up before its job's model is dropped
        # (as 'ata worker' refuses it)
        print("error: --model-retention must be at least --stalled-job-wait (%g s), was %g s"
              % (args.stalled_job_wait, args.model_retention), file=sys.stderr)
        return 2
    try:
        choices = devices.parse_list(args.device)
    except ValueError as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    if len(choices) > 1:
        node = Node(argv, args.worker_id or default_worker_id(), choices, args.metrics_port)
        signal.signal(signal.SIGTERM, node.request_stop)
        signal.signal(signal.SIGINT, node.request_stop)
        return node.run()
    config = AgentConfig(bootstrap_servers=bootstrap, schema_registry_url=registry_url, worker_id=args.worker_id,
                         topic_prefix=args.topic_prefix, group_id=args.group_id,
                         heartbeat_interval=args.heartbeat_interval, model_wait=args.model_wait,
                         stalled_job_wait=args.stalled_job_wait, model_retention=args.model_retention,
                         seed=args.seed,
                         client_properties=props, registry_basic_auth=basic_auth)
    try:
        if args.scenario and args.time_model:
            raise ValueError("--scenario and --time-model exclude each other")
        schedule = None
        if args.scenario:
            if not args.worker_id:
                raise ValueError("--scenario needs --worker-id: which of the scenario's workers to emulate")
            from .pacing import Schedule
            schedule = load_scenario_worker(Path(args.scenario), args.worker_id)
        elif args.time_model:
            from .pacing import Schedule
            schedule = Schedule(time_model(args.time_model, args.worker_index or 1), [])
        pacer = TaskPacer(schedule, args.time_scale, task_seed(args.seed, "pacer/" + config.worker_id))
        from .workload import NetworkWorkload
        workload = NetworkWorkload(args.threads, ENCODINGS[args.gradient_encoding], args.data, args.model_function,
                                   choices[0])
    except (ValueError, OSError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    metrics = AgentMetrics(config.worker_id)
    # started over with new clients if it loses its producer's epoch, as the Java agents are
    agent = SupervisedAgent(lambda: WorkerAgent(config, workload, pacer, metrics))
    if args.metrics_port is not None:
        server = serve(metrics, args.metrics_host, args.metrics_port, agent.ready)
        print("metrics=http://%s:%d/metrics" % (args.metrics_host, server.server_address[1]), flush=True)
    signal.signal(signal.SIGTERM, agent.request_stop)
    signal.signal(signal.SIGINT, agent.request_stop)
    return agent.run()
