package io.ata.broker;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ata.schemas.JobState;
import io.ata.schemas.WorkerHeartbeat;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The JSON of the per-job queries {@code /jobs/{job}/stats} and {@code /jobs/{job}/history}, which
 * the live web page ({@link WebPage}) reads. Statistics come from the job's stored {@link JobState}
 * (rebuilt into a {@link JobRuntime}, so the confidence bound is the policy's own), device and
 * status from the membership, rounds from the instance's {@link RoundHistory}.
 *
 * <p>Rebuilding a job restores its policy; the page polls every second or two, so the summaries
 * are kept per job with the state they came from and rebuilt only once the stored state changed
 * (a round allocated or folded, a membership change). Thread-safe: HTTP threads query.
 */
final class JobViews {
    /** Jobs whose summaries are kept; the least recently queried one goes first. */
    static final int MAX_CACHED_JOBS = 256;

    private record Summaries(JobState state, List<WorkerSummary> workers) {}

    private final Map<String, Summaries> cache = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Summaries> eldest) {
            return size() > MAX_CACHED_JOBS;
        }
    };
    private final ObjectMapper json;
    private final BrokerSettings settings;
    private final Function<String, WorkerHeartbeat> heartbeats;
    private final RoundHistory history;

    /**
     * @param heartbeats the last heartbeat of a worker, null if none
     */
    JobViews(
            ObjectMapper json,
            BrokerSettings settings,
            Function<String, WorkerHeartbeat> heartbeats,
            RoundHistory history) {
        this.json = json;
        this.settings = settings;
        this.heartbeats = heartbeats;
        this.history = history;
    }

    /**
     * Per worker: active, tasks observed, mean and sd of task time, the lower confidence bound the
     * policy plans with ({@code lower_bound_ms}, LCB policies only), tasks of the last opened round,
     * and from its last heartbeat status and device. Values without data yet are left out.
     */
    ObjectNode stats(JobState s) {
        ObjectNode out = json.createObjectNode()
                .put("job", s.getJob())
                .put("policy", s.getPolicy())
                .put("last_closed_round", s.getLastClosedRound())
                .put("last_opened_round", s.getLastOpenedRound());
        ArrayNode workers = out.putArray("workers");
        for (WorkerSummary w : workerSummaries(s)) {
            ObjectNode node = workers.addObject()
                    .put("worker", w.worker())
                    .put("active", w.active())
                    .put("tasks", w.tasks());
            putIfKnown(node, "mean_ms", w.meanMs());
            putIfKnown(node, "sd_ms", w.sdMs());
            putIfKnown(node, "lower_bound_ms", w.lowerBoundMs());
            node.put("tasks_this_round", w.tasksThisRound());
            WorkerHeartbeat h = heartbeats.apply(w.worker());
            if (h != null) {
                node.put("status", h.getStatus().name())
                        .put("device", h.getDevice().name())
                        .put("device_name", h.getDeviceName());
            }
        }
        return out;
    }

    /** The summaries of the job in state {@code s}: those kept if the state is the same (equal), else rebuilt. */
    synchronized List<WorkerSummary> workerSummaries(JobState s) {
        Summaries kept = cache.get(s.getJob());
        if (kept == null || !kept.state().equals(s)) {
            kept = new Summaries(
                    s,
                    List.copyOf(JobRuntime.restoreOrRelearn(s, settings, refused -> {})
                            .workerSummaries()));
            cache.put(s.getJob(), kept);
        }
        return kept.workers();
    }

    private static void putIfKnown(ObjectNode node, String field, double value) {
        if (!Double.isNaN(value)) {
            node.put(field, value);
        }
    }

    /**
     * The job's last rounds this instance saw, oldest first: the allocation as a matrix
     * ({@code tasks[r][i]}: tasks of worker {@code workers[i]} in round {@code rounds[r]}), and
     * for closed rounds round time, busy worker time and wasted worker time (late and cancelled
     * tasks), in milliseconds.
     */
    ObjectNode history(JobState s) {
        List<RoundHistory.Round> rounds = history.recent(s.getJob());
        Set<String> workerSet = new LinkedHashSet<>(s.getWorkerIds());
        rounds.forEach(r -> workerSet.addAll(r.tasks().keySet()));
        List<String> workers = new ArrayList<>(workerSet);
        ObjectNode out = json.createObjectNode()
                .put("job", s.getJob())
                .put("policy", s.getPolicy())
                .put("batch", s.getBatch())
                .put("capacity", history.capacity());
        ArrayNode names = out.putArray("workers");
        workers.forEach(names::add);
        ArrayNode list = out.putArray("rounds");
        for (RoundHistory.Round r : rounds) {
            ObjectNode node = list.addObject().put("round", r.round()).put("closed", r.closed());
            ArrayNode tasks = node.putArray("tasks");
            workers.forEach(w -> tasks.add(r.tasks().getOrDefault(w, 0)));
            if (r.closed()) {
                node.put("round_time_ms", r.roundTimeMs())
                        .put("busy_ms", r.busyMs())
                        .put("wasted_ms", r.wastedMs());
            }
        }
        return out;
    }
}
