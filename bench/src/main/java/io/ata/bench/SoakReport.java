package io.ata.bench;

import io.ata.lab.report.ChartFiles;
import io.ata.lab.report.LineChart;
import io.ata.lab.report.PolicyColors;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * A soak's figures and its goals, from a {@link SoakResult}: rounds closed and their pace, the
 * longest gap between two closes (when, and what the soak did just before), stalls re-driven,
 * dead letters by component and how soon they came, the broker's {@code /health} under slow and
 * silent clients, the disk the embedded Kafka used; and whether the goals hold:
 * <ol>
 *   <li>no permanent stall: the job closed rounds to the end (the last close at most the gap bound
 *       before the end) and its trainer still ran;</li>
 *   <li>the longest gap between two closes at most the gap bound, max(10 s, 20 x the median round time);</li>
 *   <li>every forged result that was lettered, or met an open round (its round closed {@value
 *       #MET_OPEN_MS} ms or more after it was written), dead-lettered within 1 s, except those written while the trainer was being
 *       restarted (from 1 s before the kill to its successor's first close: no trainer ran to letter
 *       them in time), which are reported apart;</li>
 *   <li>{@code /health} always answered, except while the broker's process was being restarted.</li>
 * </ol>
 * A forged result whose round closed sooner may have come after the close, and is then merely
 * stale (counted by the trainer, no letter): those are reported, not judged. Letter latency is the
 * letter's {@code timestamp_ms} minus the source record's timestamp; the trainer reads
 * {@code model}, {@code optimizer} and {@code evaluations} only when it starts, so its letters of
 * those records come at its next restart and are counted apart.
 */
public final class SoakReport {
    /** The least gap bound. */
    public static final long MIN_GAP_BOUND_MS = 10_000;
    /** The gap bound in median round times. */
    public static final int GAP_BOUND_ROUNDS = 20;
    /** How soon a forged record must be lettered. */
    public static final long LETTER_GOAL_MS = 1000;
    /** A forged result met its round open if the round closed this long or more after it was written. */
    public static final long MET_OPEN_MS = 250;

    /** One goal: its name, whether it holds, and the figures that say so. */
    public record Goal(String name, boolean holds, String detail) {}

    /** A gap between two closes (or the start and the first, or the last and the end). */
    public record Gap(long fromMs, long toMs, long afterRound) {
        public long ms() {
            return toMs - fromMs;
        }
    }

    /** Percentiles of a sample, in ms; NaN if it is empty. */
    public record Latency(int n, double p50, double p99, double max) {
        static Latency of(List<Double> values) {
            double[] v =
                    values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            return new Latency(
                    v.length,
                    Percentiles.of(v, 0.5),
                    Percentiles.of(v, 0.99),
                    v.length == 0 ? Double.NaN : v[v.length - 1]);
        }

        String text() {
            return n == 0
                    ? "none"
                    : String.format(
                            Locale.ROOT, "p50 %.0f ms, p99 %.0f ms, max %.0f ms (%d letters)", p50, p99, max, n);
        }
    }

    /**
     * A forged record and what became of it.
     *
     * @param closedAfterMs     how long after it was written its round closed, if it did
     * @param letterMs          how long after it was written its first letter was, if it had one
     * @param trainerRestarting whether it was written while the trainer was being restarted (from
     *                          1 s before the kill to the new trainer's first close): it could not
     *                          be lettered within 1 s then
     */
    public record Forged(
            SentRecords.Sent record, Optional<Long> closedAfterMs, Optional<Long> letterMs, boolean trainerRestarting) {
        /** Whether its round was still open {@value #MET_OPEN_MS} ms after it was written. */
        public boolean metOpenRound() {
            return closedAfterMs.isPresent() && closedAfterMs.get() >= MET_OPEN_MS;
        }

        /**
         * Whether the goal judges it: a trainer ran to letter it, and it met an open round or was
         * lettered (a record the trainer read while its round was open is lettered, whatever the
         * time its round then took to close; one read after the close is merely stale).
         */
        public boolean judged() {
            return (metOpenRound() || letterMs.isPresent()) && !trainerRestarting;
        }
    }

    private final SoakResult result;
    private final double medianRoundMs;
    private final long gapBoundMs;
    private final List<Gap> gaps;
    /** The close that ends each of {@link #gaps}. */
    private final List<RoundCloses.Close> counted;

    private final Gap longest;
    private final Gap last;
    private final long stalledLetters;
    private final Map<String, Long> lettersByComponent;
    private final Latency letterLatency;
    private final Latency publishedLatency;
    private final long startupLetters;
    private final long foreignLetters;
    private final Map<String, Long> foreignByComponent;
    private final List<Forged> forged;
    private final long badSentLive;
    private final long badLetteredLive;
    private final List<HealthProbe.Probe> probesOutside;
    private final long probesDuringRestarts;
    private final Latency probeLatency;
    private final List<Goal> goals;

    private SoakReport(SoakResult r) {
        this.result = r;
        double[] roundTimes = r.closes().stream()
                .mapToDouble(RoundCloses.Close::roundTimeMs)
                .sorted()
                .toArray();
        medianRoundMs = Percentiles.of(roundTimes, 0.5);
        gapBoundMs = Math.max(
                MIN_GAP_BOUND_MS, Double.isNaN(medianRoundMs) ? 0 : Math.round(GAP_BOUND_ROUNDS * medianRoundMs));

        gaps = new ArrayList<>();
        counted = new ArrayList<>();
        long previous = r.startMs();
        long previousRound = 0;
        for (RoundCloses.Close c : r.closes()) {
            if (c.atMs() < r.startMs()) {
                previousRound = c.round();
                continue; // before the disturbances began
            }
            if (c.atMs() > r.endMs()) {
                break; // after the end, while the last letters were awaited
            }
            gaps.add(new Gap(previous, c.atMs(), previousRound));
            counted.add(c);
            previous = c.atMs();
            previousRound = c.round();
        }
        last = new Gap(previous, r.endMs(), previousRound);
        List<Gap> all = new ArrayList<>(gaps);
        all.add(last);
        longest = all.stream().max(Comparator.comparingLong(Gap::ms)).orElseThrow();

        stalledLetters =
                r.letters().stream().filter(l -> l.reason().contains("stalled")).count();
        lettersByComponent = r.letters().stream()
                .collect(Collectors.groupingBy(SoakWatch.Letter::component, TreeMap::new, Collectors.counting()));

        Map<String, SentRecords.Sent> sent = new HashMap<>();
        r.sent().forEach(s -> sent.put(place(s.topic(), s.partition(), s.offset()), s));
        Set<String> atStart = Set.of(
                r.topics().model().name(),
                r.topics().optimizer().name(),
                r.topics().evaluations().name());
        List<Double> latencies = new ArrayList<>();
        List<Double> published = new ArrayList<>();
        Map<String, Long> firstLetter = new HashMap<>();
        long startup = 0;
        long foreign = 0;
        Map<String, Long> foreignBy = new TreeMap<>();
        for (SoakWatch.Letter l : r.letters()) {
            String place = place(l.sourceTopic(), l.partition(), l.offset());
            SentRecords.Sent s = sent.get(place);
            if (s == null) {
                if (l.offset() < 0) {
                    continue; // about no record: a stalled round's
                }
                foreign++;
                foreignBy.merge(l.component(), 1L, Long::sum);
                continue;
            }
            if (l.component().equals("trainer") && atStart.contains(l.sourceTopic())) {
                startup++;
                continue;
            }
            long ms = l.timestampMs() - s.timestampMs();
            latencies.add((double) ms);
            published.add((double) (l.recordTimestampMs() - s.timestampMs()));
            firstLetter.merge(place, ms, Math::min);
        }
        startupLetters = startup;
        foreignLetters = foreign;
        foreignByComponent = foreignBy;
        letterLatency = Latency.of(latencies);
        publishedLatency = Latency.of(published);

        List<long[]> restarts = trainerRestarts(r);
        forged = new ArrayList<>();
        Set<String> live = BadRecords.readLive(r.topics());
        long badLive = 0;
        long badLettered = 0;
        for (SentRecords.Sent s : r.sent()) {
            String place = place(s.topic(), s.partition(), s.offset());
            if (s.kind() == SentRecords.Kind.BAD) {
                if (live.contains(s.topic())) {
                    badLive++;
                    if (firstLetter.containsKey(place)) {
                        badLettered++;
                    }
                }
                continue;
            }
            Long closedAt = r.closedAtMs().get(s.round());
            forged.add(new Forged(
                    s,
                    Optional.ofNullable(closedAt).map(at -> at - s.timestampMs()),
                    Optional.ofNullable(firstLetter.get(place)),
                    restarts.stream().anyMatch(w -> s.timestampMs() >= w[0] && s.timestampMs() <= w[1])));
        }
        badSentLive = badLive;
        badLetteredLive = badLettered;

        probesOutside = r.probes().stream().filter(p -> !p.restarting()).toList();
        probesDuringRestarts = r.probes().size() - probesOutside.size();
        probeLatency = Latency.of(probesOutside.stream()
                .filter(HealthProbe.Probe::answered)
                .map(HealthProbe.Probe::latencyMs)
                .toList());
        goals = judge();
    }

    /**
     * When the trainer was being restarted: from {@link #LETTER_GOAL_MS} before each kill (a record
     * written then may not have been read before it) to the first close after its successor started.
     */
    private static List<long[]> trainerRestarts(SoakResult r) {
        List<long[]> windows = new ArrayList<>();
        long begin = -1;
        for (SoakEvents.Event e : r.events()) {
            if (e.kind().equals("restart-trainer-begin")) {
                begin = e.atMs();
            } else if (begin >= 0
                    && (e.kind().equals("restart-trainer") || e.kind().equals("restart-failed"))) {
                long started = e.atMs();
                long firstClose = r.closes().stream()
                        .mapToLong(RoundCloses.Close::atMs)
                        .filter(at -> at >= started)
                        .min()
                        .orElse(Long.MAX_VALUE);
                windows.add(new long[] {begin - LETTER_GOAL_MS, firstClose});
                begin = -1;
            }
        }
        return windows;
    }

    public static SoakReport of(SoakResult result) {
        return new SoakReport(result);
    }

    private List<Goal> judge() {
        List<Goal> g = new ArrayList<>();
        boolean running = result.trainerDown().isEmpty();
        boolean closingAtEnd = last.ms() <= gapBoundMs;
        g.add(new Goal(
                "no permanent stall",
                running && closingAtEnd,
                String.format(
                        Locale.ROOT,
                        "last close %.1f s before the end (bound %.1f s); %s",
                        last.ms() / 1000.0,
                        gapBoundMs / 1000.0,
                        result.trainerDown().orElse("trainer running"))));
        g.add(new Goal(
                "longest gap <= max(10 s, 20 x median round)",
                longest.ms() <= gapBoundMs,
                String.format(Locale.ROOT, "%.1f s, bound %.1f s", longest.ms() / 1000.0, gapBoundMs / 1000.0)));
        long metOpen = forgedJudged().size();
        long inTime = forgedJudged().stream()
                .filter(f -> f.letterMs().isPresent() && f.letterMs().get() <= LETTER_GOAL_MS)
                .count();
        g.add(new Goal(
                "every forged record lettered within 1 s",
                inTime == metOpen,
                String.format(
                        Locale.ROOT,
                        "%d of %d that met an open round or were lettered, outside trainer restarts (%s)",
                        inTime,
                        metOpen,
                        metOpen == 0
                                ? "none met one"
                                : String.format(Locale.ROOT, "%.4f", (double) inTime / metOpen))));
        long unanswered = probesOutside.stream().filter(p -> !p.answered()).count();
        g.add(new Goal(
                "/health always answered",
                unanswered == 0 && !probesOutside.isEmpty(),
                String.format(
                        Locale.ROOT,
                        "%d of %d probes unanswered outside broker restarts",
                        unanswered,
                        probesOutside.size())));
        return g;
    }

    public List<Goal> goals() {
        return goals;
    }

    public boolean goalsHold() {
        return goals.stream().allMatch(Goal::holds);
    }

    public Gap longestGap() {
        return longest;
    }

    public long gapBoundMs() {
        return gapBoundMs;
    }

    public double medianRoundMs() {
        return medianRoundMs;
    }

    /** 1 if the job stopped closing rounds before the end (or its trainer stopped), else 0. */
    public int permanentStalls() {
        return goals.get(0).holds() ? 0 : 1;
    }

    public List<Forged> forged() {
        return List.copyOf(forged);
    }

    /** The forged records the letter goal judges: they met an open round, outside trainer restarts. */
    public List<Forged> forgedJudged() {
        return forged.stream().filter(Forged::judged).toList();
    }

    public Latency letterLatency() {
        return letterLatency;
    }

    public SoakResult result() {
        return result;
    }

    /** The soak's figures and goals as rows of (measure, value). */
    public List<List<String>> rows() {
        SoakResult r = result;
        double seconds = (r.endMs() - r.startMs()) / 1000.0;
        long closed = gaps.size();
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of(
                "soak",
                String.format(
                        Locale.ROOT,
                        "%.0f s, %d agents, seed %d, %d trainers started",
                        seconds,
                        r.settings().agents(),
                        r.settings().seed(),
                        r.trainersStarted())));
        rows.add(List.of("rounds closed", Long.toString(closed)));
        rows.add(List.of("rounds per second", fmt("%.2f", closed / seconds)));
        rows.add(List.of("median round time", fmt("%.1f ms", medianRoundMs)));
        rows.add(List.of(
                "longest gap between closes",
                fmt("%.1f s", longest.ms() / 1000.0) + " after round "
                        + longest.afterRound() + ", from " + fmt("%.1f s", (longest.fromMs() - r.startMs()) / 1000.0)
                        + " to " + fmt("%.1f s", (longest.toMs() - r.startMs()) / 1000.0) + " into the soak"));
        rows.add(List.of("just before it", justBefore(longest)));
        rows.add(List.of("stalls re-driven", r.roundsStalled() + " (trainer counter), " + stalledLetters + " letters"));
        rows.add(List.of("outliers computed / clipped", r.outliers() + " / " + r.clipped()));
        rows.add(List.of(
                "letters by component",
                lettersByComponent.isEmpty()
                        ? "none"
                        : lettersByComponent.entrySet().stream()
                                .map(e -> e.getKey() + " " + e.getValue())
                                .collect(Collectors.joining(", "))));
        rows.add(List.of("letter latency (timestamp_ms)", letterLatency.text()));
        rows.add(List.of("letter latency (published)", publishedLatency.text()));
        rows.add(List.of(
                "letters at trainer start",
                startupLetters + " (of model, optimizer and evaluations records: read only then)"));
        rows.add(List.of(
                "letters of other records",
                foreignLetters
                        + (foreignByComponent.isEmpty()
                                ? ""
                                : " ("
                                        + foreignByComponent.entrySet().stream()
                                                .map(e -> e.getKey() + " " + e.getValue())
                                                .collect(Collectors.joining(", "))
                                        + ")")));
        long forgedLettered =
                forged.stream().filter(f -> f.letterMs().isPresent()).count();
        List<Forged> judged = forgedJudged();
        List<Forged> restarting = forged.stream()
                .filter(f -> f.metOpenRound() && f.trainerRestarting())
                .toList();
        rows.add(List.of(
                "forged records",
                forged.size() + " sent, " + forgedLettered + " lettered; "
                        + judged.size() + " met an open round (outside trainer restarts), "
                        + judged.stream().filter(f -> f.letterMs().isPresent()).count() + " of them lettered, "
                        + judged.stream()
                                .filter(f ->
                                        f.letterMs().isPresent() && f.letterMs().get() <= LETTER_GOAL_MS)
                                .count()
                        + " within 1 s, slowest " + slowest(judged)));
        rows.add(List.of(
                "forged during trainer restarts",
                restarting.size() + " met an open round, "
                        + restarting.stream()
                                .filter(f -> f.letterMs().isPresent())
                                .count() + " lettered, slowest "
                        + slowest(restarting)));
        rows.add(List.of(
                "bad records (live readers)",
                badLetteredLive + " of " + badSentLive + " lettered; "
                        + (r.sent().size() - forged.size() - badSentLive) + " more where nothing reads live"));
        long unanswered = probesOutside.stream().filter(p -> !p.answered()).count();
        long not200 = probesOutside.stream()
                .filter(p -> p.answered() && p.status() != 200)
                .count();
        rows.add(List.of(
                "health probes",
                probesOutside.size() + " (" + unanswered + " unanswered, " + not200 + " not 200), "
                        + probesDuringRestarts + " more during broker restarts"));
        rows.add(List.of(
                "health probe latency",
                probeLatency.n() == 0
                        ? "none"
                        : fmt("p50 %.1f ms", probeLatency.p50()) + fmt(", max %.1f ms", probeLatency.max())));
        rows.add(List.of("slow HTTP clients", r.slowClients().text()));
        rows.add(List.of(
                "disk (Kafka log dir)",
                fmt("%.1f MB at the end", r.diskBytes() / 1e6) + fmt(", max %.1f MB", r.diskMaxBytes() / 1e6)));
        rows.add(List.of(
                "parts at the end",
                r.trainerDown().orElse("trainer running") + "; "
                        + (r.agentsDown().isEmpty() ? "all agents running" : "agents down: " + r.agentsDown())));
        for (Goal goal : goals) {
            rows.add(List.of("goal: " + goal.name(), (goal.holds() ? "PASS" : "FAIL") + " (" + goal.detail() + ")"));
        }
        return rows;
    }

    private static String slowest(List<Forged> forged) {
        return forged.stream()
                .flatMap(f -> f.letterMs().stream())
                .max(Long::compare)
                .map(ms -> ms + " ms")
                .orElse("-");
    }

    /** What the soak did from 10 s before {@code gap} until its end. */
    private String justBefore(Gap gap) {
        List<SoakEvents.Event> before = result.events().stream()
                .filter(e -> e.atMs() >= gap.fromMs() - 10_000 && e.atMs() <= gap.toMs())
                .filter(e -> !e.kind().equals("start") && !e.kind().equals("end"))
                .toList();
        if (before.isEmpty()) {
            return "nothing the soak did";
        }
        return before.stream()
                .map(e -> fmt("%+.1f s ", (e.atMs() - gap.fromMs()) / 1000.0) + e.kind() + " (" + e.detail() + ")")
                .collect(Collectors.joining("; "));
    }

    /** The rows as a plain-text table. */
    public String table() {
        List<List<String>> rows = rows();
        int width = rows.stream().mapToInt(row -> row.get(0).length()).max().orElse(0);
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%-" + width + "s  %s%n", "measure", "value"));
        out.append("-".repeat(width + 40)).append(System.lineSeparator());
        for (List<String> row : rows) {
            out.append(String.format(Locale.ROOT, "%-" + width + "s  %s%n", row.get(0), row.get(1)));
        }
        return out.toString();
    }

    /**
     * Writes into {@code dir}: {@code soak.csv} (the table), {@code soak-rounds.csv} (every close and
     * the gap before it), {@code soak-letters.csv}, {@code soak-forged.csv} (every forged record and
     * its first letter), {@code soak-events.csv}, {@code soak-health.csv}, and {@code soak-gaps.png} (the gap before each close over the soak, and the bound).
     */
    public List<String> write(Path dir) throws IOException {
        Files.createDirectories(dir);
        List<String> lines = new ArrayList<>();
        lines.add("measure,value");
        rows().forEach(row -> lines.add(csv(row.get(0)) + "," + csv(row.get(1))));
        Files.write(dir.resolve("soak.csv"), lines, StandardCharsets.UTF_8);

        List<String> rounds = new ArrayList<>();
        rounds.add("round,closed_s,round_time_ms,gap_before_ms,clipped");
        for (int i = 0; i < gaps.size(); i++) {
            RoundCloses.Close c = counted.get(i);
            rounds.add(c.round() + "," + fmt("%.3f", (c.atMs() - result.startMs()) / 1000.0) + ","
                    + fmt("%.3f", c.roundTimeMs()) + "," + gaps.get(i).ms() + "," + c.clipped());
        }
        Files.write(dir.resolve("soak-rounds.csv"), rounds, StandardCharsets.UTF_8);

        Map<String, SentRecords.Sent> sent = new HashMap<>();
        result.sent().forEach(s -> sent.put(place(s.topic(), s.partition(), s.offset()), s));
        List<String> letters = new ArrayList<>();
        letters.add("at_s,component,source_topic,partition,offset,soak_record,latency_ms,reason");
        for (SoakWatch.Letter l : result.letters()) {
            SentRecords.Sent s = sent.get(place(l.sourceTopic(), l.partition(), l.offset()));
            letters.add(fmt("%.3f", (l.timestampMs() - result.startMs()) / 1000.0) + "," + csv(l.component()) + ","
                    + csv(l.sourceTopic()) + "," + l.partition() + "," + l.offset() + ","
                    + (s == null ? "" : csv(s.what())) + "," + (s == null ? "" : l.timestampMs() - s.timestampMs())
                    + "," + csv(l.reason()));
        }
        Files.write(dir.resolve("soak-letters.csv"), letters, StandardCharsets.UTF_8);

        List<String> events = new ArrayList<>();
        events.add("at_s,kind,detail");
        for (SoakEvents.Event e : result.events()) {
            events.add(
                    fmt("%.3f", (e.atMs() - result.startMs()) / 1000.0) + "," + csv(e.kind()) + "," + csv(e.detail()));
        }
        Files.write(dir.resolve("soak-events.csv"), events, StandardCharsets.UTF_8);

        List<String> health = new ArrayList<>();
        health.add("at_s,latency_ms,status,during_restart,error");
        for (HealthProbe.Probe p : result.probes()) {
            health.add(fmt("%.3f", (p.atMs() - result.startMs()) / 1000.0) + ","
                    + (p.answered() ? fmt("%.2f", p.latencyMs()) : "") + "," + p.status() + "," + p.restarting() + ","
                    + csv(p.error()));
        }
        Files.write(dir.resolve("soak-health.csv"), health, StandardCharsets.UTF_8);

        List<String> forgedLines = new ArrayList<>();
        forgedLines.add(
                "sent_s,topic,partition,offset,what,round,closed_after_ms,met_open_round,trainer_restarting,letter_ms");
        for (Forged f : forged) {
            SentRecords.Sent s = f.record();
            forgedLines.add(fmt("%.3f", (s.timestampMs() - result.startMs()) / 1000.0) + "," + csv(s.topic()) + ","
                    + s.partition() + "," + s.offset() + "," + csv(s.what()) + "," + s.round() + ","
                    + f.closedAfterMs().map(String::valueOf).orElse("") + "," + f.metOpenRound() + ","
                    + f.trainerRestarting() + ","
                    + f.letterMs().map(String::valueOf).orElse(""));
        }
        Files.write(dir.resolve("soak-forged.csv"), forgedLines, StandardCharsets.UTF_8);

        chart(dir.resolve("soak-gaps.png"));
        return List.of(
                "soak.csv",
                "soak-rounds.csv",
                "soak-letters.csv",
                "soak-forged.csv",
                "soak-events.csv",
                "soak-health.csv",
                "soak-gaps.png");
    }

    private void chart(Path file) {
        double[] x = new double[gaps.size()];
        double[] y = new double[gaps.size()];
        for (int i = 0; i < gaps.size(); i++) {
            x[i] = (gaps.get(i).toMs() - result.startMs()) / 60_000.0;
            y[i] = gaps.get(i).ms() / 1000.0;
        }
        double endMinutes = (result.endMs() - result.startMs()) / 60_000.0;
        double bound = gapBoundMs / 1000.0;
        List<LineChart.Curve> curves = List.of(
                new LineChart.Curve("gap before each close", x, y),
                new LineChart.Curve("bound", new double[] {0, endMinutes}, new double[] {bound, bound}));
        ChartFiles.png(
                LineChart.create(
                        "Soak: time between two closed rounds",
                        new LineChart.Axis("minutes into the soak", false),
                        new LineChart.Axis("gap (s)", true),
                        curves,
                        new PolicyColors(
                                curves.stream().map(LineChart.Curve::name).toList())),
                file,
                1000,
                560);
    }

    private static String place(String topic, int partition, long offset) {
        return topic + "-" + partition + "@" + offset;
    }

    private static String fmt(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }

    private static String csv(String s) {
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) {
            return s;
        }
        return '"' + s.replace("\"", "\"\"") + '"';
    }
}
