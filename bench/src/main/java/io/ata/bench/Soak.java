package io.ata.bench;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.function.LongConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A soak: one job trained for a given time on the real system ({@link SoakDeployment}) under every
 * disturbance at once: honest outliers all along ({@link OutlierWorkload}), slow and silent HTTP
 * clients all along against the registry and the broker ({@link SlowHttpClients}) while the
 * broker's {@code /health} is probed ({@link HealthProbe}), and, each at its own pace
 * ({@link Plan}), floods of forged results ({@link ForgedResults}), waves of bad records on every
 * topic ({@link BadRecords}), crowds of connections, and restarts of the trainer, an agent and the
 * broker in turn ({@link Restarts}). What it saw is a {@link SoakResult}; {@link SoakReport} judges
 * it.
 */
public final class Soak {
    /**
     * What to run.
     *
     * @param duration how long the disturbances last (start-up and a few seconds at the end not counted)
     * @param seed     the seed of everything random: task times, the job's noise, the bad records
     * @param agents   the size of the fleet
     */
    public record Settings(Duration duration, long seed, int agents) {
        public Settings {
            if (duration.isNegative() || duration.isZero()) {
                throw new IllegalArgumentException("the duration must be positive, not " + duration);
            }
            if (agents < 1 || agents > 64) {
                throw new IllegalArgumentException("agents must be 1 to 64, not " + agents);
            }
        }

        public Plan plan() {
            return Plan.of(duration);
        }
    }

    /**
     * When the disturbances come. The first of each comes early (every kind happens in a short
     * soak too), then at its interval; no restart begins in the last {@code quietEnd}, so that the
     * end shows whether the job still closes rounds rather than a restart under way.
     */
    public record Plan(
            Duration floodEvery,
            Duration badRecordsEvery,
            Duration restartEvery,
            Duration crowdEvery,
            Duration crowdHold,
            Duration quietEnd) {

        /** The plan for a soak of {@code duration}: a short one packs every kind in, a long one spaces them. */
        public static Plan of(Duration duration) {
            boolean shortRun = duration.compareTo(Duration.ofMinutes(5)) <= 0;
            long restartSeconds = Math.max(10, Math.min(120, duration.toSeconds() / 6));
            return new Plan(
                    Duration.ofSeconds(shortRun ? 8 : 20),
                    Duration.ofSeconds(shortRun ? 12 : 30),
                    Duration.ofSeconds(restartSeconds),
                    shortRun ? duration.dividedBy(2) : Duration.ofMinutes(5),
                    Duration.ofSeconds(shortRun ? 8 : 15),
                    Duration.ofSeconds(shortRun ? 10 : 30));
        }
    }

    /** How long letters of the last records may take to be read, after the end. */
    private static final Duration GRACE = Duration.ofSeconds(5);

    private static final long TICK_MS = 100;
    private static final long DISK_EVERY_MS = 5000;
    private static final long PROBE_EVERY_MS = 500;
    /** Connections of a crowd: more than the 512 a server accepts. */
    private static final int CROWD = 520;
    /** Rounds closed before the disturbances begin. */
    private static final int WARM_ROUNDS = 3;

    private final Settings settings;

    public Soak(Settings settings) {
        this.settings = settings;
    }

