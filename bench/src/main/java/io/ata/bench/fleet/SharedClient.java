package io.ata.bench.fleet;

import io.ata.platform.Threads;
import io.ata.platform.kafka.KafkaErrors;
import io.ata.schemas.DeadLetter;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TaskResult;
import io.ata.schemas.TaskTiming;
import io.ata.schemas.TimingStatus;
import io.ata.schemas.decoding.DeadLetters;
import io.ata.schemas.decoding.Decoded;
import io.ata.schemas.decoding.RecordDecoder;
import io.ata.workeragent.AgentMetrics;
import io.ata.workeragent.AgentRestarts;
import io.ata.workeragent.AssignmentRunner;
import io.ata.workeragent.TransactionPublisher;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pair of Kafka clients serving several {@link VirtualAgent}s, as far as Kafka allows sharing:
 * one member of the agents' consumer group on {@code tasks} (static, cooperative-sticky,
 * read_committed, offsets committed only in transactions) whose partitions are split among its
 * agents, each announcing its share in its heartbeats; and one transactional producer, whose
 * transactions carry the results, timings, dead letters and consumed offsets of all of them.
 *
 * <p>Threads: the poll thread owns the consumer (and decodes each assignment as it arrives: the
 * listener's "received"); the lane, one thread, runs the agents (their queues, their
 * task timers, joins and leaves); the committer hands everything that finished while the previous
 * commit was in flight to the real agent's {@link TransactionPublisher} in one transaction, the
 * grouping a real agent does. An agent's next assignment starts once the offset of its previous
 * one is committed, as in a real agent.
 *
 * <p>An assignment whose model version has not come (pipelined allocation sends round
 * {@code k+1}'s as round {@code k} opens) is parked, as a real agent parks it: its agent goes on
 * with the records behind it (a backup copy round {@code k} needs, say), and it runs as soon as its
 * version comes, looked for every few milliseconds, or is skipped if the model passed it. No offset
 * is committed past it meanwhile ({@link ParkedWork}). More than
 * {@link AssignmentRunner#PARK_AHEAD} versions ahead, or of a job without a model, it waits at
 * most the fleet's model wait, then is dead-lettered.
 *
 * <p>A failed transaction (after a rebalance, say) loses what it held, as in a real agent: the
 * poll thread rewinds every partition to its committed offset and the lane forgets the queued
 * and parked work, so the assignments are run again. A producer that lost its epoch (or that Kafka
 * left unusable) is replaced by a new one first, as a real agent starts over ({@link #startOver}).
 */
final class SharedClient implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SharedClient.class);
    private static final DeadLetters DEAD_LETTERS = new DeadLetters(DeadLetters.WORKER_AGENT);
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);
    /** How often the lane looks for rounds closed under running tasks and for joins and leaves. */
    private static final long TICK_MS = 50;
    /** How soon a parked assignment (its model version has not arrived) is looked at again. */
    private static final long MODEL_RETRY_MS = 5;
    /** The pause before reading the committed offsets again, after a failed read. */
    private static final long REWIND_RETRY_MS = 1_000;

    /**
     * Records to publish and, for an assignment's last output, the offset past it and what to run
     * once committed; made while the lane had forgotten its work {@code forgets} times.
     */
    private record Output(
            List<ProducerRecord<String, byte[]>> records,
            TopicPartition partition,
            long offset,
            Runnable committed,
            long forgets) {}

    private final String name;
    private final VirtualFleet fleet;
    private final List<VirtualAgent> agents;
    private final KafkaConsumer<byte[], byte[]> consumer;
    /** The consumer's group and instance id: unique to it across groups. */
    private final String memberName;
    // replaced by the committer thread only, when the client starts over (startOver)
    private volatile KafkaProducer<String, byte[]> producer;
    private volatile TransactionPublisher publisher;
    private final AgentRestarts restarts = new AgentRestarts();
    private final AgentMetrics metrics;
    private final RecordDecoder<TaskAssignment> decoder;
    private final ScheduledExecutorService lane;
    private final Thread pollThread;
    private final Thread committerThread;

    // poll thread only
    private final Set<Integer> owned = new TreeSet<>();
    private boolean subscribed;

    private volatile ConsumerGroupMetadata group;
    private volatile boolean rewind;
    private volatile boolean wantsMembership = true;
    private volatile boolean stopping;
    private volatile Throwable failure;

    // lane only
    /** Per partition of this client, the agents it is dealt to: one, or a group sharing it. */
    private final Map<Integer, List<VirtualAgent>> partitionOwners = new HashMap<>();

    private long roundSeen;
    private List<Integer> ownedNow = List.of();
    private final ParkedWork parked = new ParkedWork();
    private boolean parkedCheckScheduled;

    /**
     * How often the lane forgot its work after a failed transaction. The committer drops every
     * output made before the forget a failure asks for: the lane goes on with an assignment whose
     * earlier results the failed transaction lost until it learns of the failure, and committing
     * its later results with the assignment's offset would lose the earlier ones for good.
     */
    private final AtomicLong forgets = new AtomicLong();

    private final Object pendingLock = new Object();
    private List<Output> pending = new ArrayList<>(); // guarded by pendingLock

    SharedClient(String name, VirtualFleet fleet, List<VirtualAgent> agents) {
        this.name = name;
        this.fleet = fleet;
        this.agents = List.copyOf(agents);
        Map<String, Object> consumerConfig = fleet.taskConsumerConfig(name);
        this.consumer = new KafkaConsumer<>(consumerConfig, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        this.memberName = consumerConfig.get(ConsumerConfig.GROUP_ID_CONFIG) + "/"
                + consumerConfig.getOrDefault(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "virtual-" + name);
        // named from the first heartbeat on: before its partitions come, a worker naming no reader
        // counts as one of its own, and the broker would grow the topic for the fleet's idle workers
        nameReaders(groupsOf(this.agents));
        this.metrics = new AgentMetrics(fleet.meters(), name);
        newProducer();
        this.decoder = new RecordDecoder<>(fleet.assignmentDeserializer(), "task assignment");
        this.lane = Threads.daemonScheduler("ata-virtual-" + name + "-lane");
        this.pollThread = Threads.daemon(this::pollUntilStopped, "ata-virtual-" + name + "-poll");
        this.committerThread = Threads.daemon(this::commitUntilStopped, "ata-virtual-" + name + "-committer");
    }

    /** A transactional producer, and the publisher that commits through it. */
    private void newProducer() {
        producer = new KafkaProducer<>(
                fleet.resultsProducerConfig(name), new StringSerializer(), new ByteArraySerializer());
        publisher = new TransactionPublisher(
                producer,
                "ata-virtual-" + name + "-commit",
                TransactionPublisher.DEFAULT_MAX_QUEUED_BYTES,
                TransactionPublisher.DEFAULT_MAX_TRANSACTION_BYTES,
                metrics);
    }

    void start() {
        producer.initTransactions();
        lane.scheduleWithFixedDelay(this::tick, TICK_MS, TICK_MS, TimeUnit.MILLISECONDS);
        pollThread.start();
        committerThread.start();
    }

    /** The client's name: its transactional id's and its Kafka clients' ids' stem. */
    String name() {
        return name;
    }

    List<VirtualAgent> agents() {
        return agents;
    }

    /** Why the client stopped on its own (fenced, say), if it did. */
    Optional<Throwable> failure() {
        return Optional.ofNullable(failure);
    }

    AgentMetrics metrics() {
        return metrics;
    }

    // ---- poll thread -------------------------------------------------------------------------

    private void pollUntilStopped() {
        try {
            while (!stopping) {
                if (wantsMembership != subscribed) {
                    changeMembership();
                }
                if (!subscribed) {
                    Thread.sleep(POLL_TIMEOUT.toMillis());
                    continue;
                }
                if (rewind && !rewindToCommitted()) {
                    Thread.sleep(REWIND_RETRY_MS);
                    continue;
                }
                ConsumerRecords<byte[], byte[]> records = consumer.poll(POLL_TIMEOUT);
                group = consumer.groupMetadata();
                for (ConsumerRecord<byte[], byte[]> record : records) {
                    receive(record);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            if (!stopping) {
                failure = e;
                log.error("virtual client {} failed", name, e);
            }
        }
    }

    private void changeMembership() {
        if (wantsMembership) {
            consumer.subscribe(List.of(fleet.topics().tasks().name()), new Rebalances());
            subscribed = true;
        } else {
            consumer.unsubscribe(); // every agent left: the group gives the partitions to other members
            subscribed = false;
            owned.clear();
            List<Integer> none = List.of();
            lane.execute(() -> split(none));
        }
    }

    /** Decodes an assignment (the moment it reached its agent) and hands it to the lane. */
    private void receive(ConsumerRecord<byte[], byte[]> record) {
        long now = System.nanoTime();
        Decoded<TaskAssignment> decoded = decoder.decode(record.topic(), record.value());
        TaskAssignment assignment = null;
        String problem;
        if (decoded instanceof Decoded.Undecodable<TaskAssignment> bad) {
            problem = bad.reason();
        } else {
            assignment = ((Decoded.Valid<TaskAssignment>) decoded).record();
            problem = AssignmentRunner.problem(assignment);
        }
        if (problem != null) {
            String reason = problem;
            lane.execute(() -> deadLetter(record, reason));
            return;
        }
        fleet.listener().received(assignment, now);
        TaskAssignment valid = assignment;
        lane.execute(() -> accept(new VirtualAgent.Work(record, valid)));
    }

    /**
     * After a failed transaction: every partition back to its committed offset, the lane's work
     * forgotten. False if the committed offsets could not be read (a loaded cluster, the moment a
     * transaction failed): it is asked again after a pause, and until then the committer publishes
     * nothing of the work made before.
     */
    private boolean rewindToCommitted() {
        Set<TopicPartition> assignment = consumer.assignment();
        Map<TopicPartition, OffsetAndMetadata> committed;
        try {
            committed = consumer.committed(assignment);
        } catch (KafkaException e) {
            if (KafkaErrors.isFatal(e)) {
                throw e;
            }
            log.warn(
                    "virtual client {}: reading its committed offsets failed, again in {} ms: {}",
                    name,
                    REWIND_RETRY_MS,
                    e.toString());
            return false;
        }
        rewind = false;
        for (TopicPartition p : assignment) {
            OffsetAndMetadata at = committed.get(p);
            if (at == null) {
                consumer.seekToBeginning(List.of(p));
            } else {
                consumer.seek(p, at.offset());
            }
        }
        lane.execute(this::forgetWork);
        return true;
    }

    /** Keeps the set of owned partitions and tells the lane to split them again. */
    private final class Rebalances implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            partitions.forEach(p -> owned.remove(p.partition()));
            resplit();
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            partitions.forEach(p -> owned.add(p.partition()));
            resplit();
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            onPartitionsRevoked(partitions);
        }

        private void resplit() {
            if (stopping) {
                return; // closing: the lane is gone, and nobody is told of partitions any more
            }
            List<Integer> now = List.copyOf(owned);
            lane.execute(() -> split(now));
        }
    }

    // ---- lane ----------------------------------------------------------------------------------

    /**
     * Deals {@code partitions} out among the present agents, round robin, and announces each
     * agent's share at once (as a real agent heartbeats after a rebalance). With agents sharing
     * partitions, the present agents are taken in groups of that many, and each partition is
     * dealt to a group: every agent of it announces the partition. Work queued for a partition no
     * longer this client's is dropped: its next owner reads it again.
     */
    private void split(List<Integer> partitions) {
        ownedNow = partitions;
        List<List<VirtualAgent>> groups =
                groupsOf(agents.stream().filter(a -> a.present).toList());
        Map<VirtualAgent, List<Integer>> shares = new HashMap<>();
        partitionOwners.clear();
        for (int i = 0; i < partitions.size() && !groups.isEmpty(); i++) {
            List<VirtualAgent> group = groups.get(i % groups.size());
            for (VirtualAgent a : group) {
                shares.computeIfAbsent(a, k -> new ArrayList<>()).add(partitions.get(i));
            }
            partitionOwners.put(partitions.get(i), group);
        }
        nameReaders(groups);
        Set<Integer> kept = new HashSet<>(partitions);
        parked.keepOnly(kept);
        for (VirtualAgent a : agents) {
            a.partitions = List.copyOf(shares.getOrDefault(a, List.of()));
            a.queue.removeIf(w -> w != a.running && !kept.contains(w.source.partition()));
            fleet.heartbeats().send(a);
        }
        // work of a partition that moved to another agent of this client goes with it
        for (VirtualAgent a : agents) {
            for (Iterator<VirtualAgent.Work> it = a.queue.iterator(); it.hasNext(); ) {
                VirtualAgent.Work w = it.next();
                VirtualAgent owner = ownerOf(w);
                if (owner != a && owner != null && w != a.running) {
                    it.remove();
                    owner.queue.add(w);
                }
            }
        }
        agents.forEach(this::runNext);
    }

    private void accept(VirtualAgent.Work work) {
        noteRound(work.assignment.getRound());
        enqueue(work);
    }

    /** Queues {@code work} at the agent of this client that runs it, if its partition is still ours. */
    private void enqueue(VirtualAgent.Work work) {
        VirtualAgent agent = ownerOf(work);
        if (agent == null) {
            return; // the partition is no longer ours: its next owner reads the record again
        }
        if (fleet.settings().sharesPartitions()) {
            // agents sharing a partition finish its records out of order: none is committed past
            // (every record, whatever its group's size now: a later split may share its partition)
            parked.hold(work);
        }
        agent.queue.add(work);
        runNext(agent);
    }

    /** {@code agents} in the groups that share partitions: consecutive runs of agents per partition. */
    private List<List<VirtualAgent>> groupsOf(List<VirtualAgent> agents) {
        int perPartition = fleet.settings().agentsPerPartition();
        List<List<VirtualAgent>> groups = new ArrayList<>();
        for (int from = 0; from < agents.size(); from += perPartition) {
            groups.add(agents.subList(from, Math.min(agents.size(), from + perPartition)));
        }
        return groups;
    }

    /**
     * Names each group's reader for the broker: a group sharing partitions is one reader of them,
     * as a multi-device agent's workers are, named uniquely across groups and clients; in a fleet
     * that shares none, every agent is a reader of its own and names none.
     */
    private void nameReaders(List<List<VirtualAgent>> groups) {
        for (int g = 0; g < groups.size(); g++) {
            String reader = fleet.settings().sharesPartitions() ? memberName + "/" + g : "";
            groups.get(g).forEach(a -> a.taskConsumer = reader);
        }
    }

    /**
     * The agent of this client that runs {@code work}: of its partition's agents, the one it was
     * planned for, else the first (after a rebalance another worker may run it); null if the
     * partition is no longer this client's.
     */
    private VirtualAgent ownerOf(VirtualAgent.Work work) {
        List<VirtualAgent> owners = partitionOwners.get(work.source.partition());
        if (owners == null) {
            return null;
        }
        if (work.assignment != null) {
            for (VirtualAgent a : owners) {
                if (a.workerId.equals(work.assignment.getWorkerId())) {
                    return a;
                }
            }
        }
        return owners.get(0);
    }

    /**
     * Runs the agent's next task, if it is idle and has work: skips closed rounds, parks an
     * assignment whose version has not come and goes on (as a real agent), dead-letters one that
     * is {@link #overdue}.
     */
    private void runNext(VirtualAgent agent) {
        while (agent.idle() && !agent.queue.isEmpty()) {
            VirtualAgent.Work work = agent.queue.peek();
            if (work.refusal != null) {
                agent.queue.poll();
                refuse(agent, work, work.refusal);
                return;
            }
            TaskAssignment a = work.assignment;
            Optional<ModelVersion> model = fleet.models().latest(a.getJob());
            if (model.isPresent() && model.get().getVersion() > a.getModelVersion()) {
                // the round closed: the rest of the assignment is not run, and it is done
                agent.queue.poll();
                fleet.countsForUpdate().staleSkipped.incrementAndGet();
                finish(agent, work, List.of());
                return;
            }
            if (model.isEmpty() || model.get().getVersion() < a.getModelVersion()) {
                agent.queue.poll();
                long newest = model.map(ModelVersion::getVersion).orElse(-1L);
                Duration waited = work.waited(System.nanoTime());
                if (overdue(work, newest, waited)) {
                    refuse(agent, work, overdueReason(work, newest, waited));
                    return;
                }
                // held until its version comes, and the records behind it run meanwhile
                if (model.isEmpty()) {
                    fleet.models().recall(a.getJob()); // a job back after its model was forgotten
                }
                park(work);
                continue;
            }
            double ms = agent.drawMs(a.getRound(), fleet.timeScale());
            agent.running = work;
            agent.taskStartNanos = System.nanoTime();
            if (work.nextTask == 0) {
                fleet.listener().started(a, agent.taskStartNanos);
            }
            agent.taskStartMs = System.currentTimeMillis();
            if (ms <= 0) {
                complete(agent, model.get());
            } else {
                ModelVersion on = model.get();
                agent.timer = lane.schedule(() -> complete(agent, on), Math.round(ms * 1000), TimeUnit.MICROSECONDS);
                return;
            }
        }
    }

    /**
     * Whether work whose version has not come has waited for it as long as it may, its job's
     * newest version being {@code newest} (-1: none): a version or two ahead
     * ({@link AssignmentRunner#parkable(long, long)}), until its job looks stopped
     * ({@link AssignmentRunner#stalled}); otherwise the fleet's model wait.
     */
    private boolean overdue(VirtualAgent.Work work, long newest, Duration waited) {
        if (fleet.models().readingAgain(work.assignment.getJob())) {
            return false; // as the agents: a read again has a time limit of its own
        }
        if (parkable(work, newest)) {
            return waited.compareTo(fleet.stalledJobWait()) >= 0 // the model cache's lock only once it may be
                    && AssignmentRunner.stalled(
                            waited, fleet.models().quietFor(work.assignment.getJob()), fleet.stalledJobWait());
        }
        return waited.compareTo(fleet.modelWait()) >= 0;
    }

    private static boolean parkable(VirtualAgent.Work work, long newest) {
        return newest >= 0 && AssignmentRunner.parkable(work.assignment.getModelVersion(), newest);
    }

    /** Why {@link #overdue} work is dead-lettered: the real agent's words. */
    private String overdueReason(VirtualAgent.Work work, long newest, Duration waited) {
        TaskAssignment a = work.assignment;
        if (parkable(work, newest)) {
            return AssignmentRunner.stalledReason(
                    a, newest, waited, fleet.models().quietFor(a.getJob()));
        }
        return "job " + a.getJob() + " round " + a.getRound() + ": model version " + a.getModelVersion()
                + " did not arrive within " + fleet.modelWait();
    }

    private void park(VirtualAgent.Work work) {
        if (work.parkedNanos < 0) {
            work.parkedNanos = System.nanoTime();
        }
        parked.park(work);
        fleet.countsForUpdate().parked.incrementAndGet();
        scheduleParkedCheck();
    }

    private void scheduleParkedCheck() {
        if (!parkedCheckScheduled) {
            parkedCheckScheduled = true;
            lane.schedule(this::runParked, MODEL_RETRY_MS, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Hands every parked assignment whose version has come (or been passed), or that is
     * {@link #overdue} (to be dead-lettered), to its partition's agent, to handle next, once its
     * running assignment is done; looks again soon while some stay.
     */
    private void runParked() {
        parkedCheckScheduled = false;
        Map<String, Long> newest = new HashMap<>(); // one look at the model cache per job
        List<VirtualAgent.Work> ready = parked.release(w -> {
            long version = newestVersion(w.assignment.getJob(), newest);
            return partitionOwners.containsKey(w.source.partition())
                    && (version >= w.assignment.getModelVersion() || overdue(w, version, w.waited(System.nanoTime())));
        });
        Set<VirtualAgent> woken = new HashSet<>();
        for (VirtualAgent.Work w : ready) {
            VirtualAgent owner = ownerOf(w);
            owner.putNext(w);
            woken.add(owner);
        }
        woken.forEach(this::runNext);
        if (parked.anyParked()) {
            scheduleParkedCheck();
        }
    }

    /** The job's newest model version (-1: none yet), looked up once per job in {@code seen}. */
    private long newestVersion(String job, Map<String, Long> seen) {
        return seen.computeIfAbsent(
                job, j -> fleet.models().latest(j).map(ModelVersion::getVersion).orElse(-1L));
    }

    /** The running task finished: its result and timing go out; after the assignment's last, its offset too. */
    private void complete(VirtualAgent agent, ModelVersion model) {
        VirtualAgent.Work work = agent.running;
        if (work == null) {
            return;
        }
        agent.running = null;
        agent.timer = null;
        TaskAssignment a = work.assignment;
        String taskId = a.getTaskIds().get(work.nextTask++);
        double computeMs = (System.nanoTime() - agent.taskStartNanos) / 1e6;
        TaskResult result = resultOf(agent, a, taskId, computeMs)
                .setGradient(ByteBuffer.wrap(fleet.gradientOf(model)))
                .setEncoding(io.ata.schemas.TensorEncoding.FLOAT64_LE)
                .setLoss(0)
                .setSamples(1)
                .build();
        List<ProducerRecord<String, byte[]>> records =
                taskRecords(result, TimingStatus.COMPLETED, agent.taskStartMs, work.source.partition());
        agent.results.incrementAndGet();
        fleet.countsForUpdate().tasksCompleted.incrementAndGet();
        if (work.nextTask < a.getTaskIds().size()) {
            publish(records, null, -1, null);
            runNext(agent);
        } else {
            agent.queue.poll();
            finish(agent, work, records);
        }
    }

    /** Looks for tasks running under a round that has closed (cancelled, as a real agent's) and for joins and leaves. */
    private void tick() {
        try {
            for (VirtualAgent agent : agents) {
                VirtualAgent.Work work = agent.running;
                if (work == null) {
                    continue;
                }
                TaskAssignment a = work.assignment;
                Optional<ModelVersion> model = fleet.models().latest(a.getJob());
                if (model.isPresent() && model.get().getVersion() > a.getModelVersion()) {
                    cancel(agent, work);
                }
            }
            noteRound(fleet.roundSeen());
        } catch (RuntimeException e) {
            log.warn("virtual client {}: {}", name, e.toString());
        }
    }

    /** The round closed while the task ran: a CANCELLED result without gradient and the time worked; the assignment is done. */
    private void cancel(VirtualAgent agent, VirtualAgent.Work work) {
        agent.timer.cancel(false);
        agent.timer = null;
        agent.running = null;
        TaskAssignment a = work.assignment;
        String taskId = a.getTaskIds().get(work.nextTask);
        double computeMs = (System.nanoTime() - agent.taskStartNanos) / 1e6;
        TaskResult cancelled = resultOf(agent, a, taskId, computeMs)
                .setGradient(ByteBuffer.allocate(0))
                .setSamples(0)
                .setStatus(TimingStatus.CANCELLED)
                .build();
        agent.results.incrementAndGet();
        fleet.countsForUpdate().tasksCancelled.incrementAndGet();
        agent.queue.poll();
        finish(agent, work, taskRecords(cancelled, TimingStatus.CANCELLED, agent.taskStartMs, work.source.partition()));
    }

    /**
     * Publishes the assignment's last records with its partition's offset (past it, unless an older
     * record there is parked); the agent runs on once they are committed.
     */
    private void finish(VirtualAgent agent, VirtualAgent.Work work, List<ProducerRecord<String, byte[]>> records) {
        agent.awaitingCommit = true;
        TopicPartition partition = new TopicPartition(work.source.topic(), work.source.partition());
        long commitAt = parked.done(work.source.partition(), work.source.offset());
        publish(records, partition, commitAt, () -> {
            agent.awaitingCommit = false;
            runNext(agent);
        });
    }

    /** A record that is no assignment: dead-lettered in its turn, so its partition's offsets stay in order. */
    private void deadLetter(ConsumerRecord<byte[], byte[]> record, String reason) {
        enqueue(new VirtualAgent.Work(record, reason));
    }

    /**
     * Joins and leaves of the agents' schedules, by the newest round the fleet has seen: an agent
     * joins after its {@code join_after_round} and leaves (LEAVING, its partitions dealt to the
     * others) after its {@code leave_after_round}.
     */
    private void noteRound(long round) {
        fleet.sawRound(round);
        if (round <= roundSeen) {
            return;
        }
        roundSeen = round;
        boolean changed = false;
        for (VirtualAgent a : agents) {
            if (a.schedule == null) {
                continue;
            }
            if (a.present && round > a.schedule.leaveAfterRound()) {
                a.present = false;
                a.left = true;
                changed = true;
                fleet.heartbeats().send(a); // LEAVING
                fleet.countsForUpdate().leaves.incrementAndGet();
            } else if (!a.present && !a.left && round >= a.schedule.joinAfterRound()) {
                a.present = true;
                changed = true;
                fleet.countsForUpdate().joins.incrementAndGet();
            }
        }
        if (changed) {
            wantsMembership = agents.stream().anyMatch(a -> a.present);
            split(ownedNow);
        }
    }

    private void forgetWork() {
        forgets.incrementAndGet();
        for (VirtualAgent a : agents) {
            if (a.timer != null) {
                a.timer.cancel(false);
            }
            a.timer = null;
            a.running = null;
            a.awaitingCommit = false;
            a.queue.clear();
        }
        parked.clear();
        synchronized (pendingLock) {
            pending = new ArrayList<>();
        }
    }

    // ---- records ---------------------------------------------------------------------------------

    private static TaskResult.Builder resultOf(VirtualAgent agent, TaskAssignment a, String taskId, double computeMs) {
        return TaskResult.newBuilder()
                .setJob(a.getJob())
                .setRound(a.getRound())
                .setTaskId(taskId)
                .setWorkerId(agent.workerId)
                .setAssignedWorkerId(a.getWorkerId())
                .setModelVersion(a.getModelVersion())
                .setComputeMs(computeMs);
    }

    /**
     * A task's result, on the gradients partition numbered like the tasks partition its assignment
     * came from (modulo the count, as a real agent's: one writer per gradients partition), and its
     * timing.
     */
    private List<ProducerRecord<String, byte[]>> taskRecords(
            TaskResult result, TimingStatus status, long startMs, int tasksPartition) {
        TaskTiming timing = AssignmentRunner.timingOf(result, status, startMs, System.currentTimeMillis());
        String gradients = fleet.topics().gradients().name();
        String timings = fleet.topics().timings().name();
        return List.of(
                new ProducerRecord<>(
                        gradients,
                        fleet.gradientsPartition(tasksPartition),
                        result.getJob(),
                        fleet.encodeResult(result)),
                new ProducerRecord<>(timings, timing.getWorkerId(), fleet.encodeTiming(timing)));
    }

    /** Dead-letters the work's record, with the offset past it. */
    private void refuse(VirtualAgent agent, VirtualAgent.Work work, String reason) {
        log.warn(
                "dead-lettering {}-{}@{}: {}",
                work.source.topic(),
                work.source.partition(),
                work.source.offset(),
                reason);
        fleet.countsForUpdate().deadLetters.incrementAndGet();
        DeadLetter letter = DEAD_LETTERS.of(work.source, reason, null, System.currentTimeMillis());
        finish(
                agent,
                work,
                List.of(new ProducerRecord<>(
                        fleet.topics().deadLetters().name(),
                        DeadLetters.keyOf(letter),
                        fleet.encodeDeadLetter(letter))));
    }

    // ---- committer -------------------------------------------------------------------------------

    /** Hands an output to the committer; lane only. */
    private void publish(
            List<ProducerRecord<String, byte[]>> records, TopicPartition partition, long offset, Runnable committed) {
        Output output = new Output(records, partition, offset, committed, forgets.get());
        synchronized (pendingLock) {
            pending.add(output);
            pendingLock.notifyAll();
        }
    }

    /** Everything that waits goes into one transaction; its callbacks run on the lane once it is committed. */
    private void commitUntilStopped() {
        long discardThrough = -1; // outputs made before the lane forgot its work after the last failure
        while (true) {
            List<Output> batch;
            synchronized (pendingLock) {
                while (pending.isEmpty() && !stopping) {
                    try {
                        pendingLock.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (pending.isEmpty()) {
                    return;
                }
                batch = pending;
                pending = new ArrayList<>();
            }
            List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            List<Runnable> committed = new ArrayList<>();
            long stale = discardThrough;
            batch.removeIf(o -> o.forgets() <= stale); // made before the forget a failure asked for
            if (batch.isEmpty()) {
                continue;
            }
            for (Output o : batch) {
                records.addAll(o.records());
                if (o.partition() != null) {
                    offsets.merge(
                            o.partition(),
                            new OffsetAndMetadata(o.offset()),
                            (x, y) -> x.offset() >= y.offset() ? x : y);
                    committed.add(o.committed());
                }
            }
            try {
                publisher.publishAndCommit(records, offsets, group);
                fleet.countsForUpdate().transactions.incrementAndGet();
                lane.execute(() -> committed.forEach(Runnable::run));
            } catch (RuntimeException e) {
                if (stopping) {
                    return;
                }
                fleet.countsForUpdate().failedTransactions.incrementAndGet();
                if (KafkaErrors.isFatal(e) && !startOver(e)) {
                    return;
                }
                log.warn(
                        "virtual client {}: a transaction failed, running its assignments again: {}",
                        name,
                        e.toString());
                discardThrough = forgets.get();
                rewind = true;
            }
        }
    }

    /**
     * After a fatal error of the producer: starts over with a new one, as a real agent's supervisor
     * does ({@link io.ata.workeragent.SupervisedAgent}), where new clients heal it (its epoch lost, or
     * Kafka left it unusable) and the restart budget allows; its first transaction fences the old
     * producer's. The assignments not committed run again, as after any failed transaction.
     * Otherwise the client stops for good, saying why. Committer thread only.
     *
     * @return whether the client goes on
     */
    private boolean startOver(RuntimeException error) {
        if (!KafkaErrors.isHealedByNewClients(error) || !restarts.allow(System.currentTimeMillis())) {
            failure = error;
            log.error(
                    "virtual client {} stopped for good: {}",
                    name,
                    KafkaErrors.isHealedByNewClients(error)
                            ? "it lost its producer again (" + error + ") after " + AgentRestarts.MAX
                                    + " starts over in " + AgentRestarts.WINDOW
                            : "new clients would not heal " + error);
            return false;
        }
        log.warn("virtual client {} lost its producer ({}): starting over with a new one", name, error.toString());
        publisher.close();
        producer.close(Duration.ZERO);
        try {
            newProducer();
            producer.initTransactions();
        } catch (RuntimeException e) {
            if (!stopping) {
                failure = e;
                log.error("virtual client {} stopped for good: its new producer failed", name, e);
            }
            return false;
        }
        if (stopping) {
            // close() may have closed the producer it read before this one: this one is closed here
            // (closing a producer twice is harmless)
            publisher.close();
            producer.close(Duration.ZERO);
            return false;
        }
        fleet.countsForUpdate().restarts.incrementAndGet();
        return true; // the caller rewinds, as after any failed transaction
    }

    // ---- stop ----------------------------------------------------------------------------------

    /** Stops: the agents that are present say LEAVING, the consumer leaves the group. */
    @Override
    public void close() {
        stopping = true;
        synchronized (pendingLock) {
            pendingLock.notifyAll();
        }
        join(committerThread);
        join(pollThread);
        lane.shutdownNow();
        publisher.close();
        try {
            consumer.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                    .withTimeout(Duration.ofSeconds(5)));
        } catch (RuntimeException e) {
            log.debug("closing {}: {}", name, e.toString());
        }
        producer.close(Duration.ofSeconds(5));
        for (VirtualAgent a : agents) {
            if (a.present) {
                a.present = false;
                fleet.heartbeats().send(a);
            }
        }
    }

    private static void join(Thread t) {
        try {
            t.join(Duration.ofSeconds(10).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
