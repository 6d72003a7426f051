package io.ata.bench.fleet;

import io.ata.bench.JobsBench;
import io.ata.bench.Percentiles;
import io.ata.broker.BrokerApp;
import io.ata.broker.BrokerCounter;
import io.ata.broker.BrokerMetrics;
import io.ata.local.LocalDeployment;
import io.ata.platform.Threads;
import io.ata.schemas.RoundEventType;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.Topics;
import io.ata.trainer.Trainer;
import io.ata.trainer.TrainerConfig;
import io.ata.workeragent.AssignmentListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker under a fleet of {@code N} virtual agents ({@link VirtualFleet}) and {@code J}
 * concurrent jobs, each a real trainer on the quadratic problem, all in this process:
 *
 * <ul>
 *   <li>control overhead of round {@code k+1} of a job, as {@code ata bench-live --only overhead}
 *       defines it: from the commit of its round {@code k}'s close (when the trainer's commit returned,
 *       {@link io.ata.trainer.RoundSummary#committedNanos()}, not when its listener ran) to
 *       the moment the last of round {@code k+1}'s assignments starts at its agent (the assignment
 *       and model version {@code k} both there: under pipelined allocation the assignment arrives
 *       before the close and is parked, and the version comes last); backup copies left out;</li>
 *   <li>rounds per second: the rounds of every job closed in the measured window (first measured
 *       close to last), over its length, as {@code JobsBench};</li>
 *   <li>the broker's CPU time per round: its threads' CPU time ({@link BrokerThreadsCpu}) over the
 *       same window, divided by its rounds;</li>
 *   <li>the JVM's heap after a full collection at the end (the whole process: broker, fleet,
 *       trainers and, embedded, Kafka), and the bytes of the broker instances' state directories
 *       (the RocksDB jobs store and checkpoints);</li>
 *   <li>with two instances, the rounds each served: those of the jobs in its local jobs store.</li>
 * </ul>
 * Each job runs {@code warmup} unmeasured rounds first. With {@code batch} 0 a job's {@code B} is
 * the fleet divided by the jobs (at least 1): the fleet's work per round of every job together
 * stays the same as jobs are added, so what grows is only the job count.
 */
public final class FleetBench {
    private static final Logger log = LoggerFactory.getLogger(FleetBench.class);

    /**
     * @param rounds measured rounds per job
     * @param warmup unmeasured rounds per job first
     * @param instances broker instances (the same application id)
     * @param roundsPartitions partitions of the rounds and model topics; 0: 1 with one instance, 16 with more
     * @param policy every job's policy
     * @param batch every job's B; 0: agents / jobs, at least 1
     * @param fleet the fleet's shape but its size (agents per client, schedules, time scale)
     * @param timeout how long the jobs may take before the run is cut short (what closed is reported)
     * @param trainerHost whether the jobs' trainers share one reader of {@code gradients} (a
     *     {@code TrainerHost}) rather than each reading it with a consumer of its own
     */
    public record Settings(
            int rounds,
            int warmup,
            int instances,
            int roundsPartitions,
            String policy,
            int batch,
            VirtualFleet.Settings fleet,
            Duration timeout,
            boolean trainerHost) {
        public Settings {
            if (rounds < 2) {
                throw new IllegalArgumentException("rounds must be at least 2, not " + rounds);
            }
            if (warmup < 0) {
                throw new IllegalArgumentException("warmup must be at least 0, not " + warmup);
            }
            if (instances < 1) {
                throw new IllegalArgumentException("instances must be at least 1, not " + instances);
            }
            if (roundsPartitions < 0) {
                throw new IllegalArgumentException(
                        "rounds partitions must be at least 0 (0: 1, or 16 with more instances), not "
                                + roundsPartitions);
            }
            if (batch < 0) {
                throw new IllegalArgumentException("batch must be at least 0 (0: agents / jobs), not " + batch);
            }
        }

        /** The partitions of the rounds and model topics the loads run with. */
        public int roundsPartitionsUsed() {
            return roundsPartitions > 0 ? roundsPartitions : instances > 1 ? 16 : 1;
        }

        /** Rounds each job runs, the unmeasured first: what the progress counts per job. */
        public long roundsPerJob() {
            return (long) warmup + rounds;
        }

        /**
         * How long the broker waits for a heartbeat before it finds a worker dead: 4 missed
         * intervals at the least, its default 10 s otherwise.
         */
        public Duration livenessTimeout() {
            Duration fourBeats = fleet.heartbeatInterval().multipliedBy(4);
            return fourBeats.compareTo(Duration.ofSeconds(10)) > 0 ? fourBeats : Duration.ofSeconds(10);
        }

        /** How the jobs' trainers read {@code gradients}: {@code host} (one reader) or {@code own} (a consumer each). */
        public String trainers() {
            return trainerHost ? "host" : "own";
        }

        int batchFor(int agents, int jobs) {
            return batch > 0 ? batch : Math.max(1, agents / jobs);
        }
    }

