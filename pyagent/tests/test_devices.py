"""``--device``: the grammar ``ata worker`` reads, a list for a node of several devices, what each
choice resolves to, and how a node's workers are started (their ids, devices and ports)."""

from __future__ import annotations

import types

import pytest

from pyagent import devices


def test_the_grammar_is_ata_workers_with_pytorchs_names_besides():
    assert devices.parse("auto") == devices.AUTO
    assert devices.parse(" CPU ") == devices.CPU
    assert devices.parse("gpu") == devices.DeviceChoice("gpu", 0)
    assert devices.parse("gpu:3") == devices.DeviceChoice("gpu", 3)
    assert devices.parse("cuda:1") == devices.DeviceChoice("gpu", 1)
    assert devices.parse("cuda") == devices.DeviceChoice("gpu", 0)
    assert str(devices.parse("cuda:2")) == "gpu:2"
    for bad in ("tpu", "gpu:", "gpu:-1", "gpu:x", "", "cpu:0"):
        with pytest.raises(ValueError, match="expected auto, cpu, gpu or gpu:N"):
            devices.parse(bad)


def test_a_list_names_each_device():
    assert devices.parse_list("gpu:0,gpu:1") == [devices.DeviceChoice("gpu", 0), devices.DeviceChoice("gpu", 1)]
    assert devices.parse_list("cpu,cpu") == [devices.CPU, devices.CPU]
    assert devices.parse_list("auto") == [devices.AUTO]
    with pytest.raises(ValueError, match="not auto"):
        devices.parse_list("gpu:0,auto")
    with pytest.raises(ValueError, match="expected"):
        devices.parse_list("gpu:0,")


def fake_torch(gpus):
    """What ``resolve`` asks of PyTorch: how many CUDA devices it sees, and its device type."""
    cuda = types.SimpleNamespace(is_available=lambda: gpus > 0, device_count=lambda: gpus)
    return types.SimpleNamespace(cuda=cuda, device=lambda kind, index=None: (kind, index))


def test_auto_is_the_first_gpu_if_pytorch_sees_one_else_the_cpu():
    assert devices.AUTO.resolve(fake_torch(2)) == ("cuda", 0)
    assert devices.AUTO.resolve(fake_torch(0)) == ("cpu", None)
    assert devices.CPU.resolve(fake_torch(2)) == ("cpu", None)
    assert devices.parse("gpu:1").resolve(fake_torch(2)) == ("cuda", 1)


def test_a_gpu_pytorch_does_not_see_is_refused_saying_why():
    with pytest.raises(ValueError, match=r"device gpu:2: PyTorch sees 2 GPU\(s\)"):
        devices.parse("gpu:2").resolve(fake_torch(2))
    with pytest.raises(ValueError, match="CPU-only PyTorch build"):
        devices.parse("gpu").resolve(fake_torch(0))


def test_on_this_machine_the_workload_computes_where_the_device_resolves():
    torch = pytest.importorskip("torch")
    from pyagent.workload import NetworkWorkload

    workload = NetworkWorkload(threads=1, device="auto")
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert workload.torch_device.type == expected
    assert workload.device()[0] == ("GPU" if expected == "cuda" else "CPU")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="PyTorch sees 0 GPU"):
            NetworkWorkload(threads=1, device="gpu:0")


def test_a_networks_gradient_is_the_same_through_an_explicit_device():
    torch = pytest.importorskip("torch")
    import numpy as np

    from pyagent.network import NetworkSpec, TaskComputer

    spec = NetworkSpec.parse("mlp:8")
    flat = np.random.default_rng(3).normal(0, 0.1, spec.parameter_count()).astype(np.float32)
    inputs = np.random.default_rng(4).random((6, 1, 28, 28), dtype=np.float32)
    labels = np.arange(6) % 10
    default = TaskComputer(spec, 4)
    placed = TaskComputer(spec, 4, device=torch.device("cpu"))
    default.use(1, flat)
    placed.use(1, flat)
    a = default.compute(inputs, labels, lambda: False)
    b = placed.compute(inputs, labels, lambda: False)
    assert np.array_equal(a[0], b[0]) and a[1] == b[1] and a[2] == b[2]
    assert b[0].dtype == np.float32
