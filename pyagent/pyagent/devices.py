"""What computes a worker's tasks: ``--device`` as ``ata worker`` reads it (``auto``, ``cpu``,
``gpu``, ``gpu:N``; PyTorch's ``cuda`` and ``cuda:N`` besides), a comma-separated list for a node
with several devices, and the PyTorch device each choice resolves to on this machine."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import List, Optional

_GPU = re.compile(r"(?:gpu|cuda)(?::([0-9]+))?")


@dataclass(frozen=True)
class DeviceChoice:
    """``kind`` is auto, cpu or gpu; ``index`` the GPU's (0 for ``gpu`` alone), None otherwise."""

    kind: str
    index: Optional[int] = None

    def __str__(self) -> str:
        return "gpu:%d" % self.index if self.kind == "gpu" else self.kind

    def resolve(self, torch) -> "torch.device":
        """The PyTorch device: ``auto`` is the first GPU if PyTorch sees one, else the CPU; a GPU
        asked for that PyTorch does not see is an error naming why (as ``ata worker`` refuses it)."""
        gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if self.kind == "cpu":
            return torch.device("cpu")
        if self.kind == "auto":
            return torch.device("cuda", 0) if gpus > 0 else torch.device("cpu")
        if self.index >= gpus:
            raise ValueError("device %s: PyTorch sees %d GPU(s) (a CPU-only PyTorch build, or no CUDA device); use "
                             "--device cpu or auto" % (self, gpus))
        return torch.device("cuda", self.index)


AUTO = DeviceChoice("auto")
CPU = DeviceChoice("cpu")


def parse(text: str) -> DeviceChoice:
    """One device: ``auto``, ``cpu``, ``gpu``, ``gpu:N``, ``cuda``, ``cuda:N`` (any case)."""
    value = (text or "").strip().lower()
    if value == "auto":
        return AUTO
    if value == "cpu":
        return CPU
    m = _GPU.fullmatch(value)
    if m:
        return DeviceChoice("gpu", int(m.group(1) or 0))
    raise ValueError("device '%s': expected auto, cpu, gpu or gpu:N (N = 0, 1, ...; cuda and cuda:N too)" % text)


def parse_list(text: str) -> List[DeviceChoice]:
    """``--device``: one device, or several separated by commas, each a worker of its own; a list
    names each device (``auto`` only alone), as ``ata worker`` reads it."""
    choices = [parse(part) for part in (text or "").split(",")]
    if len(choices) > 1 and AUTO in choices:
        raise ValueError("--device %s: name each device of a list (cpu, gpu:N), not auto" % text)
    return choices
