package io.ata.trainer;

import io.ata.schemas.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link TrainerHost}'s one reader of {@code allocations}, and the one thread that acts on its
 * jobs' round deadlines. A trainer alone watches its open round with a reader and a thread of its
 * own ({@link AssignmentWatch}) that polls the job's partition every few milliseconds: a thousand
 * jobs in a process were a thousand threads and some forty thousand fetches a second. The host
 * reads every partition once, hands each job its assignments ({@link JobWatch}), checks each job's
 * deadlines on the same thread, and answers the training loops' catch-up requests from its own
 * position.
 *
 * <p>It starts at the end of the topic. A job attaching first reads the assignments made before
 * it, from its look-back time up to the reader's position then, with a second consumer that all
 * jobs joining at a time share (the catch-up); what the reader reads for the job meanwhile is kept
 * and handed over, in order, once the job has caught up. Until then its catch-up requests wait,
 * so results wait for their assignments as with a watch of its own.
 *
 * <p>A record under the key of a job here goes to that job's watch; one under the key of a job of its
 * partition that is not here is skipped (another host's); one without such a key goes to every job
 * of the partition, each of which dead-letters it, as their own watches would. Partitions added to
 * the topic move some jobs to another partition, but the broker's producer learns of them only at
 * its next metadata refresh (every 5 min by default): for {@link #MOVED_GRACE_MS} after the reader
 * found them, a moved job's records are taken from either partition, a key of the partition under
 * the count before is no stranger there, and a moved job's catch-up requests wait for both.
 * An error is logged and reading goes on after a back-off; meanwhile the jobs' results are not held
 * for their assignments ({@link RoundAssignments#tasksReadable}), as with a watch of their own.
 */
final class SharedAllocationsReader implements Runnable {
    // the trainer's log, whichever of its parts writes: one logger to configure
    private static final Logger log = LoggerFactory.getLogger(Trainer.class);

    /** The longest poll while no job joins: the reader looks at the jobs' deadlines after each. */
    private static final Duration POLL = Duration.ofMillis(10);
    /** The catch-up consumer's poll while jobs join. */
    private static final Duration CATCH_UP_POLL = Duration.ofMillis(5);
    /**
     * The longest a job goes without its deadlines and catch-up requests looked at: bounds how late
     * a deadline learnt from the training loop meanwhile is noticed.
     */
    static final long MAX_CHECK_MS = 20;
    /** The wait while the topic has no partitions yet. */
    private static final long NO_TOPIC_WAIT_MS = 100;
    /**
     * How often the topic's partitions are looked up again (an operator may add some): as the
     * host's reader of {@code gradients}, whose interval both readers' metadata age follows
     * ({@link TrainerClients#hostWatcher}).
     */
    static final long PARTITIONS_CHECK_MS = SharedGradientsReader.PARTITIONS_CHECK_MS;
    /**
     * How long after partitions were added a moved job's records may still arrive on its partition
     * before: twice a producer's default metadata age, which bounds when the broker writes to the new.
     */
    static final long MOVED_GRACE_MS = 10 * 60_000;

    private final org.apache.kafka.clients.consumer.Consumer<byte[], byte[]> consumer;
    private final org.apache.kafka.clients.consumer.Consumer<byte[], byte[]> catchUpConsumer;
    private final String topic;
    private final long partitionsCheckMs;

    /** Jobs attached and not yet taken in by the reader's thread. */
    private final ConcurrentLinkedQueue<Job> attaching = new ConcurrentLinkedQueue<>();
    // The rest is the reader thread's only.
    /** Jobs being taken in: kept here until their look-ups succeeded, so that an error loses none. */
    private final List<Job> takingIn = new ArrayList<>();
    /** Jobs caught up: their records are handed over as read. */
    private final Map<String, Job> live = new HashMap<>();
    /** Jobs catching up: the records read for them meanwhile are kept. */
    private final Map<String, Job> joining = new HashMap<>();
    /** Jobs whose catch-up request waits for the reader to pass the end offsets asked. */
    private final List<Job> awaitingAnswer = new ArrayList<>();

    private int partitionCount;
    /** The partition count before partitions were last added (0: never). */
    private int partitionCountBefore;
    /** Until when a key of a partition under {@link #partitionCountBefore} is no stranger there (epoch ms). */
    private long movedGraceUntilMs;

    private long partitionsCheckedAtMs;
    private boolean catchUpSeekNeeded;
    private int failures;
    private boolean missingTopicLogged;
    private volatile boolean stopping;

    /**
     * @param consumer        read_committed, outside any group; closed when the reader stops
     * @param catchUpConsumer the same, for the jobs' catch-ups
     */
    SharedAllocationsReader(
            org.apache.kafka.clients.consumer.Consumer<byte[], byte[]> consumer,
            org.apache.kafka.clients.consumer.Consumer<byte[], byte[]> catchUpConsumer,
            String topic) {
        this(consumer, catchUpConsumer, topic, PARTITIONS_CHECK_MS);
    }

    /** @param partitionsCheckMs how often the topic's partitions are looked up again */
    SharedAllocationsReader(
            org.apache.kafka.clients.consumer.Consumer<byte[], byte[]> consumer,
            org.apache.kafka.clients.consumer.Consumer<byte[], byte[]> catchUpConsumer,
            String topic,
            long partitionsCheckMs) {
        this.consumer = consumer;
        this.catchUpConsumer = catchUpConsumer;
        this.topic = topic;
        this.partitionsCheckMs = partitionsCheckMs;
    }

    /**
     * Watches {@code watch}'s job from now on, its assignments read from {@code readFromMs} (epoch
     * ms), instead of any watch of the job before; returns at once (the reader takes it in).
     */
    RoundWatch attach(JobWatch watch, long readFromMs) {
        Job job = new Job(watch, readFromMs);
        attaching.add(job);
        if (stopping) {
            job.watch.assignments().tasksReadable(false); // nothing reads for it: results go unchecked
        }
        return job::stop;
    }

    /** Stops the reader's thread (it closes its consumers). */
    void stop() {
        stopping = true;
        consumer.wakeup();
        catchUpConsumer.wakeup();
    }

    /** Closes the consumers of a reader never run. */
    void closeUnstarted() {
        consumer.close();
        catchUpConsumer.close();
    }

    @Override
    public void run() {
        try {
            while (!stopping) {
                try {
                    if (partitionCount == 0) {
                        startAtEnd();
                    } else {
                        readOnce();
                    }
                    if (failures > 0) {
                        failures = 0;
                        everyJob(j -> j.watch.assignments().tasksReadable(true));
                        log.info("trainer host: reading {} again", topic);
                    }
                } catch (WakeupException e) {
                    // stop(): the loop's condition ends it
                } catch (RuntimeException e) {
                    if (stopping) {
                        return;
                    }
                    failed(e);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Error e) {
            log.error("trainer host: the watch of {} stopped; its jobs' results go unchecked", topic, e);
            throw e;
        } finally {
            stopping = true;
            everyJob(j -> j.watch.assignments().tasksReadable(false));
            closeQuietly(consumer);
            closeQuietly(catchUpConsumer);
        }
    }

    /** An error: results go unchecked until the reader reads again, after a back-off. */
    private void failed(RuntimeException e) throws InterruptedException {
        failures++;
        everyJob(j -> j.watch.assignments().tasksReadable(false)); // as a watch of their own does
        awaitingAnswer.forEach(j -> j.answerEnds = null);
        awaitingAnswer.clear();
        catchUpSeekNeeded = true;
        long backoff = TrainingLoop.backoffMs(failures + 1); // the trainer's, one step further on
        if (e instanceof AuthorizationException) {
            log.error(
                    "trainer host: may not read {} ({}): results are not checked against their assignments and"
                            + " no round is re-driven; grant READ on the topic. Again in {} ms",
                    topic,
                    e.toString(),
                    backoff);
        } else {
            log.warn("trainer host: reading {} failed ({}); again in {} ms", topic, e.toString(), backoff);
        }
        Thread.sleep(backoff);
    }

    /**
     * At start: every partition, from the end it has now (not a seek to the end, which resolves
     * only at the next poll: jobs attaching meanwhile would miss what is committed in between).
     */
    private void startAtEnd() throws InterruptedException {
        List<TopicPartition> partitions = PartitionLookups.of(consumer, topic);
        if (partitions.isEmpty()) {
            if (!missingTopicLogged) {
                log.info("trainer host: topic {} has no partitions yet; results go unchecked until it has", topic);
                missingTopicLogged = true;
            }
            everyJob(j -> j.watch.assignments().tasksReadable(false));
            Thread.sleep(NO_TOPIC_WAIT_MS);
            return;
        }
        consumer.assign(partitions);
        consumer.endOffsets(partitions).forEach(consumer::seek);
        partitionCount = partitions.size();
        partitionsCheckedAtMs = System.currentTimeMillis();
        log.info("trainer host: watching {} partitions of {} from their end", partitions.size(), topic);
    }

    private void readOnce() {
        takeInAttaching();
        dropStopped();
        checkPartitions();
        handOver(consumer.poll(joining.isEmpty() ? POLL : CATCH_UP_POLL));
        if (!joining.isEmpty()) {
            catchUp();
        }
        answerCatchUps();
        checkJobs();
    }

    /**
     * Takes in the jobs attached since the last time: each is handed the records read from the
     * reader's position on, and catches up from its look-back time to that position.
     */
    private void takeInAttaching() {
        for (Job job = attaching.poll(); job != null; job = attaching.poll()) {
            takingIn.add(job);
        }
        takingIn.removeIf(Job::isStopped);
        if (takingIn.isEmpty()) {
            return;
        }
        Map<TopicPartition, Long> since = new HashMap<>();
        for (Job job : takingIn) { // a job's fields are read only once it is in: a failed try sets them again
            job.partition = partitionOf(job.name());
            job.attachedAt = consumer.position(job.partition);
            since.merge(job.partition, job.readFromMs, Math::min); // one look-up per partition: earlier is harmless
        }
        Map<TopicPartition, OffsetAndTimestamp> found = catchUpConsumer.offsetsForTimes(since);
        // every look-up succeeded: from here on nothing throws before the jobs are in
        for (Job job : takingIn) {
            Job before = live.remove(job.name());
            if (before == null) {
                before = joining.remove(job.name());
            }
            if (before != null) {
                awaitingAnswer.remove(before);
                log.info("trainer host: job {} attached again; the watch before stops", job.name());
            }
            job.answerEnds = null;
            job.kept.clear();
            OffsetAndTimestamp from = found.get(job.partition);
            job.watch.assignments().tasksReadable(true);
            if (from == null || from.offset() >= job.attachedAt) {
                live.put(job.name(), job); // nothing before it to read
            } else {
                job.next = from.offset();
                job.caughtUpRecords = 0;
                job.joinedAtNanos = System.nanoTime();
                joining.put(job.name(), job);
                catchUpSeekNeeded = true;
            }
        }
        takingIn.clear();
    }

    private void dropStopped() {
        live.values().removeIf(Job::isStopped);
        awaitingAnswer.removeIf(Job::isStopped);
        if (joining.values().removeIf(Job::isStopped)) {
            catchUpSeekNeeded = true;
        }
    }

    /** Every {@link #partitionsCheckMs}: partitions added are read from a little before they were found. */
    private void checkPartitions() {
        long now = System.currentTimeMillis();
        if (now - partitionsCheckedAtMs < partitionsCheckMs) {
            return;
        }
        partitionsCheckedAtMs = now;
        List<TopicPartition> all = PartitionLookups.of(consumer, topic);
        if (all.size() <= partitionCount) {
            return;
        }
        List<TopicPartition> added =
                all.stream().filter(tp -> !consumer.assignment().contains(tp)).toList();
        Map<TopicPartition, Long> ends = consumer.endOffsets(added);
        Map<TopicPartition, Long> since = new HashMap<>();
        added.forEach(tp -> since.put(tp, now - 2 * partitionsCheckMs));
        Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(since);
        consumer.assign(all); // keeps the positions of the partitions read before
        for (TopicPartition tp : added) {
            OffsetAndTimestamp at = found.get(tp);
            consumer.seek(tp, at != null ? at.offset() : ends.get(tp));
        }
        partitionCountBefore = partitionCount;
        movedGraceUntilMs = now + MOVED_GRACE_MS;
        partitionCount = all.size();
        for (Job job : live.values()) {
            TopicPartition moved = partitionOf(job.name());
            if (!moved.equals(job.partition)) {
                job.before = job.partition; // the broker may write there until it learns of the new count
                job.partition = moved;
                job.answerEnds = null; // asked of the old partition only: asked again at the job's next check
                awaitingAnswer.remove(job);
            }
        }
        // a job catching up on a partition its records no longer go to starts over on its new one
        joining.values().removeIf(job -> {
            if (partitionOf(job.name()).equals(job.partition)) {
                return false;
            }
            takingIn.add(job);
            return true;
        });
        catchUpSeekNeeded = true;
        log.info("trainer host: {} partitions added to {}", added.size(), topic);
    }

    /**
     * Hands one poll's records over: under the key of a job here, to that job, whatever the
     * partition (a moved job's, {@link #MOVED_GRACE_MS}); under the key of another job of the
     * partition, to nobody; otherwise to every job of the partition, each of which dead-letters it.
     */
    private void handOver(Iterable<ConsumerRecord<byte[], byte[]>> records) {
        for (ConsumerRecord<byte[], byte[]> r : records) {
            String name = r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8);
            Job named = name == null ? null : live.get(name);
            if (named != null) {
                named.act(w -> w.read(r, partitionCount));
                continue;
            }
            named = name == null ? null : joining.get(name);
            if (named != null) {
                named.kept.add(r);
                continue;
            }
            if (isKeyOfItsPartition(r)) {
                continue; // a job that is not here: its own trainer judges it
            }
            live.values().stream()
                    .filter(job -> job.partition.partition() == r.partition())
                    .forEach(job -> job.act(w -> w.read(r, partitionCount)));
            joining.values().stream()
                    .filter(job -> job.partition.partition() == r.partition())
                    .forEach(job -> job.kept.add(r));
        }
    }

    /**
     * Reads, for the joining jobs, the records before each one's attach position, then hands it
     * what was kept for it meanwhile: it is live.
     */
    private void catchUp() {
        if (catchUpSeekNeeded) {
            Map<TopicPartition, Long> starts = new HashMap<>();
            joining.values().forEach(job -> starts.merge(job.partition, job.next, Math::min));
            catchUpConsumer.assign(starts.keySet());
            starts.forEach(catchUpConsumer::seek);
            catchUpSeekNeeded = false;
        }
        ConsumerRecords<byte[], byte[]> records = catchUpConsumer.poll(CATCH_UP_POLL);
        // by partition, once a poll: a thousand jobs joining at once, each record was checked against all
        Map<Integer, List<Job>> byPartition = new HashMap<>();
        if (!records.isEmpty()) {
            joining.values()
                    .forEach(job -> byPartition
                            .computeIfAbsent(job.partition.partition(), p -> new ArrayList<>())
                            .add(job));
        }
        for (ConsumerRecord<byte[], byte[]> r : records) {
            for (Job job : byPartition.getOrDefault(r.partition(), List.of())) {
                if (r.offset() >= job.next && r.offset() < job.attachedAt) {
                    job.act(w -> w.read(r, partitionCount));
                    job.next = r.offset() + 1;
                    job.caughtUpRecords++;
                }
            }
        }
        List<Job> done = joining.values().stream()
                .filter(job -> catchUpConsumer.position(job.partition) >= job.attachedAt)
                .toList();
        for (Job job : done) {
            joining.remove(job.name());
            live.put(job.name(), job);
            job.kept.forEach(r -> job.act(w -> w.read(r, partitionCount)));
            job.kept.clear();
            log.info(
                    "job {}: the watch caught up: {} records of {} read again in {} ms",
                    job.name(),
                    job.caughtUpRecords,
                    job.partition,
                    (System.nanoTime() - job.joinedAtNanos) / 1_000_000);
        }
        if (!done.isEmpty()) {
            catchUpSeekNeeded = true;
            if (joining.isEmpty()) {
                catchUpConsumer.assign(List.of());
            }
        }
    }

    /** Whether the record's key is a job of its partition, now or, within the grace after a growth, before. */
    private boolean isKeyOfItsPartition(ConsumerRecord<byte[], byte[]> r) {
        return JobWatch.isKeyOfItsPartition(r, partitionCount)
                || (inMovedGrace() && JobWatch.isKeyOfItsPartition(r, partitionCountBefore));
    }

    private boolean inMovedGrace() {
        return partitionCountBefore > 0 && System.currentTimeMillis() < movedGraceUntilMs;
    }

    /** Tells each job awaiting it that the reader read every assignment committed before its request. */
    private void answerCatchUps() {
        awaitingAnswer.removeIf(job -> {
            for (Map.Entry<TopicPartition, Long> end : job.answerEnds.entrySet()) {
                if (consumer.position(end.getKey()) < end.getValue()) {
                    return false;
                }
            }
            job.watch.assignments().caughtUp(job.answerAsOfNanos);
            job.answerEnds = null;
            return true;
        });
    }

    /**
     * The live jobs' deadlines due, and their catch-up requests: for those, the end offsets now
     * (one look-up for all); reading up to them answers each.
     */
    private void checkJobs() {
        long now = System.currentTimeMillis();
        List<Job> wanting = new ArrayList<>();
        for (Job job : live.values()) {
            if (now < job.nextCheckMs) {
                continue;
            }
            job.act(w -> {
                w.actOnDeadlines();
                if (job.answerEnds == null && w.assignments().catchUpWanted().isPresent()) {
                    wanting.add(job);
                }
                job.nextCheckMs = now + Math.max(1, Math.min(MAX_CHECK_MS, w.untilNextDueMs()));
            });
        }
        if (wanting.isEmpty()) {
            return;
        }
        long asOfNanos = System.nanoTime(); // after the times wanted: the ends asked now cover them
        boolean grace = inMovedGrace();
        Map<TopicPartition, Long> ends = consumer.endOffsets(wanting.stream()
                .flatMap(job -> job.partitionsWritten(grace).stream())
                .distinct()
                .toList());
        for (Job job : wanting) {
            job.answerAsOfNanos = asOfNanos;
            job.answerEnds = new HashMap<>();
            for (TopicPartition tp : job.partitionsWritten(grace)) {
                job.answerEnds.put(tp, ends.getOrDefault(tp, 0L));
            }
            awaitingAnswer.add(job);
        }
        answerCatchUps();
    }

    /** Every job: live, joining, being taken in or waiting to be. */
    private void everyJob(Consumer<Job> action) {
        live.values().forEach(action);
        joining.values().forEach(action);
        takingIn.forEach(action);
        attaching.forEach(action);
    }

    private TopicPartition partitionOf(String job) {
        return new TopicPartition(topic, Topics.partitionOfJob(job, partitionCount));
    }

    private static void closeQuietly(org.apache.kafka.clients.consumer.Consumer<byte[], byte[]> c) {
        try {
            c.close();
        } catch (RuntimeException e) {
            log.debug("closing the trainer host's allocations reader", e);
        }
    }

    /** A job as the reader watches it. Its fields but {@code stopped} are the reader thread's. */
    private static final class Job {
        final JobWatch watch;
        final long readFromMs;
        /** The job's partition of the topic. */
        TopicPartition partition;
        /** Its partition before partitions were added, if that moved it (null: none). */
        TopicPartition before;
        /** The reader's position when it took the job in: the catch-up reads up to it. */
        long attachedAt;
        /** The next offset the catch-up hands the job. */
        long next;
        /** Records the reader read for the job while it caught up. */
        final List<ConsumerRecord<byte[], byte[]>> kept = new ArrayList<>();

        long joinedAtNanos;
        long caughtUpRecords;
        /** When its deadlines and catch-up requests are looked at next (epoch ms). */
        long nextCheckMs;
        /** The catch-up request under way: the time it answers for. */
        long answerAsOfNanos;
        /** The catch-up request under way: the offsets the reader must reach, by partition; null: none. */
        Map<TopicPartition, Long> answerEnds;

        private boolean stopped;

        Job(JobWatch watch, long readFromMs) {
            this.watch = watch;
            this.readFromMs = readFromMs;
        }

        String name() {
            return watch.job();
        }

        /** The partitions the broker may write the job's records to: its own, and in a grace, its one before. */
        List<TopicPartition> partitionsWritten(boolean grace) {
            return grace && before != null ? List.of(partition, before) : List.of(partition);
        }

        /** Stops the watch: once this returns, the reader hands the job nothing and acts on none of its deadlines. */
        synchronized void stop() {
            stopped = true;
        }

        synchronized boolean isStopped() {
            return stopped;
        }

        /**
         * Runs {@code action} on the job's watch unless stopped, under the lock {@link #stop} takes.
         * A failure (a dead letter or OVERDUE event that cannot be serialized or sent) is the job's
         * alone: logged, and the reader goes on with the other jobs and records.
         */
        synchronized void act(Consumer<JobWatch> action) {
            if (stopped) {
                return;
            }
            try {
                action.accept(watch);
            } catch (RuntimeException e) {
                log.warn("job {}: the watch of its round failed on one action; going on", name(), e);
            }
        }
    }
}
