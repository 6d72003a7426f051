package io.ata.broker;

import io.ata.schemas.JobState;
import io.ata.schemas.JobWorkerState;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.decoding.RecordDecoder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's core: for each job, folds CLOSED rounds into the statistics and answers OPENED
 * rounds with assignments, keeping the job's state in the {@code jobs} store. A wall-clock
 * punctuator re-checks liveness so that dead workers drop out even between rounds, and deletes a
 * job that has had no round event for the job retention (finished, or abandoned).
 *
 * <p>Input is read as bytes and decoded here, so that a record that does not decode, or that
 * breaks a rule of {@link RoundEventRules} (out of range, or not at or next to its job's open
 * round), goes to the dead-letter topic with its reason instead of stopping the stream or moving
 * a statistic; a CLOSED event's bad timings are left out and named in one letter, and its good
 * ones folded. A job whose stored learned state its policy refuses (corrupt, or a version this
 * build cannot read) is logged, counted and continues over its statistics, learning afresh.
 */
final class RoundProcessor implements Processor<byte[], byte[], String, SpecificRecord> {
    private static final Logger LOG = LoggerFactory.getLogger(RoundProcessor.class);
    /** See {@link #runtime}: ten minutes, far more than a trainer takes to re-send a stalled round. */
    static final long RETENTION_GRACE_MS = BrokerSettings.MIN_JOB_RETENTION.toMillis();
    /**
     * How far the time a job was last heard from may run ahead of the stored one before the
     * liveness check writes it (see {@link JobRuntime#eventTimeUnstored}): small beside the
     * retention (ten minutes at least), and a write a minute at most per quiet job.
     */
    static final long EVENT_TIME_SLACK_MS = 60_000;

    private final RecordDecoder<RoundEvent> decoder;
    private final BrokerSettings settings;
    private final BrokerMetrics metrics;
    private final DeadLetterOutput deadLetters;
    private final MembershipMirror membership;
    /** The jobs of this task's partition, live; every job of its store once {@link #allJobsLoaded}. */
    private final Map<String, JobRuntime> runtimes = new HashMap<>();

    private boolean allJobsLoaded;
    /** When this processor was (last) initialized: a job read from the store has a grace from then. */
    private long initializedAtMs;

    private ProcessorContext<String, SpecificRecord> context;
    private KeyValueStore<String, JobState> jobs;
    private KeyValueStore<String, JobWorkerState> jobWorkers;
    private KeyValueStore<String, byte[]> jobLearned;

    RoundProcessor(
            Deserializer<RoundEvent> decoder,
            String topic,
            BrokerSettings settings,
            BrokerMetrics metrics,
            MembershipMirror membership) {
        this.decoder = new RecordDecoder<>(decoder, "round event");
        this.settings = settings;
        this.metrics = metrics;
        this.membership = membership;
        this.deadLetters = new DeadLetterOutput(topic, BrokerTopology.DEAD_LETTER_SINK_ROUNDS, metrics);
    }

    @Override
    public void init(ProcessorContext<String, SpecificRecord> context) {
        this.context = context;
        this.jobs = context.getStateStore(BrokerTopology.JOBS_STORE);
        this.jobWorkers = context.getStateStore(BrokerTopology.JOB_WORKERS_STORE);
        this.jobLearned = context.getStateStore(BrokerTopology.JOB_LEARNED_STORE);
        // Kafka Streams initializes the same processor again after a task is revived (its state
        // wiped and restored, under exactly-once) or resumed: the jobs in memory may be ahead of
        // the store now, so they are read from it again
        runtimes.clear();
        initializedAtMs = context.currentSystemTimeMs();
        allJobsLoaded = false;
        context.schedule(settings.livenessCheck(), PunctuationType.WALL_CLOCK_TIME, this::checkLiveness);
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        RoundEvent event = deadLetters.decodeOrSend(context, record, decoder);
        if (event == null) {
            return;
        }
        metrics.roundEventRead(event.getType(), record.timestamp(), context.currentSystemTimeMs());
        try {
            Refusal refusal = RoundEventRules.problem(event);
            if (refusal == null) {
                refusal = switch (event.getType()) {
                    case OPENED -> open(event, record.timestamp());
                    case OVERDUE -> overdue(event, record.timestamp());
                    case CLOSED -> close(event, record);
                };
            }
            if (refusal != null) {
                deadLetter(record, refusal, null);
            }
        } catch (IllegalArgumentException | IllegalStateException e) {
            deadLetter(record, new Refusal(Refusal.Kind.INVALID_ROUND_EVENT, e.getMessage()), e);
        }
    }

