package io.ata.trainer;

import java.util.Objects;

/**
 * What one trainer trains, apart from where Kafka is: the job, its batch, the policy the broker
 * should allocate it with, and the model and update rule.
 *
 * @param job       the job name; the key of its records and the prefix of its task ids
 * @param batch     B, the results each round needs
 * @param policy    the allocation policy, sent in the OPENED event of round 1 (empty: the
 *                  broker's default)
 * @param seed      seed of the policy's tie-breaking, sent in the OPENED event of round 1
 * @param maxRounds the job ends when round {@code maxRounds} closes ({@link Long#MAX_VALUE}:
 *                  never)
 * @param objective the model: its size, start and objective
 * @param optimizer the update rule
 */
public record TrainingJob(
        String job, int batch, String policy, long seed, long maxRounds, Objective objective, Optimizer optimizer) {

    public TrainingJob {
        Objects.requireNonNull(job, "job");
        if (job.isBlank()) {
            throw new IllegalArgumentException("job must not be blank");
        }
        if (batch < 1) {
            throw new IllegalArgumentException("batch must be >= 1, was " + batch);
        }
        Objects.requireNonNull(policy, "policy");
        if (maxRounds < 1) {
            throw new IllegalArgumentException("maxRounds must be >= 1, was " + maxRounds);
        }
        Objects.requireNonNull(objective, "objective");
        Objects.requireNonNull(optimizer, "optimizer");
    }
}
