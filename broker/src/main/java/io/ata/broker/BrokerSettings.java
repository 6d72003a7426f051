package io.ata.broker;

import io.ata.allocation.policy.ConstantConvention;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.schemas.WorkerStatus;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * What the broker is configured with, beyond the Kafka Streams properties.
 *
 * @param topicPrefix       prefix of every topic name (default {@code ata.})
 * @param defaultPolicy     policy of a job whose first OPENED event names none
 * @param knownMeans        configured mean task time (ms) per worker id, for the oracle policies
 *                          (fta, proportional) and the experiments constants; usually empty
 * @param convention        constants of ata / ata-empirical
 * @param alpha             ATA's alpha under the paper convention, NaN if not set
 * @param eta               ATA-Empirical's eta under the paper convention, NaN if not set
 * @param livenessTimeout   a worker whose last heartbeat is older is dead: it receives no task
 * @param livenessCheck     how often the wall-clock punctuator re-checks liveness
 * @param pipelinedAllocation plan and emit round {@code k+1}'s assignments when round {@code k}
 *                          opens, from statistics one round older, so that agents hold them when
 *                          model version {@code k} comes (off: each round is planned when it opens;
 *                          on by default)
 * @param jobRetention      how long a job without a round event (OPENED, CLOSED or OVERDUE) is
 *                          kept: then its state is deleted from the jobs store (a finished or
 *                          abandoned job), so the store, the liveness check and a restore cover
 *                          the jobs that run
 * @param fleetCheck        how often the fleet is checked against the tasks topic's partitions
 *                          (a live agent without one grows the topic; a partition two consumer
 *                          groups claim is reported)
 */
