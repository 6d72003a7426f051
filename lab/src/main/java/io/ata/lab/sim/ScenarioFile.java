package io.ata.lab.sim;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.ata.lab.timinglog.TimingLog;
import io.ata.lab.timinglog.TimingLogReader;
import io.ata.workloads.time.TaskTimeDistribution;
import io.ata.workloads.time.TaskTimeDistribution.Constant;
import io.ata.workloads.time.TaskTimeDistribution.Empirical;
import io.ata.workloads.time.TaskTimeDistribution.Exponential;
import io.ata.workloads.time.TaskTimeDistribution.Gamma;
import io.ata.workloads.time.TaskTimeDistribution.HalfNormal;
import io.ata.workloads.time.TaskTimeDistribution.LogNormal;
import io.ata.workloads.time.TaskTimeDistribution.Shifted;
import io.ata.workloads.time.TaskTimeDistribution.Uniform;
import io.ata.workloads.time.TimeSchedule;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Loads a user-defined fleet (a {@link Scenario}) from a YAML ({@code .yaml}, {@code .yml}) or
 * JSON ({@code .json}) file, so that simulations are not limited to the paper's time models:
 * <pre>
 * unit: ms                 # optional: the unit of the times, named in the charts and tables
 * groups:
 *   - name: gpu            # workers gpu-1..gpu-8
 *     count: 8
 *     time: {family: shifted-exponential, shift: 20, mean: 20}   # shift + Exp(mean)
 *   - name: replayed
 *     count: 2
 *     time: {family: empirical, log: timings.csv, worker: w7}
 * workers:                 # optional single workers
 *   - name: special
 *     time: {family: constant, value: 100}
 *   - name: drifting       # a fleet that changes over time
 *     time: {family: exponential, mean: 10}
 *     changes:             # from round 2001 on: 10x slower
 *       - {after_round: 2000, time: {family: exponential, mean: 100}}
 *     join_after_round: 100     # takes part from round 101 ...
 *     leave_after_round: 9000   # ... through round 9000
 * </pre>
 *
 * <p>Families and their parameters; the parameters describe the random part, and every family also
 * takes an optional {@code shift} (default 0) added to each draw, so a worker's mean is
 * {@code shift} plus the family's mean:
 * <ul>
 *   <li>{@code constant}: {@code value};</li>
 *   <li>{@code exponential}: {@code mean};</li>
 *   <li>{@code shifted-exponential}: {@code shift} (required here) and {@code mean} of the
 *       exponential part;</li>
 *   <li>{@code uniform}: {@code min}, {@code max};</li>
 *   <li>{@code half-normal}: {@code sigma} (of the normal before folding);</li>
 *   <li>{@code log-normal}: either {@code mean} and {@code sd}, or {@code mu} and {@code sigma}
 *       of the logarithm;</li>
 *   <li>{@code gamma}: {@code shape} with either {@code scale} or {@code mean};</li>
 *   <li>{@code empirical}: {@code log}, a timing log (path relative to the scenario file) read by
 *       {@link TimingLogReader}, and optional {@code worker}: that worker's durations, or if absent
 *       all durations of the log pooled.</li>
 * </ul>
 * A group named {@code g} with {@code count: n} gives workers {@code g-1..g-n}; a single worker is
 * named by its {@code name}. Workers are numbered in file order. A group or worker may change
 * over time ({@link TimeSchedule}): {@code changes} lists {@code after_round} (an integer >= 0,
 * increasing down the list) and {@code time} (a new distribution from the next round on);
 * {@code join_after_round} (default 0) and {@code leave_after_round} (default: never, and greater
 * than {@code join_after_round}) bound the rounds it takes part in. Duplicate names, unknown keys (to
 * catch typos), unknown families and missing or out-of-range parameters are errors whose message
 * names the file, the group or worker, and the parameter.
 */
public final class ScenarioFile {

    /** The known distribution families. */
    /** The longest time unit name accepted: it goes into axis labels. */
    static final int MAX_UNIT_LENGTH = 20;

