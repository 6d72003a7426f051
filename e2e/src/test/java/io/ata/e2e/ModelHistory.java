package io.ata.e2e;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.ata.local.LocalDeployment;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundEventType;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TaskSpec;
import io.ata.schemas.TimingStatus;
import io.ata.schemas.chunk.ChunkAssembler;
import io.ata.schemas.tensor.TensorCodec;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A network job's history as its topics hold it: every model version, its slices put back
 * together as a reader would ({@link ChunkAssembler}), and the task ids each round accepted.
 */
final class ModelHistory {
    private final Map<Long, float[]> parameters;
    private final TaskSpec task;

    private ModelHistory(Map<Long, float[]> parameters, TaskSpec task) {
        this.parameters = parameters;
        this.task = task;
    }

    /** Reads every committed model version of {@code job}. */
    static ModelHistory read(LocalDeployment local, String job) {
        ChunkAssembler<Long> assembler = new ChunkAssembler<>(Integer.MAX_VALUE - 8, 4);
        Map<Long, float[]> parameters = new TreeMap<>();
        TaskSpec task = null;
        for (ConsumerRecord<String, ModelVersion> r :
                TopicContents.read(local, local.topics().model())) {
            ModelVersion slice = r.value();
            if (slice == null || !slice.getJob().equals(job)) {
                continue;
            }
            if (slice.getTask() != null) {
                task = slice.getTask();
            }
            ChunkAssembler.Offer offer =
                    assembler.offer(slice.getVersion(), slice.getChunk(), slice.getChunks(), slice.getParameters());
            if (offer instanceof ChunkAssembler.Complete complete) {
                parameters.put(
                        slice.getVersion(),
                        TensorCodec.decodeFloats(ByteBuffer.wrap(complete.payload()), slice.getEncoding()));
            } else {
                assertInstanceOf(ChunkAssembler.Incomplete.class, offer, "slice of version " + slice.getVersion());
            }
        }
        assertNotNull(task, "a model version carries the task description");
        return new ModelHistory(parameters, task);
    }

    /** The versions, in order, each with its parameters. */
    Map<Long, float[]> versions() {
        return parameters;
    }

    float[] version(long version) {
        float[] p = parameters.get(version);
        assertNotNull(p, "model version " + version + " of " + parameters.keySet());
        return p;
    }

    /** What a task of this job computes on: the network, data set and sample rule. */
    TaskSpec task() {
        return task;
    }

    /** The task ids each closed round of {@code job} accepted (its CLOSED event's COMPLETED timings), by round. */
    static Map<Long, List<String>> acceptedTasks(LocalDeployment local, String job) {
        Map<Long, List<String>> accepted = new HashMap<>();
        for (ConsumerRecord<String, RoundEvent> r :
                TopicContents.read(local, local.topics().rounds())) {
            RoundEvent e = r.value();
            if (e != null && e.getJob().equals(job) && e.getType() == RoundEventType.CLOSED) {
                accepted.put(
                        e.getRound(),
                        e.getTimings().stream()
                                .filter(t -> t.getStatus() == TimingStatus.COMPLETED)
                                .map(RoundTiming::getTaskId)
                                .toList());
            }
        }
        return accepted;
    }
}