    /**
     * What the broker instances counted over a load (their meters, by application id): rounds
     * deferred for want of a live worker, OPENED events of an open round allocated again (re-drives),
     * OPENED events of an older round ignored, backup tasks sent, and records it dead-lettered.
     */
    public record BrokerCounts(
            long deferred, long reopened, long staleOpens, long backupTasks, long deadLetters, double openedLagMs) {
        static BrokerCounts of(MeterRegistry meters, String applicationId) {
            return new BrokerCounts(
                    sum(meters, BrokerCounter.ROUNDS_DEFERRED.meterName(), applicationId),
                    sum(meters, BrokerCounter.ROUNDS_REOPENED.meterName(), applicationId),
                    sum(meters, BrokerCounter.STALE_OPENS_IGNORED.meterName(), applicationId),
                    sum(meters, BrokerCounter.BACKUP_TASKS.meterName(), applicationId),
                    sum(meters, BrokerMetrics.DEAD_LETTERS, applicationId),
                    openedLagMs(meters, applicationId));
        }

        /**
         * The mean time from an OPENED event's record timestamp (the trainer's send) to the broker's
         * processing of it, over the load, every instance of the application together; NaN if none.
         */
        private static double openedLagMs(MeterRegistry meters, String applicationId) {
            Collection<Timer> timers = meters.find(BrokerMetrics.ROUND_EVENT_LAG)
                    .tag(BrokerMetrics.APPLICATION, applicationId)
                    .tag(BrokerMetrics.TYPE, RoundEventType.OPENED.name())
                    .timers();
            long count = timers.stream().mapToLong(Timer::count).sum();
            double totalMs = timers.stream()
                    .mapToDouble(t -> t.totalTime(TimeUnit.MILLISECONDS))
                    .sum();
            return count == 0 ? Double.NaN : totalMs / count;
        }

        private static long sum(MeterRegistry meters, String name, String applicationId) {
            return Math.round(meters.find(name).tag(BrokerMetrics.APPLICATION, applicationId).counters().stream()
                    .mapToDouble(Counter::count)
                    .sum());
        }
    }

    /** The figures of one (agents, jobs) load. */
    public record Result(
            int agents,
            int jobs,
            boolean pipelined,
            int instances,
            int batch,
            int clients,
            int agentsPerPartition,
            int taskPartitions,
            int claimedTwice,
            long rounds,
            double seconds,
            List<JobsBench.RoundOverhead> roundOverheads,
            List<JobsBench.RoundOverhead> readyOverheads,
            List<JobsBench.RoundOverhead> assignedOverheads,
            long brokerCpuNanos,
            long heapBytes,
            long stateBytes,
            long[] roundsByInstance,
            int jobsProgressed,
            boolean complete,
            FleetCounts.Snapshot fleet,
            BrokerCounts broker,
            List<GcPauses.Pause> gcPauses,
            List<GcPauses.Pause> gcPausesInWindow,
            String trainers) {

        /** How the broker allocated: {@code pipelined} or {@code at-open}, as the commands name it. */
        public String allocation() {
            return pipelined ? "pipelined" : "at-open";
        }

        public double roundsPerSecond() {
            return seconds > 0 ? rounds / seconds : Double.NaN;
        }

        /** The broker's CPU milliseconds per round closed in the window. */
        public double cpuMsPerRound() {
            return rounds > 0 ? brokerCpuNanos / 1e6 / rounds : Double.NaN;
        }

        /**
         * The broker's CPU milliseconds per second of the window: beside {@link #cpuMsPerRound}, as
         * part of the broker's work is per second (heartbeats, the liveness check), and per round it
         * rises when rounds per second fall.
         */
        public double cpuMsPerSecond() {
            return seconds > 0 ? brokerCpuNanos / 1e6 / seconds : Double.NaN;
        }

        /** The measured rounds' overheads in ms, sorted. */
        public double[] overheadMs() {
            return JobsBench.sortedMs(roundOverheads);
        }

        public double overheadMs(double q) {
            return Percentiles.of(overheadMs(), q);
        }

        /**
         * The {@code q}-quantile of the rounds' overhead to their assignments' being ready (read, and
         * their model version at the fleet), whether or not their agents were free to start them.
         */
        public double readyMs(double q) {
            return Percentiles.of(JobsBench.sortedMs(readyOverheads), q);
        }

        /** This JVM's GC pause time in the measured window (first measured close to the last), in ms. */
        public double gcMs() {
            return gcPausesInWindow.stream().mapToDouble(GcPauses.Pause::ms).sum();
        }

        /** The longest of {@link #gcPausesInWindow} (its part in the window), in ms; 0 if none. */
        public double gcMaxMs() {
            return gcPausesInWindow.stream()
                    .mapToDouble(GcPauses.Pause::ms)
                    .max()
                    .orElse(0);
        }

        /** The GC pause time inside a round's overhead (from its close to the next round's start), in ms. */
        public double gcMs(JobsBench.RoundOverhead round) {
            long end = round.closedNanos() + Math.round(round.ms() * 1e6);
            return GcPauses.overlapMs(gcPauses, round.closedNanos(), end);
        }
    }