public record BrokerSettings(
        String topicPrefix,
        String defaultPolicy,
        Map<String, Double> knownMeans,
        ConstantConvention convention,
        double alpha,
        double eta,
        Duration livenessTimeout,
        Duration livenessCheck,
        boolean pipelinedAllocation,
        Duration jobRetention,
        Duration fleetCheck) {

    public BrokerSettings {
        Objects.requireNonNull(topicPrefix, "topicPrefix");
        Objects.requireNonNull(defaultPolicy, "defaultPolicy");
        knownMeans = Map.copyOf(knownMeans);
        Objects.requireNonNull(convention, "convention");
        if (livenessTimeout.isNegative()
                || livenessTimeout.isZero()
                || livenessCheck.isNegative()
                || livenessCheck.isZero()) {
            throw new IllegalArgumentException("liveness timeout and check interval must be positive");
        }
        if (fleetCheck.isNegative() || fleetCheck.isZero()) {
            throw new IllegalArgumentException("the fleet check interval must be positive, was " + fleetCheck);
        }
        if (jobRetention.compareTo(MIN_JOB_RETENTION) < 0) {
            throw new IllegalArgumentException(
                    "job retention must be at least " + MIN_JOB_RETENTION + ", was " + jobRetention);
        }
    }

    /**
     * Defaults: prefix {@code ata.}, policy ata-auto, paper constants, 10 s liveness checked every
     * second, pipelined allocation (measured: the control overhead's median less than half of
     * planning each round when it opens, at a cost within the simulator's noise), jobs kept
     * {@link #DEFAULT_JOB_RETENTION} after their last round event, the fleet checked against the
     * tasks partitions every {@link #DEFAULT_FLEET_CHECK}.
     */
    public static BrokerSettings defaults() {
        return builder().build();
    }

    /** A builder starting from the {@link #defaults()}. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these settings. */
    public Builder toBuilder() {
        return new Builder()
                .topicPrefix(topicPrefix)
                .defaultPolicy(defaultPolicy)
                .knownMeans(knownMeans)
                .convention(convention)
                .alpha(alpha)
                .eta(eta)
                .liveness(livenessTimeout, livenessCheck)
                .pipelinedAllocation(pipelinedAllocation)
                .jobRetention(jobRetention)
                .fleetCheck(fleetCheck);
    }

    /**
     * The shortest job retention: far longer than a trainer takes to re-send a stalled round's
     * OPENED (its back-off reaches a minute), so a job waiting for workers is not deleted.
     */
    public static final Duration MIN_JOB_RETENTION = Duration.ofMinutes(10);

    /**
     * A day: far longer than any pause of a live job (a trainer re-sends a stalled round's OPENED
     * within a minute or so), short enough that a fleet of short jobs (a hyperparameter sweep) does not
     * grow the broker's state for good.
     */
    public static final Duration DEFAULT_JOB_RETENTION = Duration.ofDays(1);

    /**
     * Five seconds: a new agent waits about that long for a partition of its own when the fleet
     * outgrows the topic, and a look at every heartbeat is cheap at that pace even for thousands.
     */
    public static final Duration DEFAULT_FLEET_CHECK = Duration.ofSeconds(5);

    public long livenessTimeoutMs() {
        return livenessTimeout.toMillis();
    }

    /**
     * The most a lagging membership path lengthens the liveness timeout ({@link MembershipDelay}):
     * six timeouts. Past it the broker is too far behind to tell a late heartbeat from a gone
     * worker, and rounds wait for fresh heartbeats.
     */
    public long maxMembershipDelayMs() {
        return 6 * livenessTimeoutMs();
    }

    /**
     * The time a worker's liveness is judged at: {@code nowMs}, less how late heartbeats reach the
     * membership store (at most {@link #maxMembershipDelayMs()}). When the broker's membership path
     * falls behind, every heartbeat is late, not every worker gone.
     */
    long membershipClock(long nowMs, MembershipDelay delay) {
        return nowMs - Math.min(delay.delayMs(nowMs), maxMembershipDelayMs());
    }

    /** Whether the worker of heartbeat {@code h} is live at {@code nowMs}: ALIVE, and heard from within the timeout. */
    public boolean isLive(WorkerHeartbeat h, long nowMs) {
        return h.getStatus() == WorkerStatus.ALIVE && nowMs - h.getTimestampMs() <= livenessTimeoutMs();
    }

    public BrokerSettings withKnownMeans(Map<String, Double> means) {
        return toBuilder().knownMeans(means).build();
    }

    public BrokerSettings withTopicPrefix(String prefix) {
        return toBuilder().topicPrefix(prefix).build();
    }

    public BrokerSettings withLiveness(Duration timeout, Duration check) {
        return toBuilder().liveness(timeout, check).build();
    }

    public BrokerSettings withPipelinedAllocation(boolean on) {
        return toBuilder().pipelinedAllocation(on).build();
    }

    public BrokerSettings withJobRetention(Duration retention) {
        return toBuilder().jobRetention(retention).build();
    }

    public BrokerSettings withFleetCheck(Duration interval) {
        return toBuilder().fleetCheck(interval).build();
    }

    /** Settings one at a time, each defaulted as in {@link #defaults()}; checked by {@link #build()}. */
    public static final class Builder {
        private String topicPrefix = "ata.";
        private String defaultPolicy = "ata-auto";
        private Map<String, Double> knownMeans = Map.of();
        private ConstantConvention convention = ConstantConvention.PAPER;
        private double alpha = Double.NaN;
        private double eta = Double.NaN;
        private Duration livenessTimeout = Duration.ofSeconds(10);
        private Duration livenessCheck = Duration.ofSeconds(1);
        private boolean pipelinedAllocation = true;
        private Duration jobRetention = DEFAULT_JOB_RETENTION;
        private Duration fleetCheck = DEFAULT_FLEET_CHECK;

        private Builder() {}

        public Builder topicPrefix(String prefix) {
            this.topicPrefix = prefix;
            return this;
        }

        public Builder defaultPolicy(String policy) {
            this.defaultPolicy = policy;
            return this;
        }

        public Builder knownMeans(Map<String, Double> means) {
            this.knownMeans = means;
            return this;
        }

        public Builder convention(ConstantConvention convention) {
            this.convention = convention;
            return this;
        }

        public Builder alpha(double alpha) {
            this.alpha = alpha;
            return this;
        }

        public Builder eta(double eta) {
            this.eta = eta;
            return this;
        }

        public Builder liveness(Duration timeout, Duration check) {
            this.livenessTimeout = timeout;
            this.livenessCheck = check;
            return this;
        }

        public Builder pipelinedAllocation(boolean on) {
            this.pipelinedAllocation = on;
            return this;
        }

        public Builder jobRetention(Duration retention) {
            this.jobRetention = retention;
            return this;
        }

        public Builder fleetCheck(Duration interval) {
            this.fleetCheck = interval;
            return this;
        }

        /** @throws IllegalArgumentException if a setting is out of range (see the record's checks) */
        public BrokerSettings build() {
            return new BrokerSettings(
                    topicPrefix,
                    defaultPolicy,
                    knownMeans,
                    convention,
                    alpha,
                    eta,
                    livenessTimeout,
                    livenessCheck,
                    pipelinedAllocation,
                    jobRetention,
                    fleetCheck);
        }
    }
}
