package io.ata.trainer;

import io.ata.schemas.Evaluation;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.OptimizerState;
import io.ata.schemas.chunk.ChunkAssembler;
import io.ata.schemas.tensor.TensorCodec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Finds where a job stands on the topics the trainer writes: its latest model version on the
 * compacted {@code model} topic, the optimizer state on {@code optimizer}, and the latest version
 * scored on {@code evaluations}. What a restarted trainer resumes from.
 *
 * <p>It reads every partition of a topic from the beginning to its end with a
 * {@code read_committed} consumer of its own (assigned, no group): the end offsets are then the
 * last stable offsets, so only committed records count. The job's records are those keyed
 * {@code job}, or {@code job#i} for slice {@code i} of a payload cut into slices (see
 * {@code Chunks}); the slices of one version are put back together ({@link ChunkAssembler}), and
 * the highest complete version wins. Call it after {@code initTransactions()}, which settles a
 * transaction the previous trainer left open.
 *
 * <p>It refuses to guess: if the job's last record on a partition does not decode, or the newest
 * version is incomplete, it throws rather than resume from an older version and publish versions
 * that exist already.
 *
 * <p>Records no trainer writes are skipped, never applied, and handed back ({@link #refused()})
 * for dead letters: a tombstone under the job's key (nothing deletes a model; applied, it would
 * make the trainer start the job over), a version below 0 or above {@link #MAX_VERSION} (no
 * round reaches it), and a model version with NaN or infinite parameters. A version that does not
 * fit this trainer's configuration (another model, precision or task) is not skipped: it is the
 * job's as far as the topic can tell, so {@link TrainerState#recover} refuses to start instead.
 */
final class ModelReader {
    /** The highest version: the broker's bound on rounds (2^31 - 1), as version k closes round k. */
    static final long MAX_VERSION = Integer.MAX_VALUE;

    /** A record of the job skipped as one no trainer writes, and why. */
    record Refused(ConsumerRecord<byte[], byte[]> record, String reason) {}

    private final List<Refused> refused = new ArrayList<>();
    private final Consumer<byte[], byte[]> consumer;
    private final String job;
    private final Clock clock;
    private final Duration timeout;

    /** Reads with {@code consumer} (read_committed, no group), which the caller closes. */
    ModelReader(Consumer<byte[], byte[]> consumer, String job, Clock clock, Duration timeout) {
        this.consumer = consumer;
        this.job = job;
        this.clock = clock;
        this.timeout = timeout;
    }

    /**
     * The job's latest model version, whole (parameters put together, the task description of
     * slice 0), or empty if it has none (a new job, or a missing topic).
     *
     * @throws TimeoutException      if the topic cannot be read to its end within the timeout
     * @throws IllegalStateException if the latest version cannot be decoded or is incomplete
     */
    Optional<ModelVersion> latestModel(String topic, Deserializer<ModelVersion> deserializer) {
        return latest(topic, deserializer, MODEL, true);
    }

    /** The job's latest optimizer state, whole, or empty if it has none; as {@link #latestModel}. */
    Optional<OptimizerState> latestOptimizerState(String topic, Deserializer<OptimizerState> deserializer) {
        return latest(topic, deserializer, OPTIMIZER_STATE, true);
    }

    /**
     * The highest model version of the job that has an evaluation, or empty if none does. Records
     * that do not decode are skipped: an evaluation is not worth refusing to start over.
     */
    OptionalLong latestEvaluatedVersion(String topic, Deserializer<Evaluation> deserializer) {
        return latest(topic, deserializer, EVALUATION, false)
                .map(e -> OptionalLong.of(e.getModelVersion()))
                .orElse(OptionalLong.empty());
    }

    /** The records skipped so far as ones no trainer writes, in the order read. */
    List<Refused> refused() {
        return List.copyOf(refused);
    }

    /**
     * How one record of a topic is a slice of one version of the job's payload: its job, version,
     * slice index and count and bytes, how slice 0 and the whole payload make the whole record,
     * and why a whole record is refused (null: it is not).
     */
    private record Slices<V>(
            Function<V, String> job,
            ToLongFunction<V> version,
            ToIntFunction<V> chunk,
            ToIntFunction<V> chunks,
            Function<V, ByteBuffer> payload,
            BiFunction<V, byte[], V> whole,
            Function<V, String> wholeProblem) {}

    /** Why a whole model version is refused: NaN or infinite parameters; or null. */
    private static String modelProblem(ModelVersion model) {
        if (TensorCodec.length(model.getParameters(), model.getEncoding()) < 0) {
            return null; // not a whole number of values: TrainerState.recover says what does not fit
        }
        int nonFinite = TensorCodec.firstNonFinite(model.getParameters(), model.getEncoding());
        return nonFinite < 0
                ? null
                : "model version " + model.getVersion() + " of job " + model.getJob() + ": parameter " + nonFinite
                        + " is not finite, not applied";
    }

    private static final Slices<ModelVersion> MODEL = new Slices<>(
            ModelVersion::getJob,
            ModelVersion::getVersion,
            ModelVersion::getChunk,
            ModelVersion::getChunks,
            ModelVersion::getParameters,
            (first, payload) -> {
                first.setParameters(ByteBuffer.wrap(payload));
                first.setChunk(0);
                first.setChunks(1);
                return first;
            },
            ModelReader::modelProblem);

    private static final Slices<OptimizerState> OPTIMIZER_STATE = new Slices<>(
            OptimizerState::getJob,
            OptimizerState::getVersion,
            OptimizerState::getChunk,
            OptimizerState::getChunks,
            OptimizerState::getState,
            (first, payload) -> {
                first.setState(ByteBuffer.wrap(payload));
                first.setChunk(0);
                first.setChunks(1);
                return first;
            },
            state -> null);

    /** Evaluations are never sliced: each record is a whole "payload" of no bytes. */
    private static final Slices<Evaluation> EVALUATION = new Slices<>(
            Evaluation::getJob,
            Evaluation::getModelVersion,
            e -> 0,
            e -> 1,
            e -> ByteBuffer.allocate(0),
            (first, payload) -> first,
            e -> null);

    /** The slices of one partition being put together, by version. */
    private static final class PartitionAssembly<V> {
        final ChunkAssembler<Long> assembler = new ChunkAssembler<>(Integer.MAX_VALUE - 8, 4);
        final Map<Long, V> firstSlices = new HashMap<>();
        /** The highest version seen, complete or not; incomplete older ones are dropped. */
        long newestSeen = -1;
        /** The highest complete version. */
        V newest;
        /** Offset of the job's last record here, and whether it decoded. */
        long lastOffset = -1;

        boolean lastDecoded = true;
    }

    private <V> Optional<V> latest(String topic, Deserializer<V> deserializer, Slices<V> slices, boolean strict) {
        long deadline = clock.millis() + timeout.toMillis();
        List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
        if (infos == null || infos.isEmpty()) {
            return Optional.empty();
        }
        List<TopicPartition> partitions = new ArrayList<>(infos.size());
        for (PartitionInfo info : infos) {
            partitions.add(new TopicPartition(topic, info.partition()));
        }
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);

        // The job's key hashes to one partition, unless the topic was repartitioned: assemble
        // per partition and compare versions at the end.
        Map<TopicPartition, PartitionAssembly<V>> assemblies = new HashMap<>();
        while (!atEnd(partitions, end)) {
            if (clock.millis() > deadline) {
                throw new TimeoutException("reading topic " + topic + " to its end took longer than " + timeout);
            }
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                if (!isJobKey(r.key())) {
                    continue;
                }
                offer(
                        assemblies.computeIfAbsent(
                                new TopicPartition(r.topic(), r.partition()), tp -> new PartitionAssembly<>()),
                        r,
                        topic,
                        deserializer,
                        slices);
            }
        }
        consumer.unsubscribe();
        V newest = null;
        for (PartitionAssembly<V> assembly : assemblies.values()) {
            if (assembly.newest != null
                    && (newest == null
                            || slices.version().applyAsLong(assembly.newest)
                                    > slices.version().applyAsLong(newest))) {
                newest = assembly.newest;
            }
        }
        if (strict) {
            requireNothingNewer(
                    topic, assemblies, newest == null ? -1 : slices.version().applyAsLong(newest));
        }
        return Optional.ofNullable(newest);
    }

    /** Adds one record of the job to its partition's assembly. */
    private <V> void offer(
            PartitionAssembly<V> assembly,
            ConsumerRecord<byte[], byte[]> r,
            String topic,
            Deserializer<V> deserializer,
            Slices<V> slices) {
        if (r.value() == null) {
            refused.add(new Refused(
                    r,
                    "tombstone for key '" + new String(r.key(), StandardCharsets.UTF_8) + "' on " + topic
                            + ": a job's records are never deleted, not applied"));
            return;
        }
        assembly.lastOffset = r.offset();
        assembly.lastDecoded = true;
        V value;
        try {
            value = deserializer.deserialize(topic, r.value());
        } catch (SerializationException e) {
            assembly.lastDecoded = false;
            return;
        }
        if (!job.equals(slices.job().apply(value))) {
            return; // a job named like ours plus "#digits"
        }
        long version = slices.version().applyAsLong(value);
        if (version < 0 || version > MAX_VERSION) {
            refused.add(new Refused(
                    r,
                    "version " + version + " of job " + job + " on " + topic + " is out of range (0 to " + MAX_VERSION
                            + "), not applied"));
            return;
        }
        if (version > assembly.newestSeen) {
            assembly.newestSeen = version;
            assembly.assembler.discardIf(v -> v < version);
            assembly.firstSlices.keySet().removeIf(v -> v < version);
        }
        if (slices.chunk().applyAsInt(value) == 0) {
            assembly.firstSlices.put(version, value);
        }
        ChunkAssembler.Offer offered = assembly.assembler.offer(
                version,
                slices.chunk().applyAsInt(value),
                slices.chunks().applyAsInt(value),
                slices.payload().apply(value));
        if (offered instanceof ChunkAssembler.Complete complete) {
            V first = assembly.firstSlices.remove(version);
            if (first != null
                    && (assembly.newest == null || version >= slices.version().applyAsLong(assembly.newest))) {
                V whole = slices.whole().apply(first, complete.payload());
                String problem = slices.wholeProblem().apply(whole);
                if (problem != null) {
                    refused.add(new Refused(r, problem));
                    if (assembly.newestSeen == version) { // not newer than what is kept: not missing either
                        assembly.newestSeen =
                                assembly.newest == null ? -1 : slices.version().applyAsLong(assembly.newest);
                    }
                } else {
                    assembly.newest = whole;
                }
            }
        }
    }

    /** Throws if a partition's newest record of the job is undecodable or its newest version incomplete. */
    private <V> void requireNothingNewer(
            String topic, Map<TopicPartition, PartitionAssembly<V>> assemblies, long newest) {
        for (Map.Entry<TopicPartition, PartitionAssembly<V>> e : assemblies.entrySet()) {
            PartitionAssembly<V> a = e.getValue();
            String where = e.getKey() + "@" + a.lastOffset;
            if (!a.lastDecoded) {
                throw new IllegalStateException("cannot decode the latest record of job " + job + " at " + where
                        + "; resuming from an older one would publish versions that exist already");
            }
            if (a.newestSeen > newest) {
                throw new IllegalStateException("version " + a.newestSeen + " of job " + job + " on " + topic
                        + " is incomplete (slices missing, last at " + where
                        + "); resuming from an older one would publish versions that exist already");
            }
        }
    }

    /** {@code job}, or {@code job#digits}. */
    private boolean isJobKey(byte[] key) {
        if (key == null) {
            return false;
        }
        String k = new String(key, StandardCharsets.UTF_8);
        if (k.equals(job)) {
            return true;
        }
        if (!k.startsWith(job + "#") || k.length() == job.length() + 1) {
            return false;
        }
        for (int i = job.length() + 1; i < k.length(); i++) {
            if (k.charAt(i) < '0' || k.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    private boolean atEnd(List<TopicPartition> partitions, Map<TopicPartition, Long> end) {
        for (TopicPartition tp : partitions) {
            Long last = end.get(tp);
            if (last != null && consumer.position(tp) < last) {
                return false;
            }
        }
        return true;
    }
}
