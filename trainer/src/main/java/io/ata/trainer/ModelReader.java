package io.ata.trainer;

import io.ata.schemas.Evaluation;
import io.ata.schemas.JobNames;
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
import java.util.LinkedHashMap;
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
 * <p>No single record can keep a trainer from starting. Records no trainer writes are skipped,
 * never applied, and handed back ({@link #refused()}) for dead letters: a record that does not
 * decode, a tombstone under the job's key (nothing deletes a model; applied, it would make the
 * trainer start the job over), a version below 0 or above {@link #MAX_VERSION} (no round reaches
 * it), a model version with NaN or infinite parameters, and a version whose slices do not all
 * arrive (a trainer publishes them in one transaction). The newest good version wins.
 *
 * <p>A version that does not fit this trainer's configuration (another model, precision, task or
 * optimizer: the caller's {@code misfit} rule) is skipped too, and the newest version that fits
 * wins; one that does not fit is dead-lettered only when a version that fits is older (then it is
 * a stray record); when none fits, {@link #misfit()} says why, and the caller refuses to start: the
 * job was trained with other settings.
 */
final class ModelReader {
    /** The highest version: the broker's bound on rounds (2^31 - 1), as version k closes round k. */
    static final long MAX_VERSION = Integer.MAX_VALUE;
    /** Versions put together at once per partition; a trainer's come one at a time, whole. */
    static final int MAX_INCOMPLETE = 16;

    /** A record of the job skipped as one no trainer writes, and why. */
    record Refused(ConsumerRecord<byte[], byte[]> record, String reason) {}

    private final List<Refused> refused = new ArrayList<>();
    /** Why the newest whole version that did not fit was refused, on the topic read last; null if none. */
    private String misfit;

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
     * The job's latest good model version that fits, whole (parameters put together, the task
     * description of slice 0), or empty if it has none (a new job, a missing topic, or no version
     * that fits: see {@link #misfit()}).
     *
     * @param misfit why a whole version does not fit this trainer, or null if it does
     * @throws TimeoutException if the topic cannot be read to its end within the timeout
     */
    Optional<ModelVersion> latestModel(
            String topic, Deserializer<ModelVersion> deserializer, Function<ModelVersion, String> misfit) {
        return latest(topic, deserializer, MODEL, misfit, MAX_VERSION);
    }

    /**
     * The job's latest good optimizer state that fits, of version {@code atMost} or older, whole;
     * as {@link #latestModel}. Newer ones are passed over (the model they go with was refused).
     */
    Optional<OptimizerState> latestOptimizerState(
            String topic,
            Deserializer<OptimizerState> deserializer,
            long atMost,
            Function<OptimizerState, String> misfit) {
        return latest(topic, deserializer, OPTIMIZER_STATE, misfit, atMost);
    }

    /** The highest model version of the job that has an evaluation, or empty if none does. */
    OptionalLong latestEvaluatedVersion(String topic, Deserializer<Evaluation> deserializer) {
        return latest(topic, deserializer, EVALUATION, e -> null, MAX_VERSION)
                .map(e -> OptionalLong.of(e.getModelVersion()))
                .orElse(OptionalLong.empty());
    }

    /**
     * Why the newest whole version of the job on the topic read last did not fit, when no version
     * fit; null if one did, or there was none.
     */
    String misfit() {
        return misfit;
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
        final ChunkAssembler<Long> assembler = new ChunkAssembler<>(Integer.MAX_VALUE - 8, MAX_INCOMPLETE);
        final Map<Long, V> firstSlices = new HashMap<>();
        /**
         * The last record of each version being put together, in the order they began: what a
         * version that never completes is lettered as.
         */
        final Map<Long, ConsumerRecord<byte[], byte[]>> lastSliceRecords = new LinkedHashMap<>();
        /** The highest good complete version that fits. */
        V newest;
        /** The highest good complete version that does not fit, and why; its record. */
        V newestMisfit;

        String misfitReason;
        ConsumerRecord<byte[], byte[]> misfitRecord;
    }

    private <V> Optional<V> latest(
            String topic, Deserializer<V> deserializer, Slices<V> slices, Function<V, String> misfit, long atMost) {
        this.misfit = null;
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
                        slices,
                        misfit,
                        atMost);
            }
        }
        consumer.unsubscribe();
        V newest = null;
        V newestMisfit = null;
        PartitionAssembly<V> misfitAssembly = null;
        for (PartitionAssembly<V> assembly : assemblies.values()) {
            if (newer(assembly.newest, newest, slices)) {
                newest = assembly.newest;
            }
            if (newer(assembly.newestMisfit, newestMisfit, slices)) {
                newestMisfit = assembly.newestMisfit;
                misfitAssembly = assembly;
            }
            // versions begun but never completed: a trainer publishes every slice in one transaction
            for (Map.Entry<Long, ConsumerRecord<byte[], byte[]>> left : assembly.lastSliceRecords.entrySet()) {
                refused.add(new Refused(
                        left.getValue(),
                        "version " + left.getKey() + " of job " + job + " on " + topic
                                + " is incomplete (slices missing), not applied"));
            }
        }
        if (newest == null && newestMisfit != null) {
            this.misfit = misfitAssembly.misfitReason;
        } else if (newestMisfit != null && newer(newestMisfit, newest, slices)) {
            // a version that fits is older: the newer one that does not is a stray record
            refused.add(new Refused(misfitAssembly.misfitRecord, misfitAssembly.misfitReason + ", not applied"));
        }
        return Optional.ofNullable(newest);
    }

    /** Whether {@code a} is a version and newer than {@code b} (or {@code b} is none). */
    private static <V> boolean newer(V a, V b, Slices<V> slices) {
        return a != null
                && (b == null
                        || slices.version().applyAsLong(a) > slices.version().applyAsLong(b));
    }

    /** Adds one record of the job to its partition's assembly. */
    private <V> void offer(
            PartitionAssembly<V> assembly,
            ConsumerRecord<byte[], byte[]> r,
            String topic,
            Deserializer<V> deserializer,
            Slices<V> slices,
            Function<V, String> misfit,
            long atMost) {
        if (r.value() == null) {
            refused.add(new Refused(
                    r,
                    "tombstone for key '" + new String(r.key(), StandardCharsets.UTF_8) + "' on " + topic
                            + ": a job's records are never deleted, not applied"));
            return;
        }
        V value;
        try {
            value = deserializer.deserialize(topic, r.value());
        } catch (SerializationException e) {
            refused.add(new Refused(
                    r, "record under key of job " + job + " on " + topic + " does not decode, not applied: " + e));
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
        if (version > atMost) {
            return; // newer than the version resumed from: not this one's
        }
        int chunk = slices.chunk().applyAsInt(value);
        if (!assembly.lastSliceRecords.containsKey(version)
                && assembly.assembler.incomplete() >= MAX_INCOMPLETE
                && slices.chunks().applyAsInt(value) > 1) {
            // room for this version: the one begun longest ago is dropped, and lettered
            Map.Entry<Long, ConsumerRecord<byte[], byte[]>> oldest =
                    assembly.lastSliceRecords.entrySet().iterator().next();
            assembly.assembler.discardIf(oldest.getKey()::equals);
            assembly.firstSlices.remove(oldest.getKey());
            assembly.lastSliceRecords.remove(oldest.getKey());
            refused.add(new Refused(
                    oldest.getValue(),
                    "version " + oldest.getKey() + " of job " + job + " on " + topic + " is incomplete (slices missing"
                            + " while " + MAX_INCOMPLETE + " newer versions began), not applied"));
        }
        if (chunk == 0) {
            assembly.firstSlices.put(version, value);
        }
        ChunkAssembler.Offer offered = assembly.assembler.offer(
                version,
                chunk,
                slices.chunks().applyAsInt(value),
                slices.payload().apply(value));
        if (offered instanceof ChunkAssembler.Incomplete) {
            assembly.lastSliceRecords.put(version, r);
            return;
        }
        assembly.lastSliceRecords.remove(version);
        V first = assembly.firstSlices.remove(version);
        if (offered instanceof ChunkAssembler.Refused bad) {
            refused.add(new Refused(
                    r, "slice of version " + version + " of job " + job + " on " + topic + ": " + bad.reason()));
            return;
        }
        if (first == null) {
            refused.add(new Refused(
                    r, "version " + version + " of job " + job + " on " + topic + " has no slice 0, not applied"));
            return;
        }
        V whole = slices.whole().apply(first, ((ChunkAssembler.Complete) offered).payload());
        String problem = slices.wholeProblem().apply(whole);
        if (problem != null) {
            refused.add(new Refused(r, problem));
            return;
        }
        String unfit = misfit.apply(whole);
        if (unfit != null) {
            if (!newer(whole, assembly.newestMisfit, slices) && assembly.newestMisfit != null) {
                return;
            }
            assembly.newestMisfit = whole;
            assembly.misfitReason = unfit;
            assembly.misfitRecord = r;
            return;
        }
        if (assembly.newest == null || version >= slices.version().applyAsLong(assembly.newest)) {
            assembly.newest = whole;
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
        if (!k.startsWith(job + JobNames.SLICE_SEPARATOR) || k.length() == job.length() + 1) {
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
