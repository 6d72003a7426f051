"""A model function for ``python3 -m pyagent --model-function examples/mlp_gradient.py:gradient``:
the gradient of an ``mlp`` job written out by hand, without autograd, to show the contract.

The agent calls it once per micro-batch with
  parameters: the model version's tensors in the TaskSpec's layout order (float32, read-only):
              for mlp, [W1, b1, W2, b2, ...] with W of shape [units, inputs]
  inputs:     the micro-batch's samples, float32 [n, 1, 28, 28] in [0, 1]
  labels:     int64 [n]
and takes back (gradient, loss): the gradient of the micro-batch's mean cross-entropy, one tensor
per parameter (or one flat array in layout order), and that mean loss. The agent weighs the
micro-batches, checks between them whether the round closed, encodes and publishes the result.
"""

import torch


def gradient(parameters, inputs, labels):
    x = inputs.reshape(inputs.shape[0], -1)
    activations = [x]
    pre = []
    layers = len(parameters) // 2
    for i in range(layers):
        w, b = parameters[2 * i], parameters[2 * i + 1]
        z = activations[-1] @ w.T + b
        pre.append(z)
        activations.append(torch.relu(z) if i < layers - 1 else z)
    logits = activations[-1]
    log_p = torch.log_softmax(logits, dim=1)
    n = x.shape[0]
    loss = -log_p[torch.arange(n), labels].mean()
    delta = torch.softmax(logits, dim=1)
    delta[torch.arange(n), labels] -= 1
    delta /= n
    grads = [None] * len(parameters)
    for i in reversed(range(layers)):
        grads[2 * i] = delta.T @ activations[i]
        grads[2 * i + 1] = delta.sum(0)
        if i > 0:
            delta = (delta @ parameters[2 * i]) * (pre[i - 1] > 0)
    return grads, float(loss)