    /** Allocates an OPENED event's round; the refusal if its job refuses it. */
    private Refusal open(RoundEvent event, long timestamp) {
        JobRuntime runtime = runtime(event.getJob());
        if (runtime == null) {
            runtime = JobRuntime.create(event, settings);
        } else if (event.getRound() < runtime.lastOpenedRound()) {
            metrics.count(BrokerCounter.STALE_OPENS_IGNORED);
            return null;
        } else {
            Refusal refusal = RoundEventRules.openProblem(event, runtime);
            if (refusal != null) {
                return refusal;
            }
        }
        runtimes.put(event.getJob(), runtime);
        long now = context.currentSystemTimeMs();
        runtime.heardAt(now);
        long round = event.getRound();
        boolean reopened = runtime.alreadyOpened(round);
        if (!reopened) {
            runtime.syncMembers(membership.members(), membershipClock(now));
            if (!runtime.hasLiveWorker() && !runtime.plannedAhead(round)) {
                // e.g. right after a restart, before fresh heartbeats came through: wait, do not drop
                runtime.deferOpen(round, event.getModelVersion());
                metrics.count(BrokerCounter.ROUNDS_DEFERRED);
                store(runtime);
                return null;
            }
        } else {
            metrics.count(BrokerCounter.ROUNDS_REOPENED);
        }
        List<TaskAssignment> assignments = new ArrayList<>(runtime.allocate(round, event.getModelVersion(), now));
        // the round ahead is planned only under pipelined allocation, but one planned before is
        // sent again with its open round whatever the setting is now: its agents may not have it
        long lastRound = settings.pipelinedAllocation() ? event.getLastRound() : 0;
        List<TaskAssignment> ahead = runtime.planAhead(round + 1, lastRound, now);
        if (!ahead.isEmpty() && !reopened) {
            metrics.count(BrokerCounter.ROUNDS_PLANNED_AHEAD);
        }
        assignments.addAll(ahead);
        emit(assignments, timestamp);
        if (!reopened) {
            allocated(runtime);
        }
        store(runtime);
        return null;
    }

    /** Sends backup copies of the overdue tasks an OVERDUE event lists, or refuses it. */
    private Refusal overdue(RoundEvent event, long timestamp) {
        JobRuntime runtime = runtime(event.getJob());
        if (runtime == null) {
            return new Refusal(Refusal.Kind.UNKNOWN_JOB, "OVERDUE event of unknown job " + event.getJob());
        }
        if (event.getRound() <= runtime.lastClosedRound() || event.getRound() < runtime.lastOpenedRound()) {
            return null; // the round closed while the request was on its way: nothing to back up
        }
        Refusal refusal = RoundEventRules.overdueProblem(event, runtime);
        if (refusal != null) {
            return refusal;
        }
        runtime.heardAt(context.currentSystemTimeMs()); // a slow round's trainer sends only these
        List<TaskAssignment> copies = runtime.backUp(event, context.currentSystemTimeMs());
        if (!copies.isEmpty()) {
            metrics.count(
                    BrokerCounter.BACKUP_TASKS,
                    copies.stream().mapToInt(a -> a.getTaskIds().size()).sum());
            emit(copies, timestamp);
            store(runtime);
        }
        return null;
    }

    /**
     * Sends assignments to their agents and, keyed by job, to the job's trainer, and asks for a
     * commit: under exactly-once both see them only then, together.
     */
    private void emit(List<TaskAssignment> assignments, long timestamp) {
        for (TaskAssignment a : assignments) {
            context.forward(
                    new Record<String, SpecificRecord>(a.getWorkerId(), a, timestamp), BrokerTopology.TASKS_SINK);
            context.forward(
                    new Record<String, SpecificRecord>(a.getJob(), a, timestamp), BrokerTopology.ALLOCATIONS_SINK);
        }
        context.commit();
    }

    /**
     * Folds a CLOSED event, or refuses it. Its bad timings are left out, named in one dead letter
     * of the event, and the rest is folded ({@link RoundEventRules#checkClose}). No commit is asked
     * for: the OPENED event of the next round follows in the same partition, and its assignments
     * commit the fold with them, in one transaction.
     */
    private Refusal close(RoundEvent event, Record<byte[], byte[]> record) {
        JobRuntime runtime = runtime(event.getJob());
        if (runtime == null) {
            return new Refusal(Refusal.Kind.UNKNOWN_JOB, "CLOSED event of unknown job " + event.getJob());
        }
        runtime.heardAt(context.currentSystemTimeMs());
        if (event.getRound() <= runtime.lastClosedRound()) {
            metrics.count(BrokerCounter.DUPLICATES_IGNORED);
            return null;
        }
        RoundEventRules.Close checked = RoundEventRules.checkClose(event, runtime, membership::contains);
        if (checked.refusal() != null) {
            return checked.refusal();
        }
        if (!checked.bad().isEmpty()) {
            deadLetter(record, checked.letter(), null);
            metrics.count(BrokerCounter.TIMINGS_LEFT_OUT, checked.bad().size());
        }
        runtime.fold(checked.folded());
        store(runtime);
        metrics.roundClosed(runtime, checked.folded());
        return null;
    }

