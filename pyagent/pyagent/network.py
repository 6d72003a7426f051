"""The networks a TaskSpec names (ata-ml's NetworkSpec), their flat parameter layout, and the
gradient a task computes, in PyTorch.

Text form: ``KIND[:ITEM,...]`` with KIND ``mlp`` or ``cnn`` and ITEMs ``N`` (a hidden layer's
units or filters), ``in=D[xD...]``, ``classes=N``, ``dtype=float32``; e.g.
``mlp:256,128,in=784,classes=10``. Presets: ``mlp`` = 784-256-128-10, ``cnn`` =
conv16-pool-conv32-pool-conv32-linear10 on 1x28x28.

Layout (the order of the flat parameter vector, named as DJL names them): for each layer in
sequence, at its 1-based position ``NN`` (two digits at least), a dense layer has
``NNLinear_weight`` [units, in] and ``NNLinear_bias`` [units], a 3x3 convolution (padding 1)
``NNConv2d_weight`` [filters, C, 3, 3] and ``NNConv2d_bias`` [filters]; ReLU, 2x2 max-pool and
flatten take positions but no parameters. mlp: Dense, ReLU per hidden size, then Dense(classes).
cnn: Conv, ReLU (and a max-pool after each of the first two) per hidden size, Flatten,
Dense(classes).

A task's gradient is the mean softmax cross-entropy over its samples, taken in micro-batches of
``micro_batch`` samples: each micro-batch's mean loss times its share of the samples is
back-propagated, and the gradients accumulate (as the Java agents do), with a check between
micro-batches whether the task should stop.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Sequence, Tuple

import numpy as np

from .topics import java_blank, java_int, java_trim

MLP_PRESET = (256, 128)
CNN_PRESET = (16, 32, 32)
IMAGE_28 = (1, 28, 28)
CNN_POOLED_LAYERS = 2
FLOAT32 = "float32"


@dataclass(frozen=True)
class ParameterShape:
    name: str
    shape: Tuple[int, ...]

    @property
    def size(self) -> int:
        return int(math.prod(self.shape))


@dataclass(frozen=True)
class NetworkSpec:
    kind: str  # "mlp" or "cnn"
    input_shape: Tuple[int, ...]
    hidden: Tuple[int, ...]
    classes: int
    dtype: str = FLOAT32
    layers: Tuple[Tuple[str, int], ...] = field(default=(), compare=False)

    def __post_init__(self):
        if self.kind not in ("mlp", "cnn"):
            raise ValueError("unknown network kind '%s'" % self.kind)
        if self.dtype != FLOAT32:
            raise ValueError("dtype %s is not supported (only float32)" % self.dtype)
        if self.classes < 2:
            raise ValueError("classes=%d: a classifier needs at least 2 classes" % self.classes)
        if not self.hidden:
            raise ValueError("%s needs at least one hidden layer size" % self.kind)
        if any(h < 1 for h in self.hidden) or any(d < 1 for d in self.input_shape):
            raise ValueError("layer sizes and input dimensions must be positive")
        if self.kind == "mlp" and len(self.input_shape) != 1:
            raise ValueError("mlp takes a flat input (in=N), not %s" % _shape_text(self.input_shape))
        if self.kind == "cnn":
            if len(self.input_shape) != 3:
                raise ValueError("cnn takes images (in=CxHxW), not %s" % _shape_text(self.input_shape))
            pools = min(CNN_POOLED_LAYERS, len(self.hidden))
            if (self.input_shape[1] >> pools) < 1 or (self.input_shape[2] >> pools) < 1:
                raise ValueError("cnn input %s is too small for %d 2x2 poolings" % (_shape_text(self.input_shape), pools))
        layers = []
        for i, h in enumerate(self.hidden):
            layers.append(("dense" if self.kind == "mlp" else "conv", h))
            layers.append(("relu", 0))
            if self.kind == "cnn" and i < CNN_POOLED_LAYERS:
                layers.append(("pool", 0))
        if self.kind == "cnn":
            layers.append(("flatten", 0))
        layers.append(("dense", self.classes))
        object.__setattr__(self, "layers", tuple(layers))

    @staticmethod
    def parse(text: str, sample_shape: Sequence[int] = IMAGE_28, data_classes: int = 10) -> "NetworkSpec":
        try:
            return NetworkSpec._parse(java_trim(text), tuple(sample_shape), data_classes)
        except ValueError as e:
            raise ValueError("network '%s': %s (expected mlp|cnn[:N,...][,in=DxD...][,classes=N], e.g. mlp:4096,2048)"
                             % (text, e)) from None

    @staticmethod
    def _parse(text: str, sample_shape, data_classes) -> "NetworkSpec":
        kind_text, _, items = text.partition(":")
        kind = kind_text.lower()
        if kind not in ("mlp", "cnn"):
            raise ValueError("unknown network kind '%s'" % kind_text)
        hidden: List[int] = []
        shape = None
        classes = None
        dtype = FLOAT32
        if ":" in text:
            if java_blank(items):
                raise ValueError("nothing after ':'")
            for raw in items.split(","):
                item = java_trim(raw)
                if item.startswith("in="):
                    shape = tuple(_positive(d, "input dimension") for d in item[3:].split("x"))
                elif item.startswith("classes="):
                    classes = _positive(item[8:], "classes")
                elif item.startswith("dtype="):
                    dtype = item[6:]
                else:
                    hidden.append(_positive(item, "layer size"))
        if not hidden:
            hidden = list(MLP_PRESET if kind == "mlp" else CNN_PRESET)
        if shape is None:
            shape = (int(math.prod(sample_shape)),) if kind == "mlp" else tuple(sample_shape)
        return NetworkSpec(kind, shape, tuple(hidden), data_classes if classes is None else classes, dtype)

    def __str__(self) -> str:
        return "%s:%s,in=%s,classes=%d" % (self.kind, ",".join(map(str, self.hidden)), _shape_text(self.input_shape),
                                          self.classes)

    @property
    def input_size(self) -> int:
        return int(math.prod(self.input_shape))

    def layout(self) -> List[ParameterShape]:
        params = []
        shape = [self.input_size] if self.kind == "mlp" else list(self.input_shape)
        for position, (layer, size) in enumerate(self.layers, start=1):
            prefix = "%02d" % position
            if layer == "dense":
                params.append(ParameterShape(prefix + "Linear_weight", (size, shape[0])))
                params.append(ParameterShape(prefix + "Linear_bias", (size,)))
                shape = [size]
            elif layer == "conv":
                params.append(ParameterShape(prefix + "Conv2d_weight", (size, shape[0], 3, 3)))
                params.append(ParameterShape(prefix + "Conv2d_bias", (size,)))
                shape = [size, shape[1], shape[2]]
            elif layer == "pool":
                shape = [shape[0], shape[1] // 2, shape[2] // 2]
            elif layer == "flatten":
                shape = [shape[0] * shape[1] * shape[2]]
        return params

    def parameter_count(self) -> int:
        return sum(p.size for p in self.layout())


def _positive(text: str, what: str) -> int:
    try:
        value = java_int(java_trim(text))
    except ValueError:
        raise ValueError("%s '%s' is not a whole number" % (what, text)) from None
    if value < 1:
        raise ValueError("%s %d is not positive" % (what, value))
    return value


def _shape_text(shape) -> str:
    return "x".join(map(str, shape))


def layout_problem(described: Sequence[ParameterShape], expected: Sequence[ParameterShape], what: str) -> Optional[str]:
    """Why ``described`` (a TaskSpec's parameter list) is not ``expected`` (the network's), or None."""
    if len(described) != len(expected):
        return "%d parameter tensors, %s has %d" % (len(described), what, len(expected))
    for i, (d, e) in enumerate(zip(described, expected)):
        if d.name != e.name or tuple(d.shape) != tuple(e.shape):
            return "parameter %d is %s %s, %s has %s %s" % (i, d.name, list(d.shape), what, e.name, list(e.shape))
    return None


# A model function: (parameter tensors in layout order, inputs [n, ...], labels [n]) ->
# (the gradient of the mean loss over these samples, one tensor per parameter or one flat array;
#  the mean loss). The agent calls it once per micro-batch.
ModelFunction = Callable[[List["torch.Tensor"], "torch.Tensor", "torch.Tensor"], Tuple[object, float]]


def forward(spec: NetworkSpec, params: List["torch.Tensor"], inputs: "torch.Tensor") -> "torch.Tensor":
    """The logits of ``spec`` at ``params`` for ``inputs`` (samples of the data set's shape)."""
    import torch.nn.functional as F

    x = inputs.reshape(inputs.shape[0], -1) if spec.kind == "mlp" else inputs
    p = 0
    for layer, _size in spec.layers:
        if layer == "dense":
            x = F.linear(x, params[p], params[p + 1])
            p += 2
        elif layer == "conv":
            x = F.conv2d(x, params[p], params[p + 1], padding=1)
            p += 2
        elif layer == "relu":
            x = F.relu(x)
        elif layer == "pool":
            x = F.max_pool2d(x, 2, 2)
        elif layer == "flatten":
            x = x.reshape(x.shape[0], -1)
    return x


class TaskComputer:
    """Computes tasks of one network: the parameters of a model version set once per version."""

    def __init__(self, spec: NetworkSpec, micro_batch: int, model_function: Optional[ModelFunction] = None,
                 device=None):
        import torch

        self.torch = torch
        # where the parameters live and the passes run; the gradient comes back to the CPU for encoding
        self.device = device if device is not None else torch.device("cpu")
        self.spec = spec
        self.layout = spec.layout()
        self.micro_batch = micro_batch
        self.model_function = model_function
        self.version_key = None
        self.params: List[torch.Tensor] = []

    def use(self, key, flat: np.ndarray) -> None:
        """Holds ``flat`` (float32, the layout's length) as the parameters, once per ``key``."""
        if key == self.version_key:
            return
        torch = self.torch
        total = sum(p.size for p in self.layout)
        if flat.shape[0] != total:
            raise ValueError("%d parameters, the network %s has %d" % (flat.shape[0], self.spec, total))
        values = torch.from_numpy(np.array(flat, dtype=np.float32, copy=True)).to(self.device)
        self.params = []
        at = 0
        for p in self.layout:
            self.params.append(values[at:at + p.size].view(*p.shape))
            at += p.size
        self.version_key = key

    def compute(self, inputs: np.ndarray, labels: np.ndarray,
                stop: Callable[[], bool]) -> Optional[Tuple[np.ndarray, float, int]]:
        """(flat float32 gradient, mean loss, samples) over all samples, or None if ``stop`` said so
        before the last micro-batch."""
        torch = self.torch
        total = int(labels.shape[0])
        x_all = torch.from_numpy(inputs).to(self.device)
        y_all = torch.from_numpy(np.asarray(labels, dtype=np.int64)).to(self.device)
        leaves = [p.detach().clone().requires_grad_(True) for p in self.params] if self.model_function is None else None
        summed = None
        loss_sum = 0.0
        done = 0
        while done < total:
            if stop():
                return None
            n = min(self.micro_batch, total - done)
            x = x_all[done:done + n]
            y = y_all[done:done + n]
            share = None if n == total else torch.tensor(float(n) / total, dtype=torch.float32, device=self.device)
            if self.model_function is None:
                logits = forward(self.spec, leaves, x)
                mean = torch.nn.functional.cross_entropy(logits, y)
                (mean if share is None else mean * share).backward()
                loss_sum += n * float(mean.detach())
            else:
                grads, loss = self.model_function([p.detach() for p in self.params], x, y)
                flat = _flat(torch, grads, self.device)
                if flat.shape[0] != sum(p.size for p in self.layout):
                    raise ValueError("the model function gave %d gradient values, the network %s has %d"
                                     % (flat.shape[0], self.spec, sum(p.size for p in self.layout)))
                flat = flat if share is None else flat * share
                summed = flat if summed is None else summed + flat
                loss_sum += n * float(loss)
            done += n
        if self.model_function is None:
            gradient = torch.cat([leaf.grad.reshape(-1) for leaf in leaves])
        else:
            gradient = summed
        return gradient.detach().cpu().numpy().astype(np.float32, copy=False), loss_sum / done, done


def _flat(torch, grads, device) -> "torch.Tensor":
    """A model function's gradient (tensors or arrays, one or a list) as one float32 vector on ``device``."""
    if isinstance(grads, (list, tuple)):
        return torch.cat([torch.as_tensor(g, dtype=torch.float32, device=device).reshape(-1) for g in grads])
    return torch.as_tensor(np.asarray(grads) if not isinstance(grads, torch.Tensor) else grads,
                           dtype=torch.float32, device=device).reshape(-1)
