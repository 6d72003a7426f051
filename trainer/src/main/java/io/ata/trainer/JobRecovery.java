package io.ata.trainer;

import io.ata.platform.kafka.KafkaClientFactory;
import io.ata.schemas.Evaluation;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.ModelVersions;
import io.ata.schemas.OptimizerState;
import io.ata.schemas.Topics;
import io.ata.schemas.registry.SchemaRegistryClient;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CancellationException;
import org.apache.kafka.clients.consumer.Consumer;
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
    private final GradientSource gradients;
    private final TransitionPublisher publisher;
    private final StopRequest stop;
    private List<ModelReader.Refused> refused = List.of();
    private boolean optimizerRestarted;
    /** The last committed transaction: where a dropped round restarts from. */
    private Transition lastCommitted;
    /** The highest model version with an evaluation on the topic when the trainer started. */
    private OptionalLong lastEvaluatedVersion = OptionalLong.empty();

    /**
     * @param gradients the job's results, not started yet (it then starts at the group's
     *                  committed offsets)
     * @param publisher publishes a new job's start
     */
    JobRecovery(
            TrainerConfig config,
            KafkaClientFactory clients,
            SchemaRegistryClient registry,
            GradientSource gradients,
            TransitionPublisher publisher,
            StopRequest stop) {
        this.config = config;
        this.job = config.trainingJob();
        this.clients = clients;
        this.topics = config.topics();
        this.models = topics.model().valueSerde(registry).deserializer();
        this.optimizerStates = topics.optimizer().valueSerde(registry).deserializer();
        this.evaluations = topics.evaluations().valueSerde(registry).deserializer();
        this.gradients = gradients;
        this.publisher = publisher;
        this.stop = stop;
    }

    /** At start: the job as Kafka holds it, or a new job, published before this returns. */
    TrainerState resume() {
        TrainerState state;
        Transition committed;
        try (Consumer<byte[], byte[]> reader = clients.shortLivedConsumer(TrainerClients.modelReader(config))) {
            stop.blockingIn(reader::wakeup);
            if (stop.stopping()) {
                throw new CancellationException("stopping");
            }
            ModelReader topicsReader = new ModelReader(reader, job.job(), config.clock(), config.startupTimeout());
            Optional<ModelVersion> latest =
                    topicsReader.latestModel(topics.model().name(), models, m -> TrainerState.misfit(m, job));
            if (latest.isEmpty() && topicsReader.misfit() != null) {
                refused = topicsReader.refused();
                throw new IllegalStateException(topicsReader.misfit()); // trained with other settings
            }
            if (latest.isPresent()) {
                state = resumeAt(latest.get(), topicsReader);
                committed = new Transition(latest.get(), optimizerStateOf(state), List.of(), null);
                if (config.evalEvery() > 0) {
                    lastEvaluatedVersion = topicsReader.latestEvaluatedVersion(
                            topics.evaluations().name(), evaluations);
                }
            } else {
                state = null;
                committed = null;
            }
            refused = topicsReader.refused();
        } finally {
            stop.blockingIn(gradients::wakeup);
        }
        if (state != null) {
            lastCommitted = committed;
            log.info(
                    "job {}: resuming at model version {}{} ({}, {})",
                    job.job(),
                    state.modelVersion(),
                    state.finished()
                            ? " (finished)"
                            : ", round " + ModelVersions.roundOn(state.modelVersion()) + " open",
                    job.model().describe(),
                    job.optimizer().describe());
            return state;
        }
        state = TrainerState.fresh(job, config.clock());
        Transition first = state.firstTransition();
        publisher.publish(first, List.of(), List.of(), gradients.endOffsets(config.startupTimeout()));
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
     * The job at model version {@code latest} with the optimizer state of that version. Where the
     * optimizer keeps a state and the topic holds none of that version that fits, though it holds
     * the job's states (the one of this version was refused as a bad record, or is gone with it),
     * its memory starts afresh, with a warning, rather than the job never moving again; where it
     * holds none at all, the job was trained without one and the trainer refuses to start.
     */
    private TrainerState resumeAt(ModelVersion latest, ModelReader reader) {
        if (!job.optimizer().hasState()) {
            return TrainerState.recover(latest, null, job, config.clock());
        }
        int refusedBefore = reader.refused().size();
        Optional<OptimizerState> state = reader.latestOptimizerState(
                topics.optimizer().name(),
                optimizerStates,
                latest.getVersion(),
                s -> OptimizerMemory.misfit(
                        s,
                        job.optimizer(),
                        job.job(),
                        job.model().dimension(),
                        job.model().precision()));
        if (state.isPresent() && state.get().getVersion() == latest.getVersion()) {
            return TrainerState.recover(latest, state.get(), job, config.clock());
        }
        if (reader.misfit() != null) {
            throw new IllegalStateException(reader.misfit()); // trained with other optimizer settings
        }
        boolean hadStates = state.isPresent() || reader.refused().size() > refusedBefore;
        if (!hadStates) {
            return TrainerState.recover(latest, null, job, config.clock()); // refuses, saying why
        }
        log.warn(
                "job {}: no usable optimizer state of model version {} ({}); {} starts from a fresh memory",
                job.job(),
                latest.getVersion(),
                state.map(s -> "the newest usable one is of version " + s.getVersion())
                        .orElse("the ones on the topic were refused"),
                job.optimizer().describe());
        optimizerRestarted = true;
        return TrainerState.recoverWithFreshOptimizer(latest, job, config.clock());
    }

    /** The optimizer state {@code state} holds now, for a later rewind to start from; null for none. */
    private OptimizerState optimizerStateOf(TrainerState state) {
        return state.currentOptimizerState().orElse(null);
    }

    /** Whether the optimizer's memory started afresh at start, its state of the resumed version unusable. */
    boolean optimizerRestarted() {
        return optimizerRestarted;
    }

    /**
     * The records of the job skipped at start as ones no trainer writes (on {@code model},
     * {@code optimizer} and {@code evaluations}: undecodable, a tombstone, a version out of range or
     * incomplete, non-finite parameters, a stray version of other settings), with the reasons: to
     * dead-letter.
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

    /** The median round time published with the last committed model version: 0 for a new job. */
    double medianRoundMs() {
        return lastCommitted == null ? 0 : lastCommitted.model().getMedianRoundMs();
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
        gradients.rewindToCommitted(rewind);
        return state;
    }
}