    private final Function<Topics, LocalDeployment> deployments;
    private final LongConsumer progress;

    /**
     * @param deployments a deployment for each load's topics: the embedded Kafka or an existing
     *     cluster ({@link LocalDeployment#embedded}, {@link LocalDeployment#existing})
     * @param progress told of every round closed
     */
    public FleetBench(Function<Topics, LocalDeployment> deployments, LongConsumer progress) {
        this.deployments = deployments;
        this.progress = progress;
    }

    public Result run(int agents, int jobs, Settings settings) throws Exception {
        int total = settings.warmup() + settings.rounds();
        int batch = settings.batchFor(agents, jobs);
        Topics topics = VirtualFleet.freshTopics(
                String.format(Locale.ROOT, "fleet-%dx%dx%d", agents, jobs, settings.instances()),
                settings.fleet().withAgents(agents),
                settings.roundsPartitionsUsed());
        // per job: when each round's close was committed, and when each round's last assignment started
        Map<String, long[]> closedAt = new HashMap<>();
        ConcurrentMap<String, Long> started = new ConcurrentHashMap<>();
        // per job/round: when the last of its assignments was read, and the model version it needs
        ConcurrentMap<String, Long> received = new ConcurrentHashMap<>();
        ConcurrentMap<String, Long> versions = new ConcurrentHashMap<>();
        Map<String, AtomicLong> measuredRounds = new HashMap<>();
        long[] window = new long[2];
        AtomicLong closedInWindow = new AtomicLong();
        List<long[]> cpuSamples = new ArrayList<>();
        try (LocalDeployment local = deployments.apply(topics);
                GcPauses gc = new GcPauses()) {
            List<BrokerApp> instances = new ArrayList<>();
            instances.add(local.startBroker());
            for (int i = 1; i < settings.instances(); i++) {
                instances.add(local.startExtraBrokerInstance());
            }
            BrokerThreadsCpu cpu = new BrokerThreadsCpu(topics.brokerApplicationId());
            ScheduledExecutorService sampler = Threads.daemonScheduler("bench-fleet-cpu");
            sampler.scheduleAtFixedRate(
                    () -> {
                        long[] s = {System.nanoTime(), cpu.sample()};
                        synchronized (cpuSamples) {
                            cpuSamples.add(s);
                        }
                    },
                    0,
                    100,
                    TimeUnit.MILLISECONDS);
            VirtualFleet.Settings shape = settings.fleet().withAgents(agents);
            try (VirtualFleet fleet = new VirtualFleet(
                    local.clientProperties(), topics, local.registry(), shape, arrivals(received, versions, started))) {
                fleet.start();
                fleet.awaitMembers(w -> local.broker().membership().get(w), Duration.ofSeconds(120 + agents / 8));
                List<Trainer> trainers = new ArrayList<>();
                // the timeout counts from the first job's start: starting a thousand takes a while
                long deadline = System.nanoTime() + settings.timeout().toNanos();
                for (int j = 1; j <= jobs && System.nanoTime() < deadline; j++) {
                    String job = String.format(Locale.ROOT, "job-%04d", j);
                    long[] closed = new long[total + 2];
                    AtomicLong measured = new AtomicLong();
                    closedAt.put(job, closed);
                    measuredRounds.put(job, measured);
                    TrainerConfig config = local.trainerConfig(job, settings.policy(), batch, total)
                            .listener(summary -> {
                                long now = summary.committedNanos();
                                if (summary.round() <= total) {
                                    closed[(int) summary.round()] = now;
                                }
                                if (summary.round() > settings.warmup()) {
                                    synchronized (window) {
                                        window[0] = window[0] == 0 ? now : Math.min(window[0], now);
                                        window[1] = Math.max(window[1], now);
                                    }
                                    closedInWindow.incrementAndGet();
                                    measured.incrementAndGet();
                                }
                                progress.accept(1);
                            })
                            .build();
                    trainers.add(
                            settings.trainerHost() ? local.startHostedTrainer(config) : local.startTrainer(config));
                }
                boolean complete = trainers.size() == jobs;
                for (Trainer t : trainers) {
                    long left = Math.max(1, deadline - System.nanoTime());
                    complete &= t.awaitRounds(total, Duration.ofNanos(left));
                }
                sampler.shutdownNow();
                sampler.awaitTermination(5, TimeUnit.SECONDS);
                long[] roundsByInstance = roundsByInstance(instances, measuredRounds);
                // tasks partitions two consumers claimed at the broker's last checks (none expected)
                int claimedTwice = instances.stream()
                        .mapToInt(BrokerApp::taskPartitionsClaimedTwice)
                        .max()
                        .orElse(0);
                BrokerCounts brokerCounts = BrokerCounts.of(local.meters(), topics.brokerApplicationId());
                long stateBytes = storeBytes(local.meters(), topics.brokerApplicationId());
                if (stateBytes <= 0) {
                    // not sampled yet (a short load reads 0): the state directories' bytes instead
                    stateBytes = bytesUnder(local.workDirectory());
                }
                System.gc();
                long heap =
                        ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
                Trainer.closeAll(trainers);
                FleetCounts.Snapshot counts = fleet.counts();
                int progressed = (int) measuredRounds.values().stream()
                        .filter(m -> m.get() > 0)
                        .count();
                // the window runs from the first measured close to the last: one close fewer than counted
                long rounds = Math.max(0, closedInWindow.get() - 1);
                double seconds = (window[1] - window[0]) / 1e9;
                long cpuNanos = cpuBetween(cpuSamples, window[0], window[1]);
                List<GcPauses.Pause> gcPauses = gc.between(Long.MIN_VALUE, Long.MAX_VALUE);
                return new Result(
                        agents,
                        jobs,
                        local.brokerSettings().pipelinedAllocation(),
                        settings.instances(),
                        batch,
                        fleet.clientCount(),
                        settings.fleet().agentsPerPartition(),
                        partitionsNow(local, topics.tasks().name(), topics.taskPartitions()),
                        claimedTwice,
                        rounds,
                        seconds,
                        JobsBench.roundOverheads(closedAt, started, settings.warmup(), total),
                        JobsBench.roundOverheads(closedAt, ready(fleet, received, versions), settings.warmup(), total),
                        JobsBench.roundOverheads(closedAt, received, settings.warmup(), total),
                        cpuNanos,
                        heap,
                        stateBytes,
                        roundsByInstance,
                        progressed,
                        complete,
                        counts,
                        brokerCounts,
                        gcPauses,
                        window[0] == 0 ? List.of() : GcPauses.clipped(gcPauses, window[0], window[1]),
                        settings.trainers());
            } finally {
                sampler.shutdownNow();
            }
        }
    }

