"""What a task computes: the network's mean cross-entropy gradient in the flat layout, the same in
micro-batches as in one batch, stopped between micro-batches, or by a model function of one's own."""

import pytest

from conftest import require_packages

require_packages("numpy", "torch")

import numpy as np  # noqa: E402
import torch  # noqa: E402

from pyagent import tensor  # noqa: E402
from pyagent.data import generated_images, training_set, write_idx  # noqa: E402
from pyagent.network import NetworkSpec, TaskComputer, forward  # noqa: E402
from pyagent.samples import task_samples  # noqa: E402
from pyagent.workload import NetworkWorkload  # noqa: E402


def reference(spec, flat, inputs, labels):
    """torch.nn modules holding the flat parameters in the documented layout, one batch."""
    layers = []
    shape = inputs.shape[1:]
    for kind, size in spec.layers:
        if kind == "dense":
            layers.append(torch.nn.Linear(int(np.prod(shape)) if len(shape) > 1 else shape[0], size))
            shape = (size,)
        elif kind == "conv":
            layers.append(torch.nn.Conv2d(shape[0], size, 3, padding=1))
            shape = (size, shape[1], shape[2])
        elif kind == "relu":
            layers.append(torch.nn.ReLU())
        elif kind == "pool":
            layers.append(torch.nn.MaxPool2d(2, 2))
            shape = (shape[0], shape[1] // 2, shape[2] // 2)
        elif kind == "flatten":
            layers.append(torch.nn.Flatten())
            shape = (shape[0] * shape[1] * shape[2],)
    net = torch.nn.Sequential(*layers)
    at = 0
    for p in net.parameters():
        p.data = torch.from_numpy(flat[at:at + p.numel()].copy()).view(p.shape)
        at += p.numel()
    x = torch.from_numpy(inputs)
    if spec.kind == "mlp":
        x = x.reshape(x.shape[0], -1)
    loss = torch.nn.functional.cross_entropy(net(x), torch.from_numpy(labels.astype(np.int64)))
    loss.backward()
    return torch.cat([p.grad.reshape(-1) for p in net.parameters()]).numpy(), float(loss)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    pixels, labels = generated_images(300, seed=2)
    return training_set(str(write_idx(tmp_path_factory.mktemp("idx") / "tiny", pixels, labels, pixels[:30], labels[:30])))


@pytest.mark.parametrize("network", ["mlp:32,16", "cnn:4,8"])
def test_micro_batches_give_the_batch_gradient(data, network):
    torch.manual_seed(0)
    spec = NetworkSpec.parse(network)
    flat = (np.random.default_rng(5).standard_normal(spec.parameter_count()) * 0.1).astype(np.float32)
    idx = task_samples(0, "j/1/0", data.size, 24)
    inputs, labels = data.features(idx), data.targets(idx)
    expected, expected_loss = reference(spec, flat, inputs, labels)
    computer = TaskComputer(spec, micro_batch=5)
    computer.use(1, flat)
    gradient, loss, samples = computer.compute(inputs, labels, lambda: False)
    assert samples == 24 and gradient.dtype == np.float32 and gradient.shape == expected.shape
    assert np.linalg.norm(gradient - expected) <= 1e-5 * np.linalg.norm(expected)
    assert loss == pytest.approx(expected_loss, rel=1e-6)


def test_a_task_stops_between_micro_batches(data):
    spec = NetworkSpec.parse("mlp:8")
    computer = TaskComputer(spec, micro_batch=4)
    computer.use(1, np.zeros(spec.parameter_count(), dtype=np.float32))
    asked = []

    def stop():
        asked.append(1)
        return len(asked) > 2

    idx = list(range(16))
    assert computer.compute(data.features(idx), data.targets(idx), stop) is None
    assert len(asked) == 3  # before the first, the second and the third micro-batch


def test_a_model_function_of_ones_own(data):
    spec = NetworkSpec.parse("mlp:8")

    def gradient(parameters, inputs, labels):
        leaves = [p.clone().requires_grad_(True) for p in parameters]
        loss = torch.nn.functional.cross_entropy(forward(spec, leaves, inputs), labels)
        return torch.autograd.grad(loss, leaves), float(loss)

    flat = (np.random.default_rng(1).standard_normal(spec.parameter_count()) * 0.1).astype(np.float32)
    idx = list(range(12))
    builtin = TaskComputer(spec, 5)
    builtin.use(1, flat)
    own = TaskComputer(spec, 5, gradient)
    own.use(1, flat)
    a = builtin.compute(data.features(idx), data.targets(idx), lambda: False)
    b = own.compute(data.features(idx), data.targets(idx), lambda: False)
    assert np.allclose(a[0], b[0], rtol=1e-5, atol=1e-7) and a[1] == pytest.approx(b[1])


def model_of(job, version, spec, data, flat, **task):
    spec_task = dict(network=str(spec), parameters=[{"name": p.name, "shape": list(p.shape)} for p in spec.layout()],
                     dtype="float32", dataset=data, dataset_size=300, samples_per_task=8, sample_seed=3, micro_batch=4)
    spec_task.update(task)
    return {"job": job, "version": version, "parameters": tensor.encode(flat, "FLOAT32_LE"), "encoding": "FLOAT32_LE",
            "chunk": 0, "chunks": 1, "task": spec_task}


def test_the_workload_checks_the_task_spec(data, tmp_path):
    pixels, labels = generated_images(300, seed=2)
    folder = write_idx(tmp_path / "set", pixels, labels, pixels[:30], labels[:30])
    spec = NetworkSpec.parse("mlp:8")
    workload = NetworkWorkload(threads=1, data=str(folder))
    flat = np.zeros(spec.parameter_count(), dtype=np.float32)
    out = workload.compute(model_of("j", 1, spec, "set", flat), "j/1/0", lambda: False)
    gradient, encoding, loss, samples = out
    assert encoding == "FLOAT32_LE" and len(gradient) == 4 * spec.parameter_count() and samples == 8
    with pytest.raises(ValueError, match="300 training samples, the job's set has 500"):
        workload.prepare(model_of("k", 1, spec, "set", flat, dataset_size=500))
    wrong = model_of("m", 1, spec, "set", flat)
    wrong["task"]["parameters"][0]["shape"] = [9, 784]
    with pytest.raises(ValueError, match="parameters do not fit"):
        workload.prepare(wrong)
    quadratic = dict(model_of("q", 1, spec, "set", flat), task=None)
    with pytest.raises(ValueError, match="no TaskSpec"):
        workload.prepare(quadratic)


def test_the_documented_example_is_the_built_in_gradient(data):
    import importlib.util
    from conftest import REPO

    loaded = importlib.util.spec_from_file_location("mlp_gradient", REPO / "pyagent/examples/mlp_gradient.py")
    example = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(example)
    spec = NetworkSpec.parse("mlp:16,8")
    flat = (np.random.default_rng(4).standard_normal(spec.parameter_count()) * 0.1).astype(np.float32)
    idx = list(range(20))
    builtin = TaskComputer(spec, 8)
    builtin.use(1, flat)
    own = TaskComputer(spec, 8, example.gradient)
    own.use(1, flat)
    a = builtin.compute(data.features(idx), data.targets(idx), lambda: False)
    b = own.compute(data.features(idx), data.targets(idx), lambda: False)
    assert np.linalg.norm(a[0] - b[0]) <= 1e-5 * np.linalg.norm(a[0]) and a[1] == pytest.approx(b[1], rel=1e-6)