    /** A new round of {@code runtime} was allocated: the live view and the gauges follow. */
    private void allocated(JobRuntime runtime) {
        metrics.recentRounds().allocated(runtime.job(), runtime.lastOpenedRound(), runtime.lastAllocation());
        metrics.jobUpdated(runtime);
    }

    private JobRuntime runtime(String job) {
        JobRuntime runtime = runtimes.get(job);
        if (runtime == null) {
            runtime = restore(job);
            if (runtime != null) {
                // liveness is not stored: the membership says who is live now
                runtime.syncMembers(membership.members(), membershipClock(context.currentSystemTimeMs()));
                if (runtime.lastEventMs() == 0) {
                    // written before the time was kept: its retention counts from now
                    runtime.heardAt(context.currentSystemTimeMs());
                } else {
                    // a broker down (or behind its rounds topic) for long has not heard the events
                    // waiting for it: every stored job gets a grace to be heard from again
                    runtime.heardAt(initializedAtMs - settings.jobRetention().toMillis() + RETENTION_GRACE_MS);
                }
                runtimes.put(job, runtime);
            }
        }
        return runtime;
    }

    /**
     * The job as stored, or null if none is. A stored state that cannot be read (bytes that do not
     * decode, parts that do not fit together: the changelogs are topics anyone with access can
     * write to) is deleted and the job starts afresh at its next OPENED event, with a warning and
     * a count: refusing its every event instead would freeze the job for good, and failing the
     * stream thread would stop every job of the partition.
     */
    private JobRuntime restore(String job) {
        try {
            JobState state = jobs.get(job);
            if (state == null) {
                return null;
            }
            return JobRuntime.restoreOrRelearn(StoredJobs.read(state, jobWorkers, jobLearned), settings, refused -> {
                // a corrupt or unreadable learned state costs what the policy learned, not the job
                LOG.warn(
                        "job {}: its stored learned state was refused, learning afresh: {}",
                        job,
                        refused.getMessage(),
                        refused);
                metrics.count(BrokerCounter.LEARNED_STATES_DISCARDED);
            });
        } catch (SerializationException | IllegalArgumentException e) {
            LOG.warn(
                    "job {}: its stored state cannot be read, deleted; the job starts afresh at its next OPENED"
                            + " event (its statistics and learning are lost): {}",
                    job,
                    e.getMessage(),
                    e);
            metrics.count(BrokerCounter.STORED_STATES_DISCARDED);
            delete(job);
            return null;
        }
    }

    /** Deletes the job's record and every part of it, readable or not. */
    private void delete(String job) {
        deleteParts(jobWorkers, job);
        deleteParts(jobLearned, job);
        jobs.put(job, null);
    }

    /** Deletes the job's parts in {@code store}: keys read, values decoded or not. */
    private static <V> void deleteParts(KeyValueStore<String, V> store, String job) {
        List<String> keys;
        try (KeyValueIterator<String, V> it =
                store.prefixScan(JobStateParts.partKeyPrefix(job), new StringSerializer())) {
            keys = keysOf(it);
        }
        // put(key, null), not delete(key): a store's delete decodes the value it removes
        keys.forEach(key -> store.put(key, null));
    }

    /**
     * The keys {@code it} has left, also of values that do not decode: a store's iterator decodes
     * each value as it moves past it, so an unreadable one throws after the key is known.
     */
    private static <V> List<String> keysOf(KeyValueIterator<String, V> it) {
        List<String> keys = new ArrayList<>();
        while (it.hasNext()) {
            keys.add(it.peekNextKey());
            try {
                it.next();
            } catch (SerializationException unreadable) {
                // its key is kept all the same
            }
        }
        return keys;
    }

