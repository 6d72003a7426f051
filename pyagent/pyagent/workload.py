"""What a task computes: the gradient of the network a model version's TaskSpec names, on the
task's samples (see :mod:`pyagent.network` and :mod:`pyagent.samples`).

For a model version of job ``J`` with TaskSpec ``T``: the network is ``T.network``, whose layout
must be ``T.parameters`` and whose dtype ``T.dtype``; the training set is ``T.dataset`` found by
name (or the agent's ``--data``) and must have ``T.dataset_size`` samples; task ``J/r/i`` uses
``task_samples(T.sample_seed, "J/r/i", T.dataset_size, T.samples_per_task)``, in micro-batches of
``T.micro_batch``. Anything that does not fit raises ValueError naming it, which the agent
dead-letters. Networks are kept for 4 jobs at most, and their parameters are set once per version.
"""

from __future__ import annotations

import logging
import os
import platform
from collections import OrderedDict
from typing import Callable, Optional

from . import devices, tensor
from .data import Dataset, training_set
from .network import ModelFunction, NetworkSpec, ParameterShape, TaskComputer, layout_problem
from .samples import task_samples

log = logging.getLogger(__name__)

MAX_JOBS = 4


def check(job: str, task: dict, data: Dataset) -> NetworkSpec:
    """The network the TaskSpec names, after checking the TaskSpec and the data set against each other."""
    where = "job %s: " % job
    try:
        spec = NetworkSpec.parse(task["network"])
    except ValueError as e:
        raise ValueError(where + str(e)) from None
    if task.get("dtype", "float32") != spec.dtype:
        raise ValueError(where + "the TaskSpec's dtype is %s, the network %s computes in %s" % (task["dtype"], spec, spec.dtype))
    described = [ParameterShape(p["name"], tuple(p["shape"])) for p in task["parameters"]]
    problem = layout_problem(described, spec.layout(), "the network %s built here" % spec)
    if problem:
        raise ValueError(where + "the TaskSpec's parameters do not fit: " + problem)
    if data.size != task["dataset_size"]:
        raise ValueError(where + "the data set %s here has %d training samples, the job's %s has %d (another version "
                         "of it, or --data names another one)" % (data.name, data.size, task["dataset"], task["dataset_size"]))
    if int(data.pixels.shape[1] * data.pixels.shape[2]) != spec.input_size:
        raise ValueError(where + "the network %s takes %d input features, but %s has samples of %s"
                         % (spec, spec.input_size, data.name, data.feature_shape))
    if data.classes > spec.classes:
        raise ValueError(where + "the network %s has %d classes, but %s has %d" % (spec, spec.classes, data.name, data.classes))
    if task["samples_per_task"] < 1 or task["samples_per_task"] > task["dataset_size"]:
        raise ValueError(where + "a task of %d samples does not fit a data set of %d" % (task["samples_per_task"], task["dataset_size"]))
    if task.get("micro_batch", 16) < 1:
        raise ValueError(where + "micro-batch %d is below 1" % task["micro_batch"])
    return spec


class JobNetwork:
    def __init__(self, job: str, task: dict, data: Dataset, model_function: Optional[ModelFunction], device=None):
        self.job = job
        self.task = task
        self.spec = check(job, task, data)
        self.data = data
        self.computer = TaskComputer(self.spec, task.get("micro_batch", 16), model_function, device)

    def use(self, model: dict) -> None:
        key = (model["version"], id(model["parameters"]))
        if key != self.computer.version_key:
            self.computer.use(key, tensor.decode_floats(model["parameters"], model["encoding"]))

    def compute(self, task_id: str, stop: Callable[[], bool]):
        t = self.task
        samples = task_samples(t["sample_seed"], task_id, t["dataset_size"], t["samples_per_task"])
        shape = [len(samples)] + list(self.data.feature_shape)
        inputs = self.data.features(samples).reshape(shape)
        return self.computer.compute(inputs, self.data.targets(samples), stop)


