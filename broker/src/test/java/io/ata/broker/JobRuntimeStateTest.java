package io.ata.broker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.allocation.policy.EstimatedRelativeWidth;
import io.ata.allocation.policy.LcbState;
import io.ata.schemas.EtaEstimatorState;
import io.ata.schemas.JobState;
import io.ata.schemas.LearnedState;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.schemas.serde.AvroSerde;
import io.ata.schemas.serde.TopicNameStrategy;
import io.ata.schemas.serde.WireFormat;
import io.ata.testsupport.Records;
import io.ata.testsupport.RoundEvents;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A job's learned state survives the state store: today's snapshots through the store's serde, and
 * states written by a broker from before {@code learned_state} (the {@code estimator} field set,
 * with the writer schema of that time, {@code JobState-before-learned-state.avsc}), which are
 * migrated. Either way the restored job allocates exactly as it would have without the restart.
 */
class JobRuntimeStateTest {
    private static final String CHANGELOG = "broker-jobs-changelog";
    private static final int WORKERS = 8;
    private static final int BATCH = 8;
    private static final long NOW = 1_000_000;
    private final BrokerSettings settings = BrokerSettings.defaults();
    private final EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();

    @ParameterizedTest
    @ValueSource(strings = {"ata-auto", "ata-auto-subtractive", "ata-hedge:2", "ata-ert"})
    void aJobStateWithTheOldEstimatorFieldRestoresToTheSamePolicyState(String policy) throws IOException {
        JobRuntime original = JobRuntime.create(opened(1, policy), settings);
        for (long round = 1; round <= 100; round++) {
            play(original, round, WORKERS);
        }
        JobState current = original.snapshot();
        assertNull(current.getEstimator(), "new snapshots write only learned_state");
        assertEquals(policy, current.getLearnedState().getPolicy());

        byte[] oldBytes = writtenByTheOldBroker(current);
        JobState read = new AvroSerde<>(registry, JobState.class).deserializer().deserialize(CHANGELOG, oldBytes);
        assertNull(read.getLearnedState(), "the old writer had no learned_state");
        assertNotNull(read.getEstimator());

        JobRuntime restored = JobRuntime.restore(read, settings);
        JobState migrated = restored.snapshot();
        if (policy.equals("ata-ert") || current.getLearnedState().getVersion() == LcbState.VERSION) {
            // the old field held the estimator only: ata-ert's refinement cache, ata-auto's drift
            // detector and probation start afresh
            assertArrayEquals(
                    estimatorBytes(current.getLearnedState()),
                    estimatorBytes(migrated.getLearnedState()),
                    "the same estimator, now in the learned state");
        } else {
            assertEquals(
                    current.getLearnedState(), migrated.getLearnedState(), "the same learned state, now in its field");
        }
        assertNull(migrated.getEstimator());
        read.setEstimator(null);
        JobRuntime statisticsOnly = JobRuntime.restore(read, settings);

        assertAllocatesLikeTheOriginal(policy, original, restored, statisticsOnly);
    }

    @ParameterizedTest
    @ValueSource(strings = {"ata-auto", "ata-hedge:2", "ata-ert"})
    void aJobStateThroughTheStoresSerdeRestoresToTheSamePolicyState(String policy) {
        JobRuntime original = JobRuntime.create(opened(1, policy), settings);
        for (long round = 1; round <= 100; round++) {
            play(original, round, WORKERS);
        }
        AvroSerde<JobState> serde = new AvroSerde<>(registry, JobState.class);
        JobState read = serde.deserializer()
                .deserialize(CHANGELOG, serde.serializer().serialize(CHANGELOG, original.snapshot()));
        JobRuntime restored = JobRuntime.restore(read, settings);
        read.setLearnedState(null);
        JobRuntime statisticsOnly = JobRuntime.restore(read, settings);
        assertAllocatesLikeTheOriginal(policy, original, restored, statisticsOnly);
    }

    /**
     * ata-ert's state carries its refinement cache through the store: restored in the middle of a
     * refresh period with the same fleet, the job has the same learned state and allocates exactly
     * like the original through the next refreshes.
     */
    @Test
    void ataErtRestoredWithTheSameFleetAllocatesLikeTheOriginal() {
        JobRuntime original = JobRuntime.create(opened(1, "ata-ert"), settings);
        for (long round = 1; round <= 300; round++) {
            play(original, round, WORKERS);
        }
        AvroSerde<JobState> serde = new AvroSerde<>(registry, JobState.class);
        JobState saved = original.snapshot();
        JobRuntime restored = JobRuntime.restore(
                serde.deserializer().deserialize(CHANGELOG, serde.serializer().serialize(CHANGELOG, saved)), settings);
        assertEquals(2, saved.getLearnedState().getVersion(), "the state with the refinement cache");
        assertEquals(saved.getLearnedState(), restored.snapshot().getLearnedState(), "the whole learned state");
        for (long round = 301; round <= 1500; round++) {
            assertEquals(play(original, round, WORKERS), play(restored, round, WORKERS), "round " + round);
        }
    }

