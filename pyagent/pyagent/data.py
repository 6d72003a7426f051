"""Training data, read as ata-ml reads it: the IDX files of MNIST and Fashion-MNIST (plain or
gzipped), pixels scaled to [0, 1] as ``byte / 255`` in float32, samples of shape [1, rows, cols].

A job's TaskSpec names its data set (``fashion-mnist``, or the directory name of an IDX directory);
the agent finds ``fashion-mnist`` where ata-ml looks for it (``/usr/share/datasets/fashion-mnist``
from the Debian package ``dataset-fashion-mnist``, ``$ATA_DATA_DIR/fashion-mnist``,
``~/.ata/datasets/fashion-mnist``), or takes the directory ``--data`` gives. Its size must be the
TaskSpec's ``dataset_size``. (The Java parts' generated ``synthetic`` set is not computed here:
give such a job IDX files instead.)
"""

from __future__ import annotations

import gzip
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

import numpy as np

from .topics import java_blank

IMAGES_MAGIC = 2051
LABELS_MAGIC = 2049
TRAIN_FILES = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte")
TEST_FILES = ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")


class DatasetError(ValueError):
    """A data set that is missing or unreadable; the message says what was tried."""


@dataclass
class Dataset:
    name: str
    pixels: np.ndarray  # uint8 [n, rows, cols]
    labels: np.ndarray  # int64 [n]

    @property
    def size(self) -> int:
        return int(self.labels.shape[0])

    @property
    def classes(self) -> int:
        return int(self.labels.max()) + 1 if self.size else 0

    @property
    def feature_shape(self) -> List[int]:
        return [1, int(self.pixels.shape[1]), int(self.pixels.shape[2])]

    def features(self, indices) -> np.ndarray:
        """Samples ``indices`` as float32 [len, 1, rows, cols] in [0, 1] (``byte / 255``)."""
        chosen = self.pixels[np.asarray(indices, dtype=np.int64)]
        return (chosen.astype(np.float32) / np.float32(255.0))[:, None, :, :]

    def targets(self, indices) -> np.ndarray:
        return self.labels[np.asarray(indices, dtype=np.int64)]


def _open(path: Path):
    with open(path, "rb") as f:
        head = f.read(2)
    return gzip.open(path, "rb") if head == b"\x1f\x8b" else open(path, "rb")


def _idx_file(directory: Path, name: str) -> Optional[Path]:
    for candidate in (directory / name, directory / (name + ".gz")):
        if candidate.is_file():
            return candidate
    return None


def load_idx(name: str, images: Path, labels: Path) -> Dataset:
    """One split from its images and labels files."""
    with _open(labels) as f:
        head = f.read(8)
        if len(head) < 8:
            raise DatasetError("%s: truncated header" % labels)
        magic, count = struct.unpack(">ii", head)
        if magic != LABELS_MAGIC:
            raise DatasetError("%s: not an IDX labels file (magic number %d, expected %d)" % (labels, magic, LABELS_MAGIC))
        label_bytes = f.read(count)
        if len(label_bytes) != count:
            raise DatasetError("%s: truncated: the header announces %d labels, found %d" % (labels, count, len(label_bytes)))
    with _open(images) as f:
        head = f.read(16)
        if len(head) < 16:
            raise DatasetError("%s: truncated header" % images)
        magic, n, rows, cols = struct.unpack(">iiii", head)
        if magic != IMAGES_MAGIC:
            raise DatasetError("%s: not an IDX images file (magic number %d, expected %d)" % (images, magic, IMAGES_MAGIC))
        if n != count:
            raise DatasetError("%s has %d images but %s has %d labels" % (images, n, labels, count))
        pixel_bytes = f.read(n * rows * cols)
        if len(pixel_bytes) != n * rows * cols:
            raise DatasetError("%s: truncated: the header announces %d pixels, found %d" % (images, n * rows * cols, len(pixel_bytes)))
    pixels = np.frombuffer(pixel_bytes, dtype=np.uint8).reshape(n, rows, cols)
    return Dataset(name, pixels, np.frombuffer(label_bytes, dtype=np.uint8).astype(np.int64))