    /**
     * Starts the system, runs the soak, stops everything.
     *
     * @param progress told the seconds of the soak gone by, every second or so
     */
    public SoakResult run(LongConsumer progress) throws InterruptedException {
        Plan plan = settings.plan();
        SoakEvents events = new SoakEvents();
        RoundCloses closes = new RoundCloses();
        SentRecords sent = new SentRecords();
        Random random = new Random(settings.seed());
        try (SoakDeployment system = new SoakDeployment(settings.agents(), settings.seed(), closes)) {
            if (!system.trainer().awaitRounds(WARM_ROUNDS, Duration.ofSeconds(120))) {
                throw new IllegalStateException(
                        "the job closed no " + WARM_ROUNDS + " rounds within 120 s of its start: "
                                + system.trainerDown().orElse("trainer running"));
            }
            Map<String, Object> client = system.local().clientProperties();
            DiskUsage disk = new DiskUsage(system.local().kafka().logDir());
            List<SlowHttpClients.Target> targets = List.of(
                    new SlowHttpClients.Target(
                            "registry", system.host(), system.registryPort(), "/subjects/soak/versions"),
                    new SlowHttpClients.Target("broker", system.host(), system.brokerHttpPort(), "/jobs"));
            try (SoakWatch watch = new SoakWatch(
                                    client, system.topics(), system.local().registry(), SoakDeployment.JOB)
                            .start();
                    HealthProbe probe = new HealthProbe(
                                    system.host(), system::brokerHttpPort, system::brokerRestarting, PROBE_EVERY_MS)
                            .start();
                    SlowHttpClients slow = new SlowHttpClients(targets, events).start();
                    KafkaProducer<byte[], byte[]> producer = producer(client)) {
                ForgedResults forged = new ForgedResults(
                        producer,
                        system.topics().gradients(),
                        system.local().registry(),
                        SoakDeployment.JOB,
                        system.agentIds().get(0),
                        sent,
                        events);
                BadRecords bad = new BadRecords(
                        producer,
                        system.topics(),
                        system.local().registry(),
                        SoakDeployment.JOB,
                        system.agentIds(),
                        random,
                        sent,
                        events);
                Restarts restarts = new Restarts(system, events);

                long start = System.currentTimeMillis();
                long end = start + settings.duration().toMillis();
                long nextFlood = start + plan.floodEvery().toMillis() / 2;
                long nextBad = start + plan.badRecordsEvery().toMillis() / 3;
                long nextRestart = start + plan.restartEvery().toMillis();
                long nextCrowd = start + plan.crowdEvery().toMillis() / 2;
                long nextDisk = start;
                long lastProgress = start;
                events.add("start", settings.agents() + " agents, batch " + SoakDeployment.BATCH + ", " + plan);
                while (true) {
                    long now = System.currentTimeMillis();
                    if (now >= end) {
                        break;
                    }
                    try {
                        if (now >= nextFlood) {
                            forged.flood(closes.lastRound() + 1, SoakDeployment.BATCH, system.dimension());
                            nextFlood = now + plan.floodEvery().toMillis();
                        }
                        if (now >= nextBad) {
                            bad.wave();
                            nextBad = now + plan.badRecordsEvery().toMillis();
                        }
                        if (now >= nextCrowd) {
                            slow.crowd(targets.get(1), CROWD, plan.crowdHold().toMillis());
                            nextCrowd = now + plan.crowdEvery().toMillis();
                        }
                        if (now >= nextRestart && now + plan.quietEnd().toMillis() < end) {
                            restarts.restartNext();
                            nextRestart = System.currentTimeMillis()
                                    + plan.restartEvery().toMillis();
                        }
                    } catch (RuntimeException e) {
                        events.add("disturbance-failed", e.toString());
                    }
                    now = System.currentTimeMillis();
                    if (now >= nextDisk) {
                        disk.sample();
                        nextDisk = now + DISK_EVERY_MS;
                    }
                    if (now - lastProgress >= 1000) {
                        progress.accept((Math.min(now, end) - start) / 1000);
                        lastProgress = now;
                    }
                    Thread.sleep(TICK_MS);
                }
                events.add("end", closes.count() + " rounds closed");
                progress.accept(settings.duration().toSeconds());
                // what is still on its way: the letters of the last records, the last closes
                Thread.sleep(GRACE.toMillis());
                disk.sample();
                return new SoakResult(
                        settings,
                        start,
                        end,
                        closes.all(),
                        watch.letters(),
                        watch.closedAtMs(),
                        probe.probes(),
                        sent.all(),
                        events.all(),
                        system.topics(),
                        system.roundsStalled(),
                        system.clipped(),
                        system.outliersComputed(),
                        system.trainersStarted(),
                        disk.last(),
                        disk.max(),
                        slow.stats(),
                        system.trainerDown(),
                        system.agentsDown(),
                        watch.undecodableLetters());
            }
        }
    }

    private static KafkaProducer<byte[], byte[]> producer(Map<String, Object> client) {
        Properties props = new Properties();
        props.putAll(client);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }
}
