package io.ata.workeragent;

import io.ata.schemas.TensorEncoding;
import java.util.Objects;

/**
 * What a {@link Workload} returns for one task: the gradient tensor as little-endian bytes, how
 * they are encoded, and the loss and sample count the trainer may log. These become the payload
 * fields of a {@link io.ata.schemas.TaskResult}; the agent adds ids, versions and timing.
 *
 * @param gradient the gradient's values, little-endian, see {@code encoding} (not copied)
 * @param encoding how {@code gradient} is encoded
 * @param loss the loss at the model the task computed at (informational)
 * @param samples how many data samples the gradient averages over (at least 1)
 */
public record TaskOutput(byte[] gradient, TensorEncoding encoding, double loss, int samples) {

    public TaskOutput {
        Objects.requireNonNull(gradient, "gradient");
        Objects.requireNonNull(encoding, "encoding");
        if (samples < 1) {
            throw new IllegalArgumentException("samples must be >= 1, was " + samples);
        }
    }
}