def _missing(directory: Path) -> List[str]:
    return [name for name in TRAIN_FILES + TEST_FILES if _idx_file(directory, name) is None]


def fashion_mnist_places() -> List[Path]:
    places = [Path("/usr/share/datasets/fashion-mnist")]
    data_dir = os.environ.get("ATA_DATA_DIR", "")
    if not java_blank(data_dir):
        places.append(Path(data_dir) / "fashion-mnist")
    places.append(Path.home() / ".ata" / "datasets" / "fashion-mnist")
    return places


def training_set(value: str) -> Dataset:
    """The training split of a ``--data`` value or a TaskSpec's ``dataset``: ``fashion-mnist`` or
    a directory of the four IDX files."""
    data = (value or "").strip()
    if not data:
        raise DatasetError("no data set named")
    if data.lower() == "fashion-mnist":
        looked = []
        for place in fashion_mnist_places():
            if place.is_dir() and not _missing(place):
                return load_idx("fashion-mnist/train", _idx_file(place, TRAIN_FILES[0]), _idx_file(place, TRAIN_FILES[1]))
            looked.append(str(place))
        raise DatasetError("Fashion-MNIST not found; looked in %s. Install the Debian package dataset-fashion-mnist, "
                           "or pass --data DIR" % ", ".join(looked))
    if data.lower() == "synthetic" or data.lower().startswith("synthetic:"):
        raise DatasetError("the data set %s is generated by the Java parts and not computed by this agent: "
                           "train the job on fashion-mnist or a directory of IDX files" % data)
    path = Path(data)
    if path.is_dir():
        missing = _missing(path)
        if missing:
            raise DatasetError("%s lacks %s (plain or .gz)" % (data, ", ".join(missing)))
        return load_idx(path.name + "/train", _idx_file(path, TRAIN_FILES[0]), _idx_file(path, TRAIN_FILES[1]))
    raise DatasetError("%s: no such data set (expected fashion-mnist or a directory of IDX files)" % data)


def write_idx(directory: Path, train_pixels: np.ndarray, train_labels: np.ndarray,
              test_pixels: np.ndarray, test_labels: np.ndarray) -> Path:
    """Writes the four IDX files of a data set (for tests and examples); returns the directory."""
    directory.mkdir(parents=True, exist_ok=True)
    for (images_name, labels_name), pixels, labels in (
            (TRAIN_FILES, train_pixels, train_labels), (TEST_FILES, test_pixels, test_labels)):
        pixels = np.asarray(pixels, dtype=np.uint8)
        with open(directory / images_name, "wb") as f:
            f.write(struct.pack(">iiii", IMAGES_MAGIC, pixels.shape[0], pixels.shape[1], pixels.shape[2]))
            f.write(pixels.tobytes())
        with open(directory / labels_name, "wb") as f:
            f.write(struct.pack(">ii", LABELS_MAGIC, len(labels)))
            f.write(np.asarray(labels, dtype=np.uint8).tobytes())
    return directory


def generated_images(n: int, seed: int, classes: int = 10, side: int = 28):
    """``n`` labelled 28x28 images with some structure (a class-dependent blob plus noise), for
    tests that must not depend on a downloaded data set."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, classes, size=n)
    yy, xx = np.mgrid[0:side, 0:side]
    centres = rng.uniform(6, side - 6, size=(classes, 2))
    blobs = np.exp(-((yy[None] - centres[:, 0, None, None]) ** 2 + (xx[None] - centres[:, 1, None, None]) ** 2) / 18.0)
    images = blobs[labels] * 200 + rng.normal(0, 30, size=(n, side, side))
    return np.clip(images, 0, 255).astype(np.uint8), labels.astype(np.uint8)