    public static final List<String> FAMILIES = List.of(
            "constant",
            "exponential",
            "shifted-exponential",
            "uniform",
            "half-normal",
            "log-normal",
            "gamma",
            "empirical");

    private static final Map<String, Set<String>> PARAMETERS = Map.of(
            "constant", Set.of("value"),
            "exponential", Set.of("mean"),
            "shifted-exponential", Set.of("mean"),
            "uniform", Set.of("min", "max"),
            "half-normal", Set.of("sigma"),
            "log-normal", Set.of("mean", "sd", "mu", "sigma"),
            "gamma", Set.of("shape", "scale", "mean"),
            "empirical", Set.of("log", "worker"));

    private final Path file;
    private final Map<Path, TimingLog> logs = new HashMap<>(); // a log named by several groups is read once
    private final Map<String, String> owners = new HashMap<>(); // worker name -> who defined it
    private final List<String> names = new ArrayList<>();
    private String unit; // null: the file does not say
    private final List<TimeSchedule> schedules = new ArrayList<>();

    private ScenarioFile(Path file) {
        this.file = file;
    }

    /**
     * Reads a scenario file.
     *
     * @throws IllegalArgumentException if the file is malformed, with a message naming the file,
     *                                  the group or worker, and the bad key or parameter
     * @throws UncheckedIOException     if the file cannot be read
     */
    public static Scenario load(Path path) {
        return new ScenarioFile(path).parse();
    }

    private Scenario parse() {
        JsonNode root = readTree();
        if (root == null || root.isMissingNode() || root.isNull()) {
            throw fail("the file is empty; it needs 'groups' and/or 'workers'");
        }
        if (!root.isObject()) {
            throw fail("the top level must be a mapping with 'groups' and/or 'workers'");
        }
        for (Map.Entry<String, JsonNode> e : root.properties()) { // in file order
            switch (e.getKey()) {
                case "groups" -> forEachElement(e.getValue(), "groups", this::group);
                case "workers" -> forEachElement(e.getValue(), "workers", this::worker);
                case "unit" -> unit = unit(e.getValue());
                default -> throw fail("unknown top-level key '" + e.getKey() + "'; allowed: unit, groups, workers");
            }
        }
        if (names.isEmpty()) {
            throw fail("the scenario defines no workers");
        }
        return new Scenario(names, schedules.toArray(TimeSchedule[]::new), unit);
    }

    /** A short name for a unit of time: words, no line breaks (it goes into axis labels). */
    private String unit(JsonNode node) {
        String text = node.isTextual() ? node.asText().strip() : "";
        if (text.isEmpty() || text.length() > MAX_UNIT_LENGTH || !text.matches("[\\p{L}\\p{N} ._/-]+")) {
            throw fail("'unit' must be a short name such as ms, s or 'time units' (at most " + MAX_UNIT_LENGTH
                    + " letters, digits, spaces, '.', '_', '/', '-'); got " + node);
        }
        return text;
    }

    private JsonNode readTree() {
        String name =
                file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
        JsonFactory factory;
        if (name.endsWith(".yaml") || name.endsWith(".yml")) {
            factory = new YAMLFactory();
        } else if (name.endsWith(".json")) {
            factory = new JsonFactory();
        } else {
            throw fail("cannot tell the format from the extension; use .yaml, .yml or .json");
        }
        ObjectMapper mapper = new ObjectMapper(factory).enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
        try {
            return mapper.readTree(file.toFile());
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            String where = at == null || at.getLineNr() < 1 ? "" : "line " + at.getLineNr() + ": ";
            throw fail(where + e.getOriginalMessage());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read scenario file " + file, e);
        }
    }

    private interface ElementParser {
        void parse(JsonNode element, int position);
    }

