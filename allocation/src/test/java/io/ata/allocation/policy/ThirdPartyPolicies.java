package io.ata.allocation.policy;

import io.ata.allocation.RoundOutcome;
import io.ata.allocation.RoundPlan;
import io.ata.allocation.WorkerStats;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;

/**
 * Policies from outside the project, as a third-party jar would add them: registered only through
 * {@code src/test/resources/META-INF/services/io.ata.allocation.policy.PolicyProvider}, so the standard
 * registry of this module's tests finds them by {@link java.util.ServiceLoader} alone.
 */
public final class ThirdPartyPolicies implements PolicyProvider {

    @Override
    public List<PolicyDefinition> policies() {
        return List.of(
                PolicyDefinition.named(
                        "test-rotating",
                        "every task to one worker, the next active one after each observed round",
                        (name, context, seed, stats) -> new Rotating(stats, context.batch(), seed)),
                PolicyDefinition.withParameter(
                        "test-all-on",
                        "W",
                        "every task to worker W",
                        (name, argument) -> {
                            if (!argument.matches("\\d+")) {
                                throw new IllegalArgumentException("'" + name + "': W must be a worker index");
                            }
                        },
                        (name, context, seed, stats) -> new AllOn(
                                name,
                                stats,
                                context.batch(),
                                Integer.parseInt(name.substring(name.indexOf(':') + 1)))));
    }

    /** A learning policy of its own: its state (rounds observed) is a third-party encoding. */
    static final class Rotating implements AllocationPolicy {
        static final int VERSION = 1;
        private final WorkerStats stats;
        private final int batch;
        private final long seed;
        private final RoundPlan plan;
        private long observed;

        Rotating(WorkerStats stats, int batch, long seed) {
            this.stats = stats;
            this.batch = batch;
            this.seed = seed;
            this.plan = new RoundPlan(stats.size());
        }

        long seed() {
            return seed;
        }

        @Override
        public String name() {
            return "test-rotating";
        }

        @Override
        public String describe() {
            return observed + " rounds observed";
        }

        @Override
        public RoundPlan plan(long round) {
            int n = stats.size();
            int[] active = java.util.stream.IntStream.range(0, n)
                    .filter(stats::isActive)
                    .toArray();
            plan.reset(round, batch, n);
            plan.add(active[(int) (observed % active.length)], batch);
            return plan;
        }

        @Override
        public void observe(RoundOutcome outcome) {
            observed++;
        }

        @Override
        public Optional<PolicyState> learnedState() {
            return Optional.of(new PolicyState(
                    name(),
                    VERSION,
                    ByteBuffer.allocate(Long.BYTES).putLong(observed).array()));
        }

        @Override
        public void restoreLearnedState(PolicyState state) {
            state.requirePolicy(name());
            state.requireVersion(VERSION);
            observed = ByteBuffer.wrap(state.bytes()).getLong();
        }
    }

    /** A parameterised policy: {@code test-all-on:2} gives every task to worker 2. */
    record AllOn(String name, WorkerStats stats, int batch, int worker, RoundPlan plan) implements AllocationPolicy {
        AllOn(String name, WorkerStats stats, int batch, int worker) {
            this(name, stats, batch, worker, new RoundPlan(stats.size()));
        }

        @Override
        public String describe() {
            return "every task to worker " + worker;
        }

        @Override
        public RoundPlan plan(long round) {
            plan.reset(round, batch, stats.size());
            plan.add(worker, batch);
            return plan;
        }

        @Override
        public void observe(RoundOutcome outcome) {
            // nothing to learn
        }
    }
}