    /**
     * Keeps, per {@code job/round}, when the last of its assignments (backup copies aside) was read,
     * the model version it needs, and when the last started. Each assignment counts at its first
     * read and first start: the broker sends a round's assignments again, unchanged, when its
     * trainer re-drives it (a round stalled on a busy fleet, say), and a copy read a minute later
     * is no later delivery of the round.
     */
    static AssignmentListener arrivals(
            ConcurrentMap<String, Long> received,
            ConcurrentMap<String, Long> versions,
            ConcurrentMap<String, Long> started) {
        Set<String> read = ConcurrentHashMap.newKeySet();
        Set<String> begun = ConcurrentHashMap.newKeySet();
        return new AssignmentListener() {
            @Override
            public void received(TaskAssignment a, long nanoTime) {
                if (a.getBackupOf().isEmpty() && read.add(identity(a))) {
                    received.merge(a.getJob() + "/" + a.getRound(), nanoTime, Math::max);
                    versions.putIfAbsent(a.getJob() + "/" + a.getRound(), a.getModelVersion());
                }
            }

            @Override
            public void started(TaskAssignment a, long nanoTime) {
                if (a.getBackupOf().isEmpty() && begun.add(identity(a))) {
                    started.merge(a.getJob() + "/" + a.getRound(), nanoTime, Math::max);
                }
            }
        };
    }

