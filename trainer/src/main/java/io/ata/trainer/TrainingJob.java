package io.ata.trainer;

import java.util.Objects;

/**
 * What one trainer trains, apart from where Kafka is: the job, its batch, the policy the broker
 * should allocate it with, the model, and how gradients become steps.
 *
 * @param job        the job name; the key of its records and the prefix of its task ids
 * @param batch      B, the results each round needs
 * @param policy     the allocation policy, sent in the OPENED event of round 1 (empty: the
 *                   broker's default)
 * @param seed       seed of the policy's tie-breaking, sent in the OPENED event of round 1
 * @param maxRounds  the job ends when round {@code maxRounds} closes ({@link Long#MAX_VALUE}:
 *                   never)
 * @param model      what is trained: its parameters, task description and objective
 * @param optimizer  the update rule
 * @param aggregator how the round's B gradients become one
 * @param normBound  which gradients are refused for their norm before they count towards B
 */
public record TrainingJob(
        String job,
        int batch,
        String policy,
        long seed,
        long maxRounds,
        Model model,
        Optimizer optimizer,
        Aggregator aggregator,
        NormBound normBound) {

    public TrainingJob {
        Objects.requireNonNull(job, "job");
        if (job.isBlank()) {
            throw new IllegalArgumentException("job must not be blank");
        }
        Bounds.atLeast(batch, 1, "batch");
        Objects.requireNonNull(policy, "policy");
        Bounds.atLeast(maxRounds, 1, "maxRounds");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(optimizer, "optimizer");
        Objects.requireNonNull(aggregator, "aggregator");
        Objects.requireNonNull(normBound, "normBound");
    }

    /** With the mean of the B gradients as the step's gradient and the default {@link NormBound}. */
    public TrainingJob(
            String job, int batch, String policy, long seed, long maxRounds, Model model, Optimizer optimizer) {
        this(job, batch, policy, seed, maxRounds, model, optimizer, MeanAggregator.INSTANCE, NormBound.DEFAULT);
    }
}
