package io.ata.bench.fleet;

import io.ata.local.LocalDeployment;
import io.ata.platform.Threads;
import io.ata.schemas.Topics;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.trainer.Trainer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Function;
import java.util.function.LongConsumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * How long the broker takes to serve again after {@code kill -9} while it holds many jobs' state:
 * the broker runs in a process of its own ({@link BrokerProcess}), the virtual fleet and the jobs'
 * trainers in this one. Once every job has closed a few rounds the broker is killed (SIGKILL) and
 * started again at once on the same state directory, as {@code deploy/bench/recovery.sh} does with
 * each part. Measured from the kill: the new process RUNNING, the first round closed that the
 * restarted broker planned, and every live job having closed such a round ({@link KillWatch}: the
 * {@value #ROUNDS_WITHOUT_THE_BROKER} rounds a job may close on assignments out before the kill do
 * not count). The restarted process maps a class-data sharing archive of the
 * classes the first one loaded ({@link ClassDataArchive}), as the container image's broker does,
 * unless told otherwise; the archive is made before the kill either way, so that the two differ in
 * the restarted JVM alone.
 *
 * <p>With two instances it measures a failover instead: two broker processes of one application,
 * each keeping a standby copy of the other's tasks' state ({@code num.standby.replicas=1}); one is
 * killed and not started again, and the survivor takes its jobs over once the dead one's session
 * ends. Measured from the kill, as above: the first round closed that a live broker planned after
 * the kill, and every live job having closed such a round.
 *
 * <p>The state is built in waves of at most {@link #WAVE} jobs running at once: each wave closes a
 * few rounds per job, its trainers stop (their jobs stay in the broker's state) and the next wave
 * starts; the last wave runs on across the kill. A thousand trainers at once in this process would
 * measure the process, not the broker's restore of a thousand jobs' state.
 */
public final class FleetRestore {

    /**
     * @param instances broker instances: 1, restarted after the kill; 2, one killed, the other takes over
     * @param agents virtual agents
     * @param jobs concurrent jobs
     * @param roundsBefore rounds every job closed before the kill
     * @param runningSeconds kill to the new broker process RUNNING (JVM start and Streams' restore); NaN
     *     with two instances (no new process)
     * @param firstRoundSeconds kill to the first round closed that the broker planned after it
     * @param allJobsSeconds kill to the moment the last live job closed a round the broker planned after
     *     it; NaN if not all did
     * @param jobsProgressed live jobs that closed a round the broker planned after the kill
     * @param liveJobs jobs whose trainers ran across the kill (the last wave); the others' state only
     * @param stores what the new process restored, store by store, in the order their restores
     *     started; empty with two instances
     * @param classDataSharing whether the new process mapped a class-data sharing archive, and if
     *     not, why
     */
    public record Result(
            int instances,
            int agents,
            int jobs,
            long roundsBefore,
            double runningSeconds,
            double firstRoundSeconds,
            double allJobsSeconds,
            int jobsProgressed,
            int liveJobs,
            List<StoreRestore> stores,
            ClassDataSharing classDataSharing) {

        public Result {
            stores = List.copyOf(stores);
        }

        /** The new process's JVM start to the first store's restore starting; NaN if none restored. */
        public double restoreFromSeconds() {
            return stores.stream().mapToDouble(StoreRestore::fromSeconds).min().orElse(Double.NaN);
        }

        /** The new process's JVM start to the last store's restore ending; NaN if none restored. */
        public double restoreToSeconds() {
            return stores.stream().mapToDouble(StoreRestore::toSeconds).max().orElse(Double.NaN);
        }

        /** Records read from every changelog. */
        public long restoredRecords() {
            return stores.stream().mapToLong(StoreRestore::records).sum();
        }
    }

    /**
     * One store's restore in the new process, as it printed it ({@link BrokerProcess#RESTORED}).
     *
     * @param fromSeconds its JVM's start to the store's first partition starting to restore
     * @param toSeconds its JVM's start to the store's last partition restored
     */
    public record StoreRestore(String store, int partitions, long records, double fromSeconds, double toSeconds) {
        /** Parses the fields after {@link BrokerProcess#RESTORED} in the broker's line. */
        static StoreRestore parse(String fields) {
            String[] f = fields.trim().split(" ");
            if (f.length != 5) {
                throw new IllegalArgumentException("not a store's restore: " + fields);
            }
            return new StoreRestore(
                    f[0],
                    Integer.parseInt(f[1]),
                    Long.parseLong(f[2]),
                    Double.parseDouble(f[3]),
                    Double.parseDouble(f[4]));
        }
    }

    private static final int ROUNDS_BEFORE = 3;

    /**
     * Rounds a job may close after the kill without a live broker: the round open at the kill, and
     * under pipelined allocation the next one, whose assignments the broker sent when the open one
     * opened. The first close past them is of a round the restarted (or surviving) broker planned.
     */
    static final int ROUNDS_WITHOUT_THE_BROKER = 2;
    /** The most jobs whose trainers run at once while the broker's state is built. */
    public static final int WAVE = 50;

    private final Function<Topics, LocalDeployment> deployments;
    private final LongConsumer progress;
    private final boolean classDataSharing;

    /**
     * @param classDataSharing whether a restarted broker process maps a class-data sharing archive
     *     of the classes its predecessor loaded
     */
    public FleetRestore(
            Function<Topics, LocalDeployment> deployments, LongConsumer progress, boolean classDataSharing) {
        this.deployments = deployments;
        this.progress = progress;
        this.classDataSharing = classDataSharing;
    }

    /**
     * @param instances 1 (killed and started again) or 2 (one killed, the other takes over)
     * @param roundsPartitions partitions of the rounds and model topics the jobs spread over
     */
    public Result run(int instances, int agents, int jobs, int roundsPartitions, Duration timeout) throws Exception {
        if (instances != 1 && instances != 2) {
            throw new IllegalArgumentException("the restore runs one or two broker instances, not " + instances);
        }
        Topics topics = VirtualFleet.freshTopics(
                String.format(Locale.ROOT, "restore-%dx%dx%d", agents, jobs, instances),
                VirtualFleet.Settings.of(agents),
                roundsPartitions);
        AtomicLongArray closes = new AtomicLongArray(jobs);
        KillWatch kill = new KillWatch(jobs, ROUNDS_WITHOUT_THE_BROKER);
        try (LocalDeployment local = deployments.apply(topics)) {
            Path stateDir = local.workDirectory().resolve("broker-process-state");
            Path log = local.workDirectory().resolve("broker-process.log");
            int standbys = instances - 1;
            // only a restarted instance starts a JVM after the kill: a failover's survivor is running.
            // Without sharing too the first process records and the bench dumps, so that the runs
            // with and without differ in the restarted JVM alone, not in the CPU spent before the kill
            ClassDataArchive archive = instances == 1
                    ? new ClassDataArchive(
                            local.workDirectory().resolve("broker.classlist"),
                            local.workDirectory().resolve("broker.jsa"))
                    : null;
            Process broker = BrokerProcess.start(
                    local.bootstrapServers(),
                    topics.prefix(),
                    stateDir,
                    local.registryUrl(),
                    log,
                    standbys,
                    archive == null ? List.of() : archive.recordingOptions());
            Process survivor = null;
            try {
                awaitRunning(log, 1, broker, Duration.ofMinutes(3));
                if (instances == 2) {
                    Path survivorLog = local.workDirectory().resolve("broker-process-2.log");
                    survivor = BrokerProcess.start(
                            local.bootstrapServers(),
                            topics.prefix(),
                            local.workDirectory().resolve("broker-process-2-state"),
                            local.registryUrl(),
                            survivorLog,
                            standbys,
                            List.of());
                    awaitRunning(survivorLog, 1, survivor, Duration.ofMinutes(3));
                }
                try (VirtualFleet fleet = new VirtualFleet(
                        local.clientProperties(),
                        topics,
                        local.registry(),
                        VirtualFleet.Settings.of(agents),
                        (a, nanos) -> {})) {
                    fleet.start();
                    // before any job opens a round: a round opened earlier goes to the agents the
                    // broker knew then (one agent got every job's first round, and the waves stalled)
                    awaitMembers(local, topics, fleet, Duration.ofSeconds(120 + agents / 8));
                    int batch = Math.max(1, agents / Math.min(jobs, WAVE));
                    List<Trainer> trainers = List.of();
                    for (int first = 0; first < jobs; first += WAVE) {
                        Trainer.closeAll(trainers); // their jobs stay in the broker's state
                        int end = Math.min(jobs, first + WAVE);
                        trainers = startWave(local, first, end, batch, closes, kill);
                        awaitRoundsBefore(closes, first, end, timeout);
                    }
                    int live = trainers.size(); // the last wave
                    int firstLive = jobs - live;
                    ClassDataSharing sharing = ClassDataSharing.OFF;
                    List<String> restartOptions = List.of();
                    if (archive != null) { // before the kill: the dump is no part of the restart
                        String failed = archive.dump(BrokerProcess.javaCommand(), BrokerProcess.classPath());
                        if (classDataSharing) {
                            sharing = failed.isEmpty() ? ClassDataSharing.ON : ClassDataSharing.failed(failed);
                            restartOptions = failed.isEmpty() ? archive.usingOptions() : List.of();
                        }
                    }
                    long before = sum(closes);
                    kill.killing();
                    broker.destroyForcibly(); // SIGKILL
                    broker.waitFor();
                    double running = Double.NaN;
                    List<StoreRestore> stores = List.of();
                    if (survivor == null) {
                        broker = BrokerProcess.start(
                                local.bootstrapServers(),
                                topics.prefix(),
                                stateDir,
                                local.registryUrl(),
                                log,
                                0,
                                restartOptions);
                        awaitRunning(log, 2, broker, Duration.ofMinutes(5));
                        running = kill.secondsSinceKill();
                        stores = restoredAfterRunning(log, 1);
                        if (!restartOptions.isEmpty()
                                && !printedBeforeRunning(log, 1, BrokerProcess.SHARES_CLASSES)
                                        .equals(List.of("true"))) {
                            sharing = ClassDataSharing.failed("the new process did not map the archive");
                        }
                    }
                    long after = System.nanoTime() + timeout.toNanos();
                    while (kill.progressed(firstLive, jobs) < live && System.nanoTime() < after) {
                        Thread.sleep(50);
                    }
                    Trainer.closeAll(trainers);
                    return new Result(
                            instances,
                            agents,
                            jobs,
                            before,
                            running,
                            kill.firstSeconds(firstLive, jobs),
                            kill.allSeconds(firstLive, jobs),
                            kill.progressed(firstLive, jobs),
                            live,
                            stores,
                            sharing);
                }
            } finally {
                broker.destroyForcibly();
                broker.waitFor();
                if (survivor != null) {
                    survivor.destroyForcibly();
                    survivor.waitFor();
                }
            }
        }
    }

    /**
     * Waits until the broker knows every agent as a member owning partitions: as {@link
     * VirtualFleet#awaitMembers}, from the membership topic the broker writes, since it runs in a
     * process of its own.
     */
    private static void awaitMembers(LocalDeployment local, Topics topics, VirtualFleet fleet, Duration timeout)
            throws InterruptedException {
        Map<String, Object> config = new HashMap<>(local.clientProperties());
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        Map<String, WorkerHeartbeat> members = new ConcurrentHashMap<>();
        try (KafkaConsumer<String, WorkerHeartbeat> consumer = new KafkaConsumer<>(
                config,
                new StringDeserializer(),
                topics.membership().valueSerde(local.registry()).deserializer())) {
            List<TopicPartition> partitions = consumer
                    .partitionsFor(topics.membership().name())
                    .stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Thread reader = Threads.daemon(
                    () -> {
                        try {
                            while (true) {
                                consumer.poll(Duration.ofMillis(100)).forEach(r -> {
                                    if (r.key() != null && r.value() != null) {
                                        members.put(r.key(), r.value());
                                    }
                                });
                            }
                        } catch (WakeupException e) {
                            // the fleet is known: wakeup() ends the reading
                        }
                    },
                    "restore-membership");
            reader.start();
            try {
                fleet.awaitMembers(members::get, timeout);
            } finally {
                consumer.wakeup();
                reader.join(5_000);
            }
        }
    }

    /** Waits until jobs {@code first}..{@code end - 1} have each closed {@link #ROUNDS_BEFORE} rounds. */
    private static void awaitRoundsBefore(AtomicLongArray closes, int first, int end, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (min(closes, first, end) < ROUNDS_BEFORE) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("not every job of jobs " + (first + 1) + "-" + end + " closed "
                        + ROUNDS_BEFORE + " rounds before the kill (the slowest " + min(closes, first, end) + ")");
            }
            Thread.sleep(100);
        }
    }

    /** Starts the trainers of jobs {@code first}..{@code end - 1}, counting their closes. */
    private List<Trainer> startWave(
            LocalDeployment local, int first, int end, int batch, AtomicLongArray closes, KillWatch kill) {
        List<Trainer> trainers = new ArrayList<>();
        for (int j = first; j < end; j++) {
            int index = j;
            trainers.add(local.startTrainer(
                    local.trainerConfig(String.format(Locale.ROOT, "job-%04d", j + 1), "uta", batch, Long.MAX_VALUE / 2)
                            .listener(summary -> {
                                kill.closed(index, summary.round(), System.nanoTime());
                                if (closes.incrementAndGet(index) <= ROUNDS_BEFORE) {
                                    progress.accept(1);
                                }
                            })
                            .build()));
        }
        return trainers;
    }

    /** Waits until the broker's log says RUNNING for the {@code n}th time. */
    private static void awaitRunning(Path log, int n, Process broker, Duration timeout)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (Files.exists(log)) {
                long seen = Files.readAllLines(log, StandardCharsets.UTF_8).stream()
                        .filter(BrokerProcess.RUNNING::equals)
                        .count();
                if (seen >= n) {
                    return;
                }
            }
            if (!broker.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException("the broker process did not reach RUNNING; see " + log);
            }
            Thread.sleep(20);
        }
    }

    /** The stores the broker said it restored after its {@code n}th {@link BrokerProcess#RUNNING} line. */
    static List<StoreRestore> restoredAfterRunning(Path log, int n) throws IOException {
        List<StoreRestore> stores = new ArrayList<>();
        for (String fields : printedBeforeRunning(log, n, BrokerProcess.RESTORED)) {
            try {
                stores.add(StoreRestore.parse(fields));
            } catch (IllegalArgumentException e) { // a line another one's output cut into
                System.err.println("skipped a broken line of the broker's log: " + fields);
            }
        }
        return stores;
    }

    /**
     * What the lines starting with {@code prefix} say (after it and a space) between the broker's
     * {@code n}th {@link BrokerProcess#RUNNING} line and the next: the lines the (n+1)th process
     * printed before it ran.
     */
    static List<String> printedBeforeRunning(Path log, int n, String prefix) throws IOException {
        List<String> printed = new ArrayList<>();
        int running = 0;
        for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
            if (line.equals(BrokerProcess.RUNNING)) {
                running++;
            } else if (running == n && line.startsWith(prefix + " ")) {
                printed.add(line.substring(prefix.length() + 1));
            }
        }
        return printed;
    }

    /** The least of {@code a}'s values from {@code from} to {@code to} (exclusive). */
    private static long min(AtomicLongArray a, int from, int to) {
        long m = Long.MAX_VALUE;
        for (int i = from; i < to; i++) {
            m = Math.min(m, a.get(i));
        }
        return m;
    }

    private static long sum(AtomicLongArray a) {
        long s = 0;
        for (int i = 0; i < a.length(); i++) {
            s += a.get(i);
        }
        return s;
    }
}