    private void forEachElement(JsonNode list, String key, ElementParser parser) {
        if (list.isNull()) {
            return; // "workers:" with nothing under it
        }
        if (!list.isArray()) {
            throw fail("'" + key + "' must be a list");
        }
        for (int i = 0; i < list.size(); i++) {
            parser.parse(list.get(i), i + 1);
        }
    }

    private void group(JsonNode node, int position) {
        String where = "group #" + position;
        requireObject(node, where);
        String name = name(node, where);
        where = "group '" + name + "'";
        checkKeys(node, where, withScheduleKeys("name", "count", "time"));
        JsonNode countNode = node.get("count");
        if (countNode == null || countNode.isNull()) {
            throw fail(where + ": missing 'count'");
        }
        if (!countNode.canConvertToExactIntegral() || !countNode.canConvertToInt() || countNode.intValue() < 1) {
            throw fail(where + ": count must be an integer >= 1, was " + countNode);
        }
        TimeSchedule d = schedule(node, where);
        for (int j = 1; j <= countNode.intValue(); j++) {
            add(name + "-" + j, d, where);
        }
    }

    private void worker(JsonNode node, int position) {
        String where = "worker #" + position;
        requireObject(node, where);
        String name = name(node, where);
        where = "worker '" + name + "'";
        checkKeys(node, where, withScheduleKeys("name", "time"));
        add(name, schedule(node, where), where);
    }

    private static Set<String> withScheduleKeys(String... keys) {
        List<String> all = new ArrayList<>(List.of(keys));
        all.addAll(List.of("changes", "join_after_round", "leave_after_round"));
        return Set.copyOf(all);
    }

    /** The distribution under {@code time:} with its {@code changes} and the rounds the worker takes part in. */
    private TimeSchedule schedule(JsonNode node, String where) {
        TaskTimeDistribution initial = time(node, where);
        List<TimeSchedule.Change> changes = new ArrayList<>();
        JsonNode list = node.get("changes");
        if (list != null && !list.isNull()) {
            if (!list.isArray()) {
                throw fail(where + ": 'changes' must be a list of {after_round: R, time: {...}}");
            }
            long previous = -1;
            for (int i = 0; i < list.size(); i++) {
                String at = where + ": change #" + (i + 1);
                JsonNode change = list.get(i);
                requireObject(change, at);
                checkKeys(change, at, Set.of("after_round", "time"));
                long after = round(change, "after_round", at, -1);
                if (after < 0) {
                    throw fail(at + ": missing 'after_round' (the last round of the previous distribution)");
                }
                if (after <= previous) {
                    throw fail(at + ": after_round " + after + " must be greater than the previous change's " + previous
                            + " (list changes in round order)");
                }
                previous = after;
                changes.add(new TimeSchedule.Change(after, time(change, at)));
            }
        }
        long join = round(node, "join_after_round", where, 0);
        long leave = round(node, "leave_after_round", where, TimeSchedule.NEVER);
        if (leave <= join) {
            throw fail(where + ": leave_after_round (" + leave + ") must be greater than join_after_round (" + join
                    + "), or the worker never takes part");
        }
        return new TimeSchedule(initial, changes, join, leave);
    }

    /** A round number under {@code key}: an integer >= 0, or {@code otherwise} if absent. */
    private long round(JsonNode node, String key, String where, long otherwise) {
        JsonNode v = node.get(key);
        if (v == null || v.isNull()) {
            return otherwise;
        }
        if (!v.canConvertToExactIntegral() || !v.canConvertToLong() || v.longValue() < 0) {
            throw fail(where + ": " + key + " must be an integer >= 0 (a round number), was " + v);
        }
        return v.longValue();
    }

    private void add(String workerName, TimeSchedule d, String where) {
        String owner = owners.putIfAbsent(workerName, where);
        if (owner != null) {
            String earlier = owner.equals(where) ? "an earlier " : "";
            throw fail(where + ": worker name '" + workerName + "' is already used by " + earlier + owner);
        }
        names.add(workerName);
        schedules.add(d);
    }

