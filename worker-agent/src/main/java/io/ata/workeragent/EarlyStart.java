package io.ata.workeragent;

import java.util.Optional;

/**
 * Model versions an agent may start a round's tasks on before the trainer's close has committed
 * them ({@link EarlyModels}). The agent reads models {@code read_committed}, so without this a
 * round's tasks wait for the close's commit and its markers, one exactly-once hop, before they
 * start; with it they start on the version as soon as its record is written, the commit completes
 * while they compute, and a result is published only once the committed version is that same
 * record (else it is computed again on the committed one). Nothing the agent publishes ever rests
 * on a version that did not commit.
 */
public interface EarlyStart {
    /** No early start: every task waits for its version to commit. */
    EarlyStart NONE = new EarlyStart() {
        @Override
        public Optional<EarlyModel> early(String job, long version) {
            return Optional.empty();
        }

        @Override
        public void distrust(String job, EarlyModel model) {}
    };

    /** The uncommitted whole version {@code version} of {@code job}, if it has been read. */
    Optional<EarlyModel> early(String job, long version);

    /**
     * {@code model} was not confirmed in time (its transaction may never commit): it is not offered
     * again, and its tasks wait for the committed version.
     */
    void distrust(String job, EarlyModel model);
}
