package io.ata.workeragent;

import io.ata.schemas.ModelVersion;
import java.util.Objects;

/**
 * A whole model version read before the trainer's transaction that writes it committed, and where
 * it was read. Tasks may compute on it while the commit completes; their results are published only
 * once the committed version is the record at the same {@code position} ({@link EarlyStart}).
 */
public record EarlyModel(ModelVersion model, ModelPosition position) {
    public EarlyModel {
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(position, "position");
    }
}