    private String name(JsonNode node, String where) {
        JsonNode n = node.get("name");
        if (n == null || n.isNull()) {
            throw fail(where + ": missing 'name'");
        }
        if (!n.isValueNode() || n.asText().isBlank()) {
            throw fail(where + ": name must be a non-empty text, was " + n);
        }
        return n.asText().strip();
    }

    /** The distribution under {@code time:}, shift included. */
    private TaskTimeDistribution time(JsonNode owner, String where) {
        JsonNode t = owner.get("time");
        if (t == null || t.isNull()) {
            throw fail(where + ": missing 'time' (a mapping with 'family' and its parameters)");
        }
        where = where + ": time";
        requireObject(t, where);
        JsonNode familyNode = t.get("family");
        if (familyNode == null || !familyNode.isTextual()) {
            throw fail(where + ": missing 'family'; known: " + String.join(", ", FAMILIES));
        }
        String family = familyNode.textValue().strip().toLowerCase(Locale.ROOT).replace('_', '-');
        Set<String> parameters = PARAMETERS.get(family);
        if (parameters == null) {
            throw fail(
                    where + ": unknown family '" + familyNode.textValue() + "'; known: " + String.join(", ", FAMILIES));
        }
        List<String> allowed = new ArrayList<>(List.of("family", "shift"));
        parameters.stream().sorted().forEach(allowed::add);
        checkKeys(t, where + " (family " + family + ")", Set.copyOf(allowed));

        Params p = new Params(t, where + " (family " + family + ")", family);
        double shift = family.equals("shifted-exponential") ? p.required("shift") : p.optional("shift", 0);
        p.nonNegative("shift", shift);
        TaskTimeDistribution base = switch (family) {
            case "constant" -> new Constant(p.nonNegative("value", p.required("value")));
            case "exponential", "shifted-exponential" -> new Exponential(p.positive("mean", p.required("mean")));
            case "uniform" -> {
                double min = p.nonNegative("min", p.required("min"));
                double max = p.required("max");
                if (max < min) {
                    throw fail(p.where + ": max (" + max + ") must be >= min (" + min + ")");
                }
                yield new Uniform(min, max);
            }
            case "half-normal" -> new HalfNormal(p.positive("sigma", p.required("sigma")));
            case "log-normal" -> logNormal(p);
            case "gamma" -> gamma(p);
            case "empirical" -> empirical(t, p.where);
            default -> throw new IllegalStateException(family); // PARAMETERS and this switch disagree
        };
        return shift > 0 || family.equals("shifted-exponential") ? new Shifted(shift, base) : base;
    }

    private TaskTimeDistribution logNormal(Params p) {
        boolean byMean = p.has("mean") || p.has("sd");
        boolean byLog = p.has("mu") || p.has("sigma");
        if (byMean && byLog) {
            throw fail(p.where + ": give either mean and sd, or mu and sigma, not both");
        }
        if (byLog) {
            return new LogNormal(p.required("mu"), p.positive("sigma", p.required("sigma")));
        }
        if (!byMean) {
            throw fail(p.where + ": family 'log-normal' needs parameters 'mean' and 'sd' (or 'mu' and 'sigma')");
        }
        return LogNormal.ofMeanAndSd(p.positive("mean", p.required("mean")), p.positive("sd", p.required("sd")));
    }

    private TaskTimeDistribution gamma(Params p) {
        double shape = p.positive("shape", p.required("shape"));
        if (p.has("scale") && p.has("mean")) {
            throw fail(p.where + ": give either scale or mean with shape, not both");
        }
        if (p.has("mean")) {
            return new Gamma(shape, p.positive("mean", p.required("mean")) / shape);
        }
        if (!p.has("scale")) {
            throw fail(p.where + ": family 'gamma' needs parameter 'scale' (or 'mean')");
        }
        return new Gamma(shape, p.positive("scale", p.required("scale")));
    }