    @Test
    void aLearnedStateOfAnotherPolicyIsRefused() {
        JobRuntime auto = JobRuntime.create(opened(1, "ata-auto"), settings);
        play(auto, 1, WORKERS);
        JobState state = auto.snapshot();
        state.setPolicy("ata-hedge:2");
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> JobRuntime.restore(state, settings));
        assertEquals(
                "the learned state of policy 'ata-auto' cannot be restored into policy 'ata-hedge:2'", e.getMessage());
    }

    /**
     * Plays rounds 101 to 400 on all three, the slowest worker having left as the broker restarted
     * (ata-ert restored from the old estimator field has no refinement cache; a change of fleet
     * makes the original rebuild its own in the same round). {@code statisticsOnly} must differ
     * somewhere, or the comparison could not tell a lost state.
     */
    private static void assertAllocatesLikeTheOriginal(
            String policy, JobRuntime original, JobRuntime restored, JobRuntime statisticsOnly) {
        boolean statisticsOnlyDiffered = false;
        for (long round = 101; round <= 400; round++) {
            List<TaskAssignment> expected = play(original, round, WORKERS - 1);
            assertEquals(expected, play(restored, round, WORKERS - 1), policy + " round " + round);
            statisticsOnlyDiffered |= !expected.equals(play(statisticsOnly, round, WORKERS - 1));
        }
        assertTrue(statisticsOnlyDiffered, "without its learned state the job would allocate differently");
    }

    /** The bytes today's state would have had in the store under the old broker: the estimator in its own field. */
    private byte[] writtenByTheOldBroker(JobState current) throws IOException {
        Schema old;
        try (InputStream in = getClass().getResourceAsStream("JobState-before-learned-state.avsc")) {
            old = new Schema.Parser().parse(in);
        }
        assertNull(old.getField("learned_state"), "the old schema");
        EstimatedRelativeWidth.State estimator =
                EstimatedRelativeWidth.State.fromBytes(estimatorBytes(current.getLearnedState()));
        GenericRecord record = new GenericData.Record(old);
        for (Schema.Field field : old.getFields()) {
            if (!field.name().equals("estimator")) {
                record.put(field.name(), current.get(field.name()));
            }
        }
        record.put(
                "estimator",
                EtaEstimatorState.newBuilder()
                        .setEta(estimator.eta())
                        .setSeen(estimator.seen())
                        .setNextRefresh(estimator.nextRefresh())
                        .setSampleWorkers(
                                Arrays.stream(estimator.sampleWorkers()).boxed().toList())
                        .setSamples(Arrays.stream(estimator.samples()).boxed().toList())
                        .build());
        int id = registry.register(TopicNameStrategy.subject(CHANGELOG, false), old);
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(body, null);
        new GenericDatumWriter<GenericRecord>(old).write(record, encoder);
        encoder.flush();
        return WireFormat.frame(id, body.toByteArray());
    }

    /**
     * The estimated-eta state in a learned state: all of it for the ata-auto family in version 1,
     * its width section in version 2 ({@link LcbState}); for ata-ert (version 2) its base policy's
     * state, which its encoding puts first (version, length, bytes).
     */
    private static byte[] estimatorBytes(LearnedState learned) {
        byte[] all = bytes(learned.getBytes());
        if (!learned.getPolicy().equals("ata-ert")) {
            return learned.getVersion() == LcbState.VERSION
                    ? LcbState.fromBytes(all).width()
                    : all;
        }
        assertEquals(2, learned.getVersion(), "ata-ert's state with its refinement cache");
        ByteBuffer in = ByteBuffer.wrap(all);
        assertEquals(EstimatedRelativeWidth.State.VERSION, in.getInt(), "the base state's version");
        byte[] base = new byte[in.getInt()];
        in.get(base);
        return base;
    }

    private static byte[] bytes(ByteBuffer buffer) {
        ByteBuffer b = buffer.duplicate();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    /**
     * One round as the processor runs it: membership from the heartbeats of the first {@code live}
     * workers, the allocation, and the close with durations fixed by round and task, worker
     * {@code w} about {@code (w + 1)^2} times slower than {@code w0}.
     */
    private static List<TaskAssignment> play(JobRuntime runtime, long round, int live) {
        runtime.syncMembership(Records.aliveWorkers(live, NOW), NOW);
        List<TaskAssignment> assignments = runtime.allocate(round, round - 1, NOW);
        SplittableRandom rng = new SplittableRandom(round);
        List<RoundTiming> timings = RoundEvents.completed(assignments, (worker, task) -> {
            int w = Integer.parseInt(worker.substring(1));
            return 10.0 * (w + 1) * (w + 1) * (0.3 + rng.nextExponential());
        });
        runtime.fold(RoundEvents.closed("job", round, BATCH, timings, NOW));
        return assignments;
    }

    private static RoundEvent opened(long round, String policy) {
        return RoundEvents.opened("job", round, BATCH, policy, NOW);
    }
}