    /**
     * Writes the job's state to the stores (their changelogs: what a restart restores): its record,
     * and the records of the workers and the chunks of its learned state and roster that changed.
     */
    private void store(JobRuntime runtime) {
        JobStateParts parts = runtime.partsToStore();
        String job = runtime.job();
        parts.workers().forEach((index, worker) -> jobWorkers.put(JobStateParts.partKey(job, index), worker));
        parts.learnedChunks().forEach((index, chunk) -> jobLearned.put(JobStateParts.partKey(job, index), chunk));
        parts.rosterChunks().forEach((index, chunk) -> jobLearned.put(JobStateParts.rosterKey(job, index), chunk));
        jobs.put(job, parts.job());
        runtime.eventTimeStored();
    }

    /** See {@link BrokerSettings#membershipClock}. */
    private long membershipClock(long nowMs) {
        return settings.membershipClock(nowMs, metrics.membershipDelay());
    }

    /**
     * Marks workers whose heartbeats stopped as inactive in every job, between rounds too (in
     * memory and the gauges: liveness is not stored), and allocates rounds that were waiting for a
     * live worker. Deletes the jobs past their retention first, and stores the time a job was last
     * heard from where the store's is a minute behind.
     */
    private void checkLiveness(long nowMs) {
        loadAllJobs();
        retireSilentJobs(nowMs);
        reportRunningJobs(nowMs);
        List<MembershipMirror.Member> members = membership.members();
        long clock = membershipClock(nowMs);
        for (JobRuntime runtime : runtimes.values()) {
            // a worker coming or going changes the job's view, not its stored state
            boolean viewChanged = runtime.syncMembers(members, clock);
            boolean unstored = runtime.eventTimeUnstored(EVENT_TIME_SLACK_MS);
            if (runtime.hasPendingOpen()) {
                List<TaskAssignment> assignments = runtime.allocatePending(nowMs);
                if (!assignments.isEmpty()) {
                    emit(assignments, nowMs);
                    allocated(runtime);
                    unstored = true;
                }
            }
            if (unstored) {
                store(runtime);
            }
            if (viewChanged || unstored) {
                metrics.jobUpdated(runtime);
            }
        }
    }

    /** Tells how many jobs of this partition run (had a round event within a minute). */
    private void reportRunningJobs(long nowMs) {
        long since = nowMs - RoundsPartitionLoad.RUNNING_WINDOW.toMillis();
        int running = (int)
                runtimes.values().stream().filter(r -> r.lastEventMs() >= since).count();
        metrics.roundsPartitionLoad().report(context.taskId().partition(), running, nowMs);
    }

    /**
     * Deletes every job without a round event (OPENED, CLOSED or OVERDUE) for the job retention,
     * from memory and the store (a tombstone in its changelog: compaction drops its state). Its
     * trainer finished or is gone; if it comes back, its next OPENED starts it afresh, and a CLOSED
     * is refused as of an unknown job.
     */
    private void retireSilentJobs(long nowMs) {
        long retentionMs = settings.jobRetention().toMillis();
        for (Iterator<JobRuntime> it = runtimes.values().iterator(); it.hasNext(); ) {
            JobRuntime runtime = it.next();
            long silentMs = nowMs - runtime.lastEventMs();
            if (silentMs >= retentionMs) {
                it.remove();
                delete(runtime.job());
                metrics.jobsLeft(Set.of(runtime.job()));
                metrics.count(BrokerCounter.JOBS_RETIRED);
                LOG.info(
                        "job {} deleted: no round event for {} s (last opened round {}, last closed {})",
                        runtime.job(),
                        silentMs / 1000,
                        runtime.lastOpenedRound(),
                        runtime.lastClosedRound());
            }
        }
    }

    /**
     * Once, at the first liveness check: every job of the store, also those without an event since
     * this task began (a round deferred before a restart waits for a live worker here). Each later
     * job comes with its first OPENED event, so the checks go over the jobs in memory, and do not
     * decode the whole store every second.
     */
    private void loadAllJobs() {
        if (allJobsLoaded) {
            return;
        }
        List<String> names;
        try (KeyValueIterator<String, JobState> it = jobs.all()) {
            names = keysOf(it); // an unreadable job is read again by name below, which deletes it
        }
        names.forEach(this::runtime);
        allJobsLoaded = true;
    }

    /** The task moves to another instance or stops: its jobs' gauges and recent rounds are no longer this one's. */
    @Override
    public void close() {
        metrics.jobsLeft(Set.copyOf(runtimes.keySet()));
        metrics.roundsPartitionLoad().forget(context.taskId().partition());
    }

    private void deadLetter(Record<byte[], byte[]> record, Refusal refusal, Throwable error) {
        deadLetters.send(context, record, refusal, error);
    }
}
