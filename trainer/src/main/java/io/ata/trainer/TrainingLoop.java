package io.ata.trainer;

import io.ata.platform.kafka.KafkaClientFactory;
import io.ata.platform.kafka.KafkaErrors;
import io.ata.schemas.DeadLetter;
import io.ata.schemas.Evaluation;
import io.ata.schemas.TaskResult;
import io.ata.schemas.TimingStatus;
import io.ata.schemas.Topics;
import io.ata.schemas.decoding.DeadLetters;
import io.ata.schemas.registry.SchemaRegistryClient;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CancellationException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The trainer thread's work, the consume-transform-produce loop: polls {@code gradients}, offers
 * each result to the open round, and closes the round once it is complete, publishing the close
 * in one transaction ({@link TransitionPublisher}). Results that arrive in slices are put back
 * together first ({@link ResultAssembler}); model versions due for an evaluation are scored in the
 * background ({@link Evaluations}) and published with a later transaction, the job's last ones in
 * a transaction of their own before the job counts as finished. Survivable errors drop the open
 * round's work, which is then read again ({@link JobRecovery}); see {@link Trainer} for the whole
 * contract.
 *
 * <p>Owned by the trainer thread: {@link #run()} and {@link #shutdown()} are called there only.
 */
final class TrainingLoop {
    // the trainer's log, whichever of its parts writes: one logger to configure
    private static final Logger log = LoggerFactory.getLogger(Trainer.class);

    /** Errors without a successful close in between after which the trainer gives up. */
    static final int MAX_CONSECUTIVE_FAILURES = 10;

    private static final Duration FIRST_BACKOFF = Duration.ofMillis(100);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);
    private static final Duration PRODUCER_CLOSE_TIMEOUT = Duration.ofSeconds(30);
    private static final DeadLetters DEAD_LETTERS = new DeadLetters(DeadLetters.TRAINER);
    /** How long a dead letter may wait for the round's close before it is published on its own. */
    static final long LETTER_DELAY_MS = 200;
    /** The poll while results wait for their assignment: the watch answers within milliseconds. */
    private static final long HELD_POLL_MS = 5;
    /** How long before the open round's OPENED event its assignments are looked for on {@code tasks}. */
    private static final long WATCH_LOOK_BACK_MS = 30_000;
    /** At most this long before the trainer started is read back on {@code allocations}. */
    static final long MAX_WATCH_LOOK_BACK_MS = 10 * 60_000;

    private final TrainerConfig config;
    private final TrainingJob job;
    private final Topics topics;
    private final SchemaRegistryClient registry;
    private final KafkaClientFactory clients;
    private final GradientDecoder decoder;
    private final TrainerMetrics metrics;
    private final JobProgress progress;
    private final StopRequest stop;
    private final UncommittedWork work = new UncommittedWork();
    private final ResultAssembler assembler;
    private final Evaluations evaluations;
    private final Map<String, Integer> partitionCounts = new HashMap<>();
    /** The open round's assignments: who may deliver each task, and their deadlines. */
    private final RoundAssignments assignments;
    /** Results whose assignment the watch has not read yet. */
    private final HeldResults held = new HeldResults();
    /** At most 10 dead-letter lines in the log per 10 s: a flood has its letters, not a flooded log. */
    private final LogBudget letterLog = new LogBudget(10, 10_000);

    private RoundWatch watch;

    private final SharedClients shared;
    private GradientSource gradients;
    private Producer<String, byte[]> producer;
    private TransitionPublisher publisher;
    private JobRecovery recovery;
    private TrainerState state;
    private boolean shuttingDown;
    /** Errors survived since the last successful close; too many in a row stop the trainer. */
    private int failuresSinceLastClose;

    TrainingLoop(
            TrainerConfig config,
            SchemaRegistryClient registry,
            KafkaClientFactory clients,
            SharedClients shared,
            TrainerMetrics metrics,
            JobProgress progress,
            StopRequest stop) {
        this.config = config;
        this.job = config.trainingJob();
        this.topics = config.topics();
        this.registry = registry;
        this.clients = clients;
        this.shared = shared;
        this.metrics = metrics;
        this.progress = progress;
        this.stop = stop;
        this.decoder = new GradientDecoder(
                job.job(),
                topics.gradients().name(),
                topics.gradients().valueSerde(registry).deserializer());
        this.assembler = new ResultAssembler(job.model().dimension());
        this.evaluations = new Evaluations(
                job.job(), job.model(), config.evalEvery(), config.evalThreads(), config.clock(), metrics);
        // a network's first rounds wait for the agents to load their engine: no stall
        this.assignments = new RoundAssignments(
                job.job(), job.model().taskSpec().isPresent() ? StallBound.ENGINE_WARM_UP_MS : StallBound.WARM_UP_MS);
        metrics.showDeadlineMargin(assignments);
    }

    /**
     * Trains until the job's last round closed (and its last evaluations are published) or a stop
     * is requested; throws what stopped it otherwise. {@link #shutdown()} must follow, whatever
     * happened.
     */
    void run() {
        producer = clients.producer(TrainerClients.producer(config));
        TransitionRecords records =
                new TransitionRecords(job.job(), topics, registry, config.chunkBytes(), this::partitionCount);
        publisher = new TransitionPublisher(producer, () -> gradients.groupMetadata(), records, stop);
        gradients = shared.gradients().open(config, clients);
        stop.blockingIn(gradients::wakeup);
        recovery = new JobRecovery(config, clients, registry, gradients, publisher, stop);
        producer.initTransactions();
        state = recovery.resume();
        assignments.resumeMargin(recovery.deliveryMarginMs());
        assignments.resumeStallBound(recovery.medianRoundMs());
        for (ModelReader.Refused refused : recovery.refusedModelRecords()) {
            deadLetter(refused.record(), refused.reason(), null);
        }
        publishLettersIfDue(true);
        scoreCurrentVersionIfDue(recovery.lastEvaluatedVersion());
        if (state.finished()) {
            publishLastEvaluations(); // a successor of a trainer that died before publishing them
            progress.modelAt(state.modelVersion(), state.objective());
            return;
        }
        progress.modelAt(state.modelVersion(), state.objective());
        watchOpenRound();
        gradients.start(this::partitionsLeaving);
        while (!state.finished() && !stop.stopping()) {
            try {
                processBatch(gradients.poll(pollTimeout()));
            } catch (WakeupException | CancellationException e) {
                // close() or kill(): the loop's condition ends it
            } catch (RuntimeException e) {
                if (stop.stopping()) {
                    return;
                }
                failuresSinceLastClose++;
                if (KafkaErrors.isFatal(e) || failuresSinceLastClose >= MAX_CONSECUTIVE_FAILURES) {
                    throw e;
                }
                recoverFrom(e, failuresSinceLastClose);
            }
        }
        if (state.finished()) {
            log.info(
                    "job {} finished: round {} closed, objective {}",
                    job.job(),
                    state.modelVersion(),
                    state.objective());
        } else if (!stop.killed()) {
            publishLastEvaluations(); // close(): the versions scored or being scored are published
        }
    }

    /**
     * Starts the watch of the open round ({@link RoundWatches}): its assignments, read from a
     * little before the round opened, so that a restarted trainer knows them too.
     */
    private void watchOpenRound() {
        openRoundHere();
        long now = config.clock().millis();
        long readFrom =
                Math.max(Math.min(now, state.modelTimestampMs()) - WATCH_LOOK_BACK_MS, now - MAX_WATCH_LOOK_BACK_MS);
        watch = shared.watches().start(config, registry, clients, assignments, metrics, readFrom);
    }

    /** Tells the assignments which round is open now: the last one's are done with. */
    private void openRoundHere() {
        state.openRound()
                .ifPresent(open ->
                        assignments.roundOpened(open.round(), config.clock().millis()));
    }

    /**
     * The next poll's timeout: the configured one, shorter while results wait for their assignment
     * or dead letters wait to be published.
     */
    private Duration pollTimeout() {
        long ms = config.pollTimeout().toMillis();
        if (!held.isEmpty()) {
            ms = Math.min(ms, HELD_POLL_MS);
        }
        long first = work.firstLetterAtMs();
        if (first >= 0) {
            ms = Math.min(
                    ms, Math.max(1, first + LETTER_DELAY_MS - config.clock().millis()));
        }
        return Duration.ofMillis(ms);
    }

    /**
     * At start: schedules the current version's evaluation if it is due and the topic has none
     * for it yet (a new job's version 0, or the version a crashed trainer committed before its
     * evaluation was published).
     */
    private void scoreCurrentVersionIfDue(OptionalLong lastEvaluated) {
        long version = state.modelVersion();
        boolean scored = lastEvaluated.isPresent() && lastEvaluated.getAsLong() >= version;
        if (!scored && evaluations.due(version, state.finished())) {
            evaluations.submit(version, state.parameterTensor(), state.modelTimestampMs(), state.finished());
        }
    }

    /**
     * Waits for the evaluations still being scored and publishes them in a transaction of their
     * own: when the job ended, so that a caller woken by its last round sees every evaluation, and
     * at a clean stop. A failure to publish is logged: a successor scores the current version again.
     */
    private void publishLastEvaluations() {
        List<Evaluation> last = evaluations.awaitAll(stop);
        if (last.isEmpty()) {
            return;
        }
        try {
            publisher.publishEvaluations(last);
        } catch (CancellationException e) {
            throw e;
        } catch (RuntimeException e) {
            if (KafkaErrors.isFatal(e)) {
                throw e;
            }
            log.warn(
                    "job {}: evaluations of model versions {} not published: {}",
                    job.job(),
                    last.stream().map(Evaluation::getModelVersion).toList(),
                    e.toString());
            try {
                publisher.abortIfOpen();
            } catch (RuntimeException abort) {
                log.debug("aborting the evaluations' transaction", abort);
            }
            return;
        }
        evaluations.published(last);
        evaluationsPublished(last);
    }

    /** Tells the meters and the listener about evaluations just committed. */
    private void evaluationsPublished(List<Evaluation> published) {
        for (Evaluation evaluation : published) {
            metrics.evaluationPublished(evaluation);
            log.info(
                    "job {}: model version {} scored on {}: test loss {}, accuracy {}",
                    job.job(),
                    evaluation.getModelVersion(),
                    evaluation.getDataset().isEmpty() ? "its objective" : evaluation.getDataset(),
                    evaluation.getTestLoss(),
                    evaluation.getTestAccuracy());
            try {
                config.listener().evaluated(evaluation);
            } catch (RuntimeException e) {
                log.warn(
                        "round listener failed on the evaluation of version {} of job {}",
                        evaluation.getModelVersion(),
                        job.job(),
                        e);
            }
        }
    }

    /**
     * The number of partitions of {@code topic}, which decides the partition of the job's model
     * and optimizer-state records; asked once per topic.
     */
    private int partitionCount(String topic) {
        return partitionCounts.computeIfAbsent(topic, t -> {
            List<PartitionInfo> infos = producer.partitionsFor(t);
            if (infos == null || infos.isEmpty()) {
                throw new IllegalStateException("topic " + t + " has no partitions the producer knows of");
            }
            return infos.size();
        });
    }

    /**
     * Processes one poll's records, then closes the round if it is complete. Closing after the
     * whole poll rather than at the B-th result costs microseconds and keeps the results of the
     * round that arrived with it as LATE timings: the discarded work, which the broker learns from.
     * (A poll cannot hold results of the next round: that round is opened by this close.)
     */
    private void processBatch(List<ConsumerRecord<byte[], byte[]>> records) {
        long readNanos = System.nanoTime();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            if (stop.killed()) {
                throw new CancellationException("killed");
            }
            process(record, readNanos);
            work.processed(record);
        }
        releaseHeld();
        if (state.roundComplete()) {
            closeRound();
        }
        publishLettersIfDue(false);
    }

    /**
     * One record of {@code gradients}: ignored, dead-lettered, a slice kept for later, or (whole,
     * or the slice that completes it) a result offered to the open round.
     */
    private void process(ConsumerRecord<byte[], byte[]> record, long readNanos) {
        GradientDecoder.Outcome decoded = decoder.decode(record.key(), record.value());
        if (decoded instanceof GradientDecoder.OtherJob) {
            metrics.otherJobIgnored();
            return;
        }
        if (decoded instanceof GradientDecoder.Undecodable bad) {
            deadLetter(record, bad.reason(), bad.error());
            return;
        }
        TaskResult result = ((GradientDecoder.Result) decoded).result();
        if (result.getChunks() != 1 || result.getChunk() != 0) {
            metrics.resultSlice();
        }
        if (isCompletedOfOpenRound(result)) {
            String worker = assigneeOf(result);
            if (!held.isEmpty()) {
                hold(new HeldResults.Held(record, result, worker, readNanos)); // behind the ones held: in order
                return;
            }
            switch (assignments.ownership(result.getTaskId(), worker, readNanos)) {
                case NOT_ASSIGNED -> {
                    deadLetter(record, notAssigned(result, worker), null);
                    return;
                }
                case UNKNOWN -> {
                    hold(new HeldResults.Held(record, result, worker, readNanos));
                    return;
                }
                case ASSIGNED -> {
                    // its worker's own task, or a copy of it
                }
            }
        }
        assemble(record, result);
    }

    /** A result of the open round with a gradient: only its assigned worker (or a copy's) may send it. */
    private boolean isCompletedOfOpenRound(TaskResult result) {
        RoundAccumulator open = state.openRound().orElse(null);
        return open != null
                && result.getStatus() == TimingStatus.COMPLETED
                && result.getJob().equals(job.job())
                && result.getRound() == open.round()
                && result.getModelVersion() == open.modelVersion();
    }

    /** The worker whose assignment the result answers: the one it names, or (older agents) the one that sent it. */
    private static String assigneeOf(TaskResult result) {
        return result.getAssignedWorkerId().isEmpty() ? result.getWorkerId() : result.getAssignedWorkerId();
    }

    private RoundAssignments.Ownership ownershipOf(HeldResults.Held h) {
        return assignments.ownership(h.result().getTaskId(), h.worker(), h.readNanos());
    }

    private String notAssigned(TaskResult result, String worker) {
        String task = "result not counted: task " + result.getTaskId() + " of round " + result.getRound();
        List<String> holders = assignments.holdersOf(result.getTaskId());
        if (holders.isEmpty()) {
            return task + " was never assigned (to " + worker + " or anyone): no assignment of it was on the tasks"
                    + " topic when the result came";
        }
        return task + " was assigned to " + holders + ", not to " + worker
                + (worker.equals(result.getWorkerId()) ? "" : " (sent by " + result.getWorkerId() + ")");
    }

    /** Holds a result until the watch knows whether its task was assigned to its worker. */
    private void hold(HeldResults.Held h) {
        metrics.resultHeld();
        assignments.requestCatchUp(h.readNanos());
        for (HeldResults.Held pushedOut : held.hold(h)) {
            deadLetter(
                    pushedOut.record(),
                    "result not counted: " + HeldResults.MAX_RECORDS + " results (or " + HeldResults.MAX_PER_WORKER
                            + " of worker " + pushedOut.worker() + ") were waiting for their assignment to be read",
                    null);
        }
    }

    /**
     * Judges the held results the watch can now tell about: assigned ones go on, others are
     * dead-lettered. One still held when its round closed was never judged (the watch had not read
     * its assignment, e.g. just after a restart): it is dead-lettered saying so, not counted
     * silently, so a forged result that came then has its letter like any other.
     */
    private void releaseHeld() {
        if (held.isEmpty()) {
            return;
        }
        List<HeldResults.Held> ready = held.release(
                h -> !isCompletedOfOpenRound(h.result()) || ownershipOf(h) != RoundAssignments.Ownership.UNKNOWN);
        for (HeldResults.Held h : ready) {
            if (!isCompletedOfOpenRound(h.result())) {
                deadLetter(
                        h.record(),
                        "result not counted: round " + h.result().getRound() + " closed while task "
                                + h.result().getTaskId() + " waited for its assignment to be read; whether "
                                + h.worker() + " was assigned it is unknown",
                        null);
                continue;
            }
            if (ownershipOf(h) == RoundAssignments.Ownership.ASSIGNED) {
                assemble(h.record(), h.result());
            } else { // NOT_ASSIGNED: released only once known
                deadLetter(h.record(), notAssigned(h.result(), h.worker()), null);
            }
        }
    }

    /** A result of a task its worker may deliver: a slice kept, or a whole result offered. */
    private void assemble(ConsumerRecord<byte[], byte[]> record, TaskResult result) {
        ResultAssembler.Outcome assembled =
                assembler.offer(result, state.openRound().orElse(null));
        if (assembled instanceof ResultAssembler.Refused refused) {
            deadLetter(record, "result slice refused: " + refused.reason(), null);
        } else if (assembled instanceof ResultAssembler.Whole whole) {
            offer(record, whole.result());
        }
    }

    private void offer(ConsumerRecord<byte[], byte[]> record, TaskResult result) {
        OfferOutcome outcome = state.offer(result);
        metrics.resultOffered(outcome);
        if (outcome == OfferOutcome.ACCEPTED || outcome == OfferOutcome.LATE || outcome == OfferOutcome.DUPLICATE) {
            assignments.arrived(
                    result.getTaskId(),
                    result.getWorkerId(),
                    result.getComputeMs(),
                    config.clock().millis());
        }
        if (outcome == OfferOutcome.INVALID) {
            deadLetter(record, "invalid result: " + state.lastRefusal().orElse("unknown reason"), null);
        }
        state.lastClip().ifPresent(clip -> {
            metrics.resultClipped();
            log.info("job {}: {}", job.job(), clip);
        });
    }

    /**
     * Queues a dead letter for {@code record}: it is published with the round's close, or within
     * {@link #LETTER_DELAY_MS} in a transaction of its own, whichever comes first. A record whose
     * letter is out already (read again after the round's work was dropped) is not lettered twice.
     */
    private void deadLetter(ConsumerRecord<byte[], byte[]> record, String reason, Throwable error) {
        DeadLetter letter =
                DEAD_LETTERS.of(record, reason, error, config.clock().millis());
        if (!work.deadLetter(letter, config.clock().millis())) {
            return;
        }
        metrics.deadLettered();
        boolean logIt = letterLog.allow(config.clock().millis());
        if (letterLog.heldBackLastWindow() > 0) {
            log.warn(
                    "job {}: {} more dead letters in the {} s before, not logged one by one (the dead-letter topic"
                            + " has each)",
                    job.job(),
                    letterLog.heldBackLastWindow(),
                    letterLog.windowMs() / 1000);
        }
        if (logIt) {
            log.warn(
                    "job {}: dead letter for {}-{}@{}: {}",
                    job.job(),
                    record.topic(),
                    record.partition(),
                    record.offset(),
                    letter.getReason());
        }
    }

    /**
     * Publishes the dead letters queued, in a transaction of their own, once the oldest has waited
     * {@link #LETTER_DELAY_MS} (or at once, if {@code now}): a refused record is lettered within
     * about that, whether or not its round closes.
     */
    private void publishLettersIfDue(boolean now) {
        long first = work.firstLetterAtMs();
        if (first < 0 || (!now && config.clock().millis() - first < LETTER_DELAY_MS)) {
            return;
        }
        publisher.publishLetters(work.deadLetters());
        work.lettersPublished();
    }

    private void closeRound() {
        Transition transition = state.closeRound();
        assignments.roundClosed(transition.closed().roundTimeMs());
        // the margin and the round time travel with the version, so a successor does not start
        // from nothing (a fresh record: ours to set)
        transition.model().setDeliveryMarginMs(assignments.marginMs());
        double medianRound = assignments.medianRoundMs();
        transition.model().setMedianRoundMs(Double.isNaN(medianRound) ? 0 : medianRound);
        List<Evaluation> ready = evaluations.ready();
        long start = System.nanoTime();
        publisher.publish(transition, ready, work.deadLetters(), work.offsets());
        long committed = System.nanoTime();
        metrics.published(Duration.ofNanos(committed - start));
        work.committed();
        evaluations.published(ready);
        recovery.committed(transition);
        failuresSinceLastClose = 0;
        int dropped = assembler.roundClosed();
        if (dropped > 0) {
            metrics.incompleteResultsDropped(dropped);
            log.debug("job {}: {} results in slices still incomplete at the close, dropped", job.job(), dropped);
        }
        openRoundHere();
        releaseHeld(); // those held are of the closed round now: counted as such
        RoundSummary round = transition.closed().committedAt(committed);
        metrics.roundClosed(round);
        if (evaluations.due(round.round(), state.finished())) {
            evaluations.submit(round.round(), state.parameterTensor(), state.modelTimestampMs(), state.finished());
        }
        log.debug(
                "job {} round {} closed in {} ms: objective {}, accepted {}, duplicates {}, stale {}, late {}, "
                        + "invalid {}, clipped {}",
                round.job(),
                round.round(),
                round.roundTimeMs(),
                round.objective(),
                round.accepted(),
                round.duplicates(),
                round.stale(),
                round.late(),
                round.invalid(),
                round.clipped());
        evaluationsPublished(ready);
        try {
            config.listener().roundClosed(round);
        } catch (RuntimeException e) {
            log.warn("round listener failed on round {} of job {}", round.round(), job.job(), e);
        }
        if (state.finished()) {
            publishLastEvaluations();
        }
        progress.modelAt(round.round(), round.objective());
    }

    /**
     * After an error that Kafka lets us survive: aborts the open transaction (if the round's
     * close was under way, nothing of it is committed) and forgets the open round's work, which is
     * then read again from the committed offsets. The producer is kept on purpose: a new one's
     * {@code initTransactions()} would fence a newer trainer of the job, should this one be the
     * zombie; with the same producer, such a trainer fences this one and the abort fails fatally.
     */
    private void recoverFrom(RuntimeException error, int attempt) {
        metrics.recovered();
        long backoff = backoffMs(attempt);
        log.warn(
                "job {}: {}; dropping the open round's work, reading it again in {} ms (attempt {} of {})",
                job.job(),
                error.toString(),
                backoff,
                attempt,
                MAX_CONSECUTIVE_FAILURES - 1);
        try {
            Thread.sleep(backoff);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted");
        }
        publisher.abortIfOpen();
        discardOpenRound(gradients.assignment());
    }

    /** The wait before the {@code attempt}-th try again (from 1): 100 ms, doubling, at most 5 s. */
    static long backoffMs(int attempt) {
        return Math.min(MAX_BACKOFF.toMillis(), FIRST_BACKOFF.toMillis() << Math.min(attempt - 1, 20));
    }

    /**
     * If Kafka takes partitions away mid-round (a second trainer joined the group), the results
     * read from them may be read again by someone else: the open round's work is dropped, and it
     * starts again from the committed offsets of the partitions this trainer keeps.
     */
    private void partitionsLeaving(Collection<TopicPartition> leaving) {
        if (leaving.isEmpty() || shuttingDown || stop.stopping() || work.isEmpty()) {
            return;
        }
        log.warn(
                "job {}: partitions {} taken away mid-round; dropping the open round's uncommitted work",
                job.job(),
                leaving);
        metrics.recovered();
        Set<TopicPartition> kept = new HashSet<>(gradients.assignment());
        kept.removeAll(leaving);
        discardOpenRound(kept);
    }

    /** Forgets everything since the last commit, and reads it again from the committed offsets of {@code rewind}. */
    private void discardOpenRound(Set<TopicPartition> rewind) {
        work.clear();
        assembler.clear();
        held.releaseAll(); // read again
        state = recovery.discardOpenRound(rewind);
    }

    /**
     * Releases the clients: aborts an open transaction, closes the producer (at once if killed)
     * and the gradients' source, which commits nothing (auto commit is off).
     */
    void shutdown() {
        shuttingDown = true;
        stop.blockingIn(null);
        if (watch != null) {
            watch.stop();
        }
        evaluations.close();
        if (publisher != null) {
            publisher.close(stop.killed() ? Duration.ZERO : PRODUCER_CLOSE_TIMEOUT);
        }
        if (gradients != null) {
            gradients.close(stop.killed());
        }
    }
}
