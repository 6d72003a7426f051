package io.ata.trainer;

import io.ata.schemas.Evaluation;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.OptimizerState;
import io.ata.schemas.Topics;
import io.ata.schemas.kafka.KafkaClientFactory;
import io.ata.schemas.registry.SchemaRegistryClient;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CancellationException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the trainer takes the job up. At start: from the job's latest model version in Kafka and
 * the optimizer state published with it (and it learns the latest version already evaluated), or,
 * for a new job, from model version 0, published here with the optimizer's fresh state,
 * {@code OPENED 1} and the current end of {@code gradients} as the group's offsets. After an error or a rebalance: from its own last
 * commit, the open round's work dropped and the consumer back at the committed offsets. Either way
 * the round then open is read again from the group's committed offsets: none of a closed round's
 * results is seen again, none of the open round's is missed ({@link TrainerState} says why).
 */
final class JobRecovery {
    // the trainer's log, whichever of its parts writes: one logger to configure
    private static final Logger log = LoggerFactory.getLogger(Trainer.class);

    private final TrainerConfig config;
    private final TrainingJob job;
    private final KafkaClientFactory clients;
    private final Topics topics;
    private final Deserializer<ModelVersion> models;
    private final Deserializer<OptimizerState> optimizerStates;
    private final Deserializer<Evaluation> evaluations;
    private final Consumer<byte[], byte[]> consumer;
    private final TransitionPublisher publisher;
    private final StopRequest stop;
    private List<ModelReader.Refused> refused = List.of();
    /** The last committed transaction: where a dropped round restarts from. */
    private Transition lastCommitted;
    /** The highest model version with an evaluation on the topic when the trainer started. */
    private OptionalLong lastEvaluatedVersion = OptionalLong.empty();

    /**
     * @param consumer  the gradients consumer, not yet subscribed (it then starts at the group's
     *                  committed offsets)
     * @param publisher publishes a new job's start
     */
    JobRecovery(
            TrainerConfig config,
            KafkaClientFactory clients,
            SchemaRegistryClient registry,
            Consumer<byte[], byte[]> consumer,
            TransitionPublisher publisher,
            StopRequest stop) {
        this.config = config;
        this.job = config.trainingJob();
        this.clients = clients;
        this.topics = config.topics();
        this.models = topics.model().valueSerde(registry).deserializer();
        this.optimizerStates = topics.optimizer().valueSerde(registry).deserializer();
        this.evaluations = topics.evaluations().valueSerde(registry).deserializer();
        this.consumer = consumer;
        this.publisher = publisher;
        this.stop = stop;
    }

    /** At start: the job as Kafka holds it, or a new job, published before this returns. */
    TrainerState resume() {
        TrainerState state;
        Transition committed;
        try (Consumer<byte[], byte[]> reader = clients.consumer(TrainerClients.modelReader(config))) {
            stop.blockingIn(reader);
            if (stop.stopping()) {
                throw new CancellationException("stopping");
            }
            ModelReader topicsReader = new ModelReader(reader, job.job(), config.clock(), config.startupTimeout());
            Optional<ModelVersion> latest =
                    topicsReader.latestModel(topics.model().name(), models);
            refused = topicsReader.refused();
            if (latest.isPresent()) {
                OptimizerState optimizerState = job.optimizer().hasState()
                        ? topicsReader
                                .latestOptimizerState(topics.optimizer().name(), optimizerStates)
                                .orElse(null)
                        : null;
                state = TrainerState.recover(latest.get(), optimizerState, job, config.clock());
                committed = new Transition(latest.get(), optimizerState, List.of(), null);
                if (config.evalEvery() > 0) {
                    lastEvaluatedVersion = topicsReader.latestEvaluatedVersion(
                            topics.evaluations().name(), evaluations);
                }
            } else {
                state = null;
                committed = null;
            }
        } finally {
            stop.blockingIn(consumer);
        }
        if (state != null) {
            lastCommitted = committed;
            log.info(
                    "job {}: resuming at model version {}{} ({}, {})",
                    job.job(),
                    state.modelVersion(),
                    state.finished() ? " (finished)" : ", round " + (state.modelVersion() + 1) + " open",
                    job.model().describe(),
                    job.optimizer().describe());
            return state;
        }
        state = TrainerState.fresh(job, config.clock());
        Transition first = state.firstTransition();
        publisher.publish(first, List.of(), List.of(), startingOffsets());
        lastCommitted = first;
        log.info(
                "job {}: new job, model version 0 published and round 1 opened (batch {}, policy '{}', {}, {})",
                job.job(),
                job.batch(),
                job.policy(),
                job.model().describe(),
                job.optimizer().describe());
        return state;
    }

    /**
     * The records of the job's model topic skipped at start as ones no trainer writes (a
     * tombstone, a version out of range, non-finite parameters), with the reasons: to dead-letter.
     */
    List<ModelReader.Refused> refusedModelRecords() {
        return refused;
    }

    /** {@code transition} was committed: a round dropped from now on restarts from it. */
    void committed(Transition transition) {
        lastCommitted = transition;
    }

    /** The delivery margin published with the last committed model version: 0 for a new job. */
    double deliveryMarginMs() {
        return lastCommitted == null ? 0 : lastCommitted.model().getDeliveryMarginMs();
    }

    /**
     * The highest model version that had an evaluation on the {@code evaluations} topic when the
     * trainer resumed the job (empty for a new job, or if evaluations are off).
     */
    OptionalLong lastEvaluatedVersion() {
        return lastEvaluatedVersion;
    }

    /**
     * Drops the open round: returns the state of the last committed model version (and optimizer
     * state), and moves the consumer on {@code rewind} back to the committed offsets.
     */
    TrainerState discardOpenRound(Set<TopicPartition> rewind) {
        TrainerState state =
                TrainerState.recover(lastCommitted.model(), lastCommitted.optimizerState(), job, config.clock());
        rewindToCommitted(rewind);
        return state;
    }

    /**
     * The current end of every {@code gradients} partition: where a new job starts reading, so
     * results left from before it are not counted and none published after its OPENED 1 is missed.
     */
    private Map<TopicPartition, OffsetAndMetadata> startingOffsets() {
        String topic = config.topics().gradients().name();
        List<PartitionInfo> infos = consumer.partitionsFor(topic, config.startupTimeout());
        if (infos == null || infos.isEmpty()) {
            log.warn("topic {} does not exist yet; the trainer will read it from its beginning", topic);
            return Map.of();
        }
        List<TopicPartition> partitions = new ArrayList<>(infos.size());
        for (PartitionInfo info : infos) {
            partitions.add(new TopicPartition(topic, info.partition()));
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        consumer.endOffsets(partitions, config.startupTimeout())
                .forEach((tp, end) -> offsets.put(tp, new OffsetAndMetadata(end)));
        return offsets;
    }

    /** Moves the consumer on {@code partitions} back to the group's committed offsets. */
    private void rewindToCommitted(Set<TopicPartition> partitions) {
        if (partitions.isEmpty()) {
            return;
        }
        Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(partitions);
        for (TopicPartition tp : partitions) {
            OffsetAndMetadata offset = committed.get(tp);
            if (offset == null) {
                consumer.seekToBeginning(List.of(tp));
            } else {
                consumer.seek(tp, offset);
            }
        }
    }
}
