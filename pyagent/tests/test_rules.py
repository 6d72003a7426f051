"""The rules a task's result depends on: the sample rule (values pinned by the Java tests), tensor
encodings, the networks' text form and parameter layout, and the IDX files."""

import struct

import pytest

from conftest import require_packages

require_packages("numpy")

import numpy as np  # noqa: E402

from pyagent import tensor  # noqa: E402
from pyagent.data import DatasetError, generated_images, training_set, write_idx  # noqa: E402
from pyagent.network import NetworkSpec  # noqa: E402
from pyagent.samples import SplittableRandom, task_samples  # noqa: E402


def test_samples_are_the_java_rules():
    # the values ml/src/test/java/io/ata/ml/data/TaskSamplesTest.java pins
    assert task_samples(0, "job/0/0", 10, 10) == [1, 4, 7, 2, 3, 6, 5, 0, 8, 9]
    assert task_samples(42, "fmnist/3/7", 60000, 8) == [33661, 47264, 20936, 51509, 45224, 29427, 43556, 13268]
    assert task_samples(7, "j/12/0", 1000, 5) == [862, 142, 951, 255, 206]
    assert task_samples(-5, "run-a/1/31", 16, 4) == [7, 6, 13, 3]


def test_samples_are_distinct_and_a_prefix_of_a_longer_task():
    everything = task_samples(3, "job/1/2", 1000, 1000)
    assert sorted(everything) == list(range(1000))
    assert task_samples(3, "job/1/2", 1000, 37) == everything[:37]
    with pytest.raises(ValueError, match="a task of 11 samples does not fit a data set of 10"):
        task_samples(0, "j/0/0", 10, 11)


def test_splittable_random_is_javas():
    # new SplittableRandom(0).nextLong(), nextInt(): known values of the JDK's generator
    r = SplittableRandom(0)
    first = r.next_long()
    assert first == 0xE220A8397B1DCDAF


@pytest.mark.parametrize("encoding", ["FLOAT32_LE", "FLOAT16_LE", "BFLOAT16_LE", "FLOAT64_LE"])
def test_encodings_round_trip(encoding):
    values = np.array([0.0, 1.0, -2.5, 0.375, 1024.0], dtype=np.float32)
    data = tensor.encode(values, encoding)
    assert len(data) == 5 * tensor.BYTES_PER_VALUE[encoding]
    assert np.array_equal(tensor.decode(data, encoding).astype(np.float32), values)


def test_half_floats_round_as_java_does():
    def f16(x):
        return struct.unpack("<H", tensor.encode(np.array([x], dtype=np.float32), "FLOAT16_LE"))[0]

    assert f16(65520.0) == 0x7C00  # halfway past the largest: infinity
    assert f16(65519.0) == 0x7BFF
    assert f16(-0.0) == 0x8000
    assert f16(2.0 ** -24) == 0x0001
    assert f16(2.0 ** -25) == 0x0000  # a tie, to the even zero
    bf = tensor.encode(np.array([1.0 + 2 ** -8, 1.0 + 3 * 2 ** -8, float("nan")], dtype=np.float32), "BFLOAT16_LE")
    a, b, nan = struct.unpack("<3H", bf)
    assert a == 0x3F80 and b == 0x3F82  # ties to even, both ways
    assert nan & 0x7FC0 == 0x7FC0


def test_non_finite_values_are_found():
    data = tensor.encode(np.array([1, 2, np.inf, np.nan], dtype=np.float32), "FLOAT32_LE")
    assert tensor.first_non_finite(data, "FLOAT32_LE") == 2
    assert tensor.length(b"\x00" * 7, "FLOAT32_LE") == -1


def test_networks_parse_and_lay_out_as_ata_ml():
    mlp = NetworkSpec.parse("mlp")
    assert str(mlp) == "mlp:256,128,in=784,classes=10" and mlp.parameter_count() == 235_146
    assert [(p.name, p.shape) for p in mlp.layout()][:2] == [("01Linear_weight", (256, 784)), ("01Linear_bias", (256,))]
    assert [p.name for p in mlp.layout()][-2:] == ["05Linear_weight", "05Linear_bias"]
    cnn = NetworkSpec.parse("cnn")
    assert str(cnn) == "cnn:16,32,32,in=1x28x28,classes=10" and cnn.parameter_count() == 29_738
    assert [p.name for p in cnn.layout()] == ["01Conv2d_weight", "01Conv2d_bias", "04Conv2d_weight", "04Conv2d_bias",
                                              "07Conv2d_weight", "07Conv2d_bias", "10Linear_weight", "10Linear_bias"]
    assert NetworkSpec.parse(str(cnn)) == cnn
    assert NetworkSpec.parse("mlp:64,in=20,classes=3").parameter_count() == 20 * 64 + 64 + 64 * 3 + 3
    for bad in ("rnn", "mlp:", "mlp:0", "cnn:8,8,in=1x2x2", "mlp:4,dtype=float64", "mlp:4,classes=1"):
        with pytest.raises(ValueError):
            NetworkSpec.parse(bad)


def test_network_text_is_trimmed_and_its_numbers_read_as_java_reads_them():
    """Java's trim() removes U+0000-U+0020 only and Integer.parseInt takes a sign and digits in the
    32-bit range: a spec the Java side refuses is refused here too, and one it takes is taken."""
    assert NetworkSpec.parse("\x00 mlp:8,\t16\x1f ").hidden == (8, 16)
    assert NetworkSpec.parse("mlp:+8").hidden == (8,)
    for bad in ("mlp:256\u00a0", "\u0085mlp:8", "mlp:1_000", "mlp:2147483648", "mlp:8,in=7x\u20037"):
        with pytest.raises(ValueError):
            NetworkSpec.parse(bad)
    assert NetworkSpec.parse("mlp:2147483647,in=1").hidden == (2147483647,)


def test_idx_files_read_back_scaled_to_one(tmp_path):
    pixels, labels = generated_images(50, seed=1)
    write_idx(tmp_path / "tiny", pixels, labels, pixels[:10], labels[:10])
    data = training_set(str(tmp_path / "tiny"))
    assert data.size == 50 and data.feature_shape == [1, 28, 28] and data.name == "tiny/train"
    features = data.features([3, 0])
    assert features.shape == (2, 1, 28, 28) and features.dtype == np.float32
    assert features[0, 0, 5, 7] == np.float32(pixels[3, 5, 7]) / np.float32(255)
    assert list(data.targets([3, 0])) == [labels[3], labels[0]]
    with pytest.raises(DatasetError, match="lacks"):
        (tmp_path / "half").mkdir()
        training_set(str(tmp_path / "half"))
    with pytest.raises(DatasetError, match="generated by the Java parts"):
        training_set("synthetic")