class NetworkWorkload:
    """Confined to the agent's task thread, but ``device()`` may be called from any.

    ``device`` (text as ``--device`` takes it, or a :class:`DeviceChoice`) is where the networks run:
    the CPU, or a CUDA GPU that PyTorch sees (``auto``: the first GPU if there is one)."""

    def __init__(self, threads: int = 0, encoding: str = "FLOAT32_LE", data: Optional[str] = None,
                 model_function: Optional[ModelFunction] = None, device="cpu"):
        import torch

        if threads > 0:
            torch.set_num_threads(threads)
        if encoding not in tensor.GRADIENT_ENCODINGS:
            raise ValueError("gradient encoding %s is not one of %s" % (encoding, ", ".join(tensor.GRADIENT_ENCODINGS)))
        choice = device if isinstance(device, devices.DeviceChoice) else devices.parse(device)
        self.torch_device = choice.resolve(torch)
        self.encoding = encoding
        self.data = data
        self.model_function = model_function
        self.datasets = {}
        self.jobs: "OrderedDict[str, JobNetwork]" = OrderedDict()
        self.threads = torch.get_num_threads()

    def _dataset(self, name: str) -> Dataset:
        key = self.data or name
        if key not in self.datasets:
            self.datasets[key] = training_set(key)
        return self.datasets[key]

    def network(self, job: str, task: dict) -> JobNetwork:
        cached = self.jobs.get(job)
        if cached is not None and cached.task == task:
            self.jobs.move_to_end(job)
            return cached
        self.jobs.pop(job, None)
        built = JobNetwork(job, task, self._dataset(task["dataset"]), self.model_function, self.torch_device)
        # the first passes set up kernels and allocator: a throw-away gradient, out of any task's time
        flat = built.spec.parameter_count()
        import numpy as np
        built.computer.use(("warm-up",), np.zeros(flat, dtype=np.float32))
        built.compute(job + "/warm-up", lambda: False)
        built.computer.version_key = None
        self.jobs[job] = built
        log.info("built the network of job %s: %s, %s", job, built.spec, built.data.name)
        while len(self.jobs) > MAX_JOBS:
            self.jobs.popitem(last=False)
        return built

    def prepare(self, model: dict) -> None:
        """Readies the job's network and parameters before a task's clock starts."""
        task = self._task_of(model)
        self.network(model["job"], task).use(model)

    def compute(self, model: dict, task_id: str, stop: Callable[[], bool]):
        """``(gradient bytes, encoding, loss, samples)``, or None if ``stop`` said so part-way."""
        task = self._task_of(model)
        job = self.network(model["job"], task)
        job.use(model)
        out = job.compute(task_id, stop)
        if out is None:
            return None
        gradient, loss, samples = out
        return tensor.encode(gradient, self.encoding), self.encoding, float(loss), int(samples)

    @staticmethod
    def _task_of(model: dict) -> dict:
        task = model.get("task")
        if task is None:
            raise ValueError("model of job %s version %d has no TaskSpec: the quadratic problem is computed by the "
                             "Java agents only" % (model["job"], model["version"]))
        return task

    def device(self):
        """(kind, name, memory bytes, threads) of what computes the tasks."""
        if self.torch_device.type == "cuda":
            import torch

            index = self.torch_device.index or 0
            return ("GPU", torch.cuda.get_device_name(index), torch.cuda.get_device_properties(index).total_memory,
                    self.threads)
        return "CPU", cpu_name(), physical_memory(), self.threads

    def describe(self) -> str:
        custom = "" if self.model_function is None else ", a model function"
        where = "the CPU" if self.torch_device.type == "cpu" else "GPU %s (%s)" % (self.torch_device, self.device()[1])
        return "networks on %s (%d CPU thread(s), %s gradients%s)" % (where, self.threads, self.encoding, custom)


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "CPU"


def physical_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 0