    /** An assignment as the broker may send it again: its job, round, worker and tasks. */
    private static String identity(TaskAssignment a) {
        return a.getJob() + "/" + a.getRound() + "/" + a.getWorkerId() + "/" + a.getTaskIds();
    }

    /**
     * Per {@code job/round}, when its assignments were all ready at their agents: the last read, and
     * its model version at the fleet's model cache, whichever came later. Where an agent is busy
     * with other jobs' tasks, its start comes later than this: that wait is the fleet's, not the
     * control path's.
     */
    private static Map<String, Long> ready(VirtualFleet fleet, Map<String, Long> received, Map<String, Long> versions) {
        Map<String, Long> ready = new HashMap<>();
        received.forEach((key, at) -> {
            String job = key.substring(0, key.lastIndexOf('/'));
            fleet.modelArrived(job, versions.get(key)).ifPresent(model -> ready.put(key, Math.max(at, model)));
        });
        return ready;
    }

    /** The broker threads' CPU time between two moments, from the samples nearest them. */
    private static long cpuBetween(List<long[]> samples, long from, long to) {
        synchronized (samples) {
            if (samples.isEmpty() || to <= from) {
                return 0;
            }
            return nearest(samples, to)[1] - nearest(samples, from)[1];
        }
    }

    private static long[] nearest(List<long[]> samples, long at) {
        long[] best = samples.get(0);
        for (long[] s : samples) {
            if (Math.abs(s[0] - at) < Math.abs(best[0] - at)) {
                best = s;
            }
        }
        return best;
    }

    /** The measured rounds of the jobs each instance hosts (its local jobs store) at the end of the run. */
    private static long[] roundsByInstance(List<BrokerApp> instances, Map<String, AtomicLong> measured) {
        long[] rounds = new long[instances.size()];
        Set<String> counted = new HashSet<>();
        for (int i = 0; i < instances.size(); i++) {
            try (KeyValueIterator<String, ?> it = instances.get(i).jobs().records()) {
                while (it.hasNext()) {
                    KeyValue<String, ?> kv = it.next();
                    AtomicLong m = measured.get(kv.key);
                    if (m != null && counted.add(kv.key)) {
                        rounds[i] += m.get();
                    }
                }
            }
        }
        return rounds;
    }

    /**
     * The broker's RocksDB stores' bytes, SST files and memtables, from Kafka Streams' RocksDB
     * metrics (the jobs store's data sits in memtables until a flush: Streams writes no WAL, so the
     * directory alone says little); -1 where the registry has none.
     */
    private static long storeBytes(MeterRegistry meters, String applicationId) {
        double bytes = 0;
        boolean found = false;
        for (Meter m : meters.getMeters()) {
            String name = m.getId().getName();
            if ((name.endsWith("total.sst.files.size") || name.endsWith("size.all.mem.tables"))
                    && m instanceof Gauge g
                    && m.getId().getTags().stream().anyMatch(t -> t.getValue().contains(applicationId))) {
                double v = g.value();
                if (!Double.isNaN(v)) {
                    bytes += v;
                    found = true;
                }
            }
        }
        return found ? (long) bytes : -1;
    }

    /** The bytes of the files under {@code dir}. */
    private static long bytesUnder(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile)
                    .mapToLong(p -> {
                        try {
                            return Files.size(p);
                        } catch (IOException e) {
                            return 0; // removed meanwhile
                        }
                    })
                    .sum();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * How many partitions {@code topic} has at the end of a load: the broker grows the tasks topic
     * when it finds live agents owning none, which would change what was measured. {@code created}
     * if the cluster cannot say.
     */
    private static int partitionsNow(LocalDeployment local, String topic, int created) {
        try (Admin admin = Admin.create(local.clientProperties())) {
            return admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get(topic)
                    .partitions()
                    .size();
        } catch (ExecutionException | TimeoutException e) {
            log.warn(
                    "the partitions of {} at the end of the load are unknown ({}): reporting {}, as created",
                    topic,
                    e,
                    created);
            return created;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return created;
        }
    }
}
