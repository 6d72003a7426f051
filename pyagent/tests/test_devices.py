"""``--device``: the grammar ``ata worker`` reads, a list for a node of several devices, what each
choice resolves to, and how a node's workers are started (their ids, devices and ports)."""

from __future__ import annotations

import types

import pytest

from pyagent import devices
from pyagent.cli import main
from pyagent.node import Node, worker_args, worker_port


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


def test_each_worker_of_a_node_gets_its_id_device_and_port_after_the_nodes_options():
    argv = ["--bootstrap-servers", "k:9092", "--device", "gpu:0,gpu:1", "--metrics-port", "9100"]
    args = worker_args(argv, "node-1", devices.DeviceChoice("gpu", 1), worker_port(9100, 1))
    assert args[-6:] == ["--worker-id", "node-1", "--device", "gpu:1", "--metrics-port", "9101"]
    # argparse keeps the last value of an option given twice: the worker's
    from pyagent.cli import parser
    parsed = parser().parse_args(args)
    assert (parsed.worker_id, parsed.device, parsed.metrics_port) == ("node-1", "gpu:1", 9101)
    assert worker_port(0, 3) == 0, "any free port stays any free port"
    assert worker_port(None, 3) is None
    node = Node(argv, "node", [devices.CPU, devices.CPU], 9100, python="python3")
    assert node.worker_ids == ["node-0", "node-1"]
    assert [c[:3] for c in node.commands] == [["python3", "-m", "pyagent"]] * 2


@pytest.mark.parametrize("device, message", [
    ("cpu,auto", "not auto"),
    ("tpu", "expected auto, cpu, gpu or gpu:N"),
])
def test_a_bad_device_is_a_usage_error(device, message, capsys):
    status = main(["--bootstrap-servers", "127.0.0.1:1", "--schema-registry-url", "http://127.0.0.1:1",
                   "--device", device])
    assert status == 2
    assert message in capsys.readouterr().err