    private TaskTimeDistribution empirical(JsonNode t, String where) {
        JsonNode logNode = t.get("log");
        if (logNode == null || !logNode.isTextual() || logNode.textValue().isBlank()) {
            throw fail(where + ": family 'empirical' needs parameter 'log' (the path of a timing log)");
        }
        String logName = logNode.textValue().strip();
        Path dir = file.toAbsolutePath().getParent();
        Path logPath = (dir == null ? Path.of(logName) : dir.resolve(logName)).normalize();
        TimingLog log = logs.get(logPath);
        if (log == null) {
            try {
                log = TimingLogReader.read(logPath);
            } catch (IllegalArgumentException | UncheckedIOException e) {
                throw fail(where + ": cannot read log '" + logName + "': " + e.getMessage());
            }
            logs.put(logPath, log);
        }
        JsonNode workerNode = t.get("worker");
        if (workerNode == null || workerNode.isNull()) {
            return new Empirical(log.allDurations(), logName + " (all workers)");
        }
        if (!workerNode.isTextual() && !workerNode.isIntegralNumber()) {
            throw fail(where + ": worker must be a worker id (text or integer), was " + workerNode);
        }
        String id = workerNode.asText();
        int w = log.indexOf(id);
        if (w < 0) {
            List<String> ids = log.workerIds();
            String known = ids.size() <= 20
                    ? String.join(", ", ids)
                    : String.join(", ", ids.subList(0, 20)) + ", ... (" + ids.size() + " workers)";
            throw fail(where + ": worker '" + id + "' is not in log '" + logName + "'; its workers: " + known);
        }
        if (log.durationCount(w) == 0) {
            throw fail(where + ": worker '" + id + "' has no usable duration in log '" + logName
                    + "' (all its records were cancelled)");
        }
        return new Empirical(log.durations(w), logName + " worker " + id);
    }

    private void requireObject(JsonNode node, String where) {
        if (node == null || !node.isObject()) {
            throw fail(where + ": expected a mapping, was " + node);
        }
    }

    private void checkKeys(JsonNode node, String where, Set<String> allowed) {
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!allowed.contains(key)) {
                throw fail(where + ": unknown key '" + key + "'; allowed: "
                        + String.join(", ", allowed.stream().sorted().toList()));
            }
        }
    }

    private IllegalArgumentException fail(String message) {
        return new IllegalArgumentException(file + ": " + message);
    }

    /** Numeric parameters of one {@code time:} mapping, with errors that name the parameter. */
    private final class Params {
        final JsonNode node;
        final String where;
        final String family;

        Params(JsonNode node, String where, String family) {
            this.node = node;
            this.where = where;
            this.family = family;
        }

        boolean has(String key) {
            JsonNode v = node.get(key);
            return v != null && !v.isNull();
        }

        double required(String key) {
            if (!has(key)) {
                throw fail(where + ": family '" + family + "' needs parameter '" + key + "'");
            }
            return number(key);
        }

        double optional(String key, double otherwise) {
            return has(key) ? number(key) : otherwise;
        }

        private double number(String key) {
            JsonNode v = node.get(key);
            double x;
            if (v.isNumber()) {
                x = v.doubleValue();
            } else if (v.isTextual()) {
                try {
                    x = Double.parseDouble(v.textValue().strip());
                } catch (NumberFormatException e) {
                    throw fail(where + ": parameter '" + key + "' must be a number, was '" + v.textValue() + "'");
                }
            } else {
                throw fail(where + ": parameter '" + key + "' must be a number, was " + v);
            }
            if (!Double.isFinite(x)) {
                throw fail(where + ": parameter '" + key + "' must be finite, was " + v.asText());
            }
            return x;
        }

        double positive(String key, double x) {
            if (!(x > 0)) {
                throw fail(where + ": parameter '" + key + "' must be > 0, was " + x);
            }
            return x;
        }

        double nonNegative(String key, double x) {
            if (x < 0) {
                throw fail(where + ": parameter '" + key + "' must be >= 0, was " + x);
            }
            return x;
        }
    }
}
