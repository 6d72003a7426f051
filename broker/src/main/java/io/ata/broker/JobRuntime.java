package io.ata.broker;

import io.ata.allocation.RoundOutcome;
import io.ata.allocation.RoundPlan;
import io.ata.allocation.TaskDeadlines;
import io.ata.allocation.WorkerStats;
import io.ata.allocation.policy.AllocationPolicy;
import io.ata.allocation.policy.ConfidenceWidth;
import io.ata.allocation.policy.EstimatedRelativeWidth;
import io.ata.allocation.policy.LcbPolicy;
import io.ata.allocation.policy.LearnedParts;
import io.ata.allocation.policy.PolicyContext;
import io.ata.allocation.policy.PolicyFactory;
import io.ata.allocation.policy.PolicyState;
import io.ata.allocation.policy.SplitPolicyState;
import io.ata.schemas.AllocationEntry;
import io.ata.schemas.ComputeTime;
import io.ata.schemas.EtaEstimatorState;
import io.ata.schemas.JobState;
import io.ata.schemas.JobWorkerState;
import io.ata.schemas.LearnedState;
import io.ata.schemas.ModelVersions;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TimingStatus;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.schemas.chunk.Chunks;
import io.ata.workloads.TaskIds;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The broker's live view of one job: the worker index, the statistics and the policy, built from
 * (and saved back to) the job's {@link JobState} in the state store.
 *
 * <p>Everything here is plain Java over the same policy classes the simulator runs; the Kafka
 * Streams processor only decodes records, calls these methods and stores the snapshot.
 */
public final class JobRuntime {
    /**
     * Added to every task deadline the policy learns (ms): the control overhead live, between an
     * agent finishing a task and the trainer reading it (a transaction per task: 10 to 60 ms on the
     * 2-core machine measured, where 50 ms still made every other round back up a healthy agent's
     * task), so that a delivery hiccup is not a slow worker.
     */
    public static final double DEADLINE_FLOOR_MS = 100;

    /**
     * The most backup copies one task gets in a round, besides its original: a copy that is itself
     * stuck gets another, but a flood of OVERDUE events cannot multiply the round's work.
     */
    public static final int MAX_COPIES_PER_TASK = 3;

    private static final int[] NO_PARTITIONS = {};
    private static final byte[] NO_BYTES = {};

    private final String job;
    private final String policyName;
    private final int batch;
    private final long seed;
    private final BrokerSettings settings;
    private final List<String> workerIds = new ArrayList<>();
    private final Map<String, Integer> indexOf = new HashMap<>();
    private final WorkerStats stats = new WorkerStats(0);
    /** Per worker index: COMPLETED and LATE timings folded since the job began (stats may restart). */
    private final List<Long> observed = new ArrayList<>();

    private final AllocationPolicy policy;
    /** What the store holds of each worker's part: {@link #partsToStore} writes only those that differ. */
    private final StoredWorkerParts storedParts = new StoredWorkerParts();
    /** The learned state's chunks as the store holds them, by index: {@link #partsToStore} writes those that differ. */
    private final Map<Integer, byte[]> storedChunks = new HashMap<>();
    /** The roster's chunks as the store holds them, by index, the same way. */
    private final Map<Integer, byte[]> storedRosterChunks = new HashMap<>();
    /** How many workers the stored roster names, and in how many chunks: it changes only when a worker joins. */
    private int rosterWorkers;

    private int rosterChunks;
    /** The learned part of a worker the job has not observed (see {@link #freshPart}); null until needed. */
    private byte[] freshPart;
    /** Per worker index: the task partitions of its last heartbeat, sorted; shared, never changed. */
    private int[][] ownedPartitions = new int[0][];

    private long lastOpenedRound;
    private long lastClosedRound;
    /** When the broker last handled a round event of the job (wall clock, ms; 0: see {@link #lastEventMs()}). */
    private long lastEventMs;
    /** {@link #lastEventMs} as last written to (or read from) the store. */
    private long storedEventMs;

    private long pendingRound;
    private long pendingModelVersion;
    private List<AllocationEntry> lastAllocation = List.of();
    /**
     * Pipelined allocation: the round after the open one, planned and emitted when the open round
     * opened (0: none), and its assignments. Its OPENED event takes them over unchanged.
     */
    private long aheadRound;

    private List<AllocationEntry> aheadAllocation = List.of();
    /** When the open round was allocated (this instance's clock; not saved: only backups use it). */
    private long allocatedAtMs;
    /**
     * Per task of the open round that got copies: the holders (its original worker, or a copy's)
     * whose overdue report sent a copy elsewhere, in order (not saved: the copies themselves are,
     * in {@link #lastAllocation}).
     */
    private final Map<String, Set<String>> copiedFor = new LinkedHashMap<>();
    /**
     * Per worker reported overdue in the open round: how long it had been quiet and when that was
     * noticed, round-relative ms, from its first report (not saved).
     */
    private final Map<String, double[]> overdueSince = new HashMap<>();

    private JobRuntime(
            String job, String policyName, int batch, long seed, BrokerSettings settings, List<String> workers) {
        if (batch <= 0) {
            throw new IllegalArgumentException("job " + job + ": batch must be > 0, was " + batch);
        }
        PolicyFactory.parseList(policyName); // rejects unknown names with the list of known ones
        this.job = job;
        this.policyName = policyName;
        this.batch = batch;
        this.seed = seed;
        this.settings = settings;
        for (String w : workers) {
            indexOf(w);
        }
        this.policy = PolicyFactory.create(policyName, context(), seed, stats);
    }

    /** A new job, from the OPENED event of its first round. */
    public static JobRuntime create(RoundEvent opened, BrokerSettings settings) {
        String policyName = opened.getPolicy().isEmpty() ? settings.defaultPolicy() : opened.getPolicy();
        return new JobRuntime(opened.getJob(), policyName, opened.getBatch(), opened.getSeed(), settings, List.of());
    }

    /**
     * The job as it was saved: same statistics, same learned state, same choices from here on.
     *
     * @throws IllegalArgumentException if the state is malformed, or its policy refuses its learned
     *     state (another policy's, a version this build cannot read, corrupt bytes)
     */
    public static JobRuntime restore(JobState state, BrokerSettings settings) {
        return restore(JobStateParts.whole(state), settings);
    }

    /**
     * As {@link #restore(JobState, BrokerSettings)}, for a job stored in parts ({@link JobStateParts}):
     * its record, its worker records and its learned state's chunks, every one read. Its workers
     * are inactive until {@link #syncMembership}: liveness is the membership's, not stored (a
     * whole record, a query's snapshot or one an earlier broker stored, keeps what it carries).
     */
    public static JobRuntime restore(JobStateParts stored, BrokerSettings settings) {
        JobRuntime runtime = restoreStatistics(stored, settings);
        runtime.restoreLearnedState(stored);
        return runtime;
    }

    /**
     * As {@link #restore}, except that a learned state the policy refuses is dropped instead of
     * failing the job: {@code refused} is told why, and the job continues over its restored
     * statistics with a policy built afresh (learning its width, drift, probation and overheads
     * again), never with a half-restored one. Everything else that is malformed still throws.
     */
    public static JobRuntime restoreOrRelearn(
            JobState state, BrokerSettings settings, Consumer<IllegalArgumentException> refused) {
        return restoreOrRelearn(JobStateParts.whole(state), settings, refused);
    }

    /** {@link #restoreOrRelearn(JobState, BrokerSettings, Consumer)} of a job stored in parts. */
    public static JobRuntime restoreOrRelearn(
            JobStateParts stored, BrokerSettings settings, Consumer<IllegalArgumentException> refused) {
        JobRuntime runtime = restoreStatistics(stored, settings);
        try {
            runtime.restoreLearnedState(stored);
            return runtime;
        } catch (IllegalArgumentException e) {
            refused.accept(e);
            return restoreStatistics(stored, settings);
        }
    }

    /** The job's statistics, membership and rounds as saved, under a freshly built policy. */
    private static JobRuntime restoreStatistics(JobStateParts stored, BrokerSettings settings) {
        JobState state = stored.job();
        List<String> roster = roster(stored);
        SortedMap<Integer, JobWorkerState> workers = stored.workers();
        if (roster == null
                && (state.getWorkersApart() != workers.size()
                        || (!workers.isEmpty() && workers.lastKey() != workers.size() - 1))) {
            throw new IllegalArgumentException("job " + state.getJob() + ": its record has " + state.getWorkersApart()
                    + " worker record(s) apart, " + workers.size() + " were read");
        }
        int inline = state.getWorkerIds().size();
        if (state.getCount().size() != inline
                || state.getSum().size() != inline
                || state.getSumSquares().size() != inline
                || state.getSumCubes().size() != inline
                || state.getCensored().size() != inline) {
            throw new IllegalArgumentException(
                    "job " + state.getJob() + ": statistics of another length than its " + inline + " worker(s)");
        }
        if (!workers.isEmpty() && !state.getWorkerIds().isEmpty()) {
            throw new IllegalArgumentException(
                    "job " + state.getJob() + ": workers both in its record and in worker records apart");
        }
        List<String> ids;
        if (roster != null) {
            ids = roster;
        } else if (workers.isEmpty()) {
            ids = state.getWorkerIds();
        } else {
            ids = workers.values().stream().map(JobWorkerState::getWorkerId).toList();
        }
        // the workers take indexes 0..n-1 in the saved order, before the policy is built: the
        // indexes its learned state speaks of
        JobRuntime runtime =
                new JobRuntime(state.getJob(), state.getPolicy(), state.getBatch(), state.getSeed(), settings, ids);
        if (runtime.workerIds.size() != ids.size()) {
            throw new IllegalArgumentException("job " + state.getJob() + ": a worker stored twice");
        }
        WorkerStats s = runtime.stats;
        if (workers.isEmpty() && roster == null) {
            for (int i = 0; i < ids.size(); i++) {
                s.restore(
                        i,
                        state.getCount().get(i),
                        state.getSum().get(i),
                        state.getSumSquares().get(i),
                        state.getSumCubes().get(i),
                        state.getCensored().get(i));
                s.setActive(i, i < state.getActive().size() && state.getActive().get(i));
                runtime.observed.set(
                        i,
                        i < state.getObserved().size()
                                ? state.getObserved().get(i)
                                : state.getCount().get(i));
            }
        } else {
            for (int i = 0; i < ids.size(); i++) {
                JobWorkerState w = workers.get(i);
                if (w == null) { // not observed: a fresh worker, as the roster's index made it
                    runtime.storedParts.stored(i, s, 0, StoredWorkerParts.UNKNOWN_CHANGES, runtime.freshPart());
                    continue;
                }
                if (!w.getWorkerId().equals(ids.get(i))) {
                    throw new IllegalArgumentException("job " + state.getJob() + ": worker record " + i + " is of "
                            + w.getWorkerId() + ", its roster names " + ids.get(i));
                }
                // inactive until the caller syncs the membership: liveness is not stored in parts
                s.restore(i, w.getCount(), w.getSum(), w.getSumSquares(), w.getSumCubes(), w.getCensored());
                runtime.observed.set(i, w.getObserved());
                // what the store holds: the next store writes only what changes from here
                runtime.storedParts.stored(
                        i, s, w.getObserved(), StoredWorkerParts.UNKNOWN_CHANGES, Chunks.bytesOf(w.getLearned()));
            }
            if (roster != null) {
                stored.rosterChunks().forEach(runtime.storedRosterChunks::put);
                runtime.rosterWorkers = roster.size();
                runtime.rosterChunks = state.getRosterChunks();
            }
        }
        runtime.lastOpenedRound = state.getLastOpenedRound();
        runtime.lastClosedRound = state.getLastClosedRound();
        runtime.lastEventMs = state.getLastEventMs();
        runtime.storedEventMs = state.getLastEventMs();
        runtime.pendingRound = state.getPendingRound();
        runtime.pendingModelVersion = state.getPendingModelVersion();
        runtime.lastAllocation = List.copyOf(state.getLastAllocation());
        runtime.aheadRound = state.getAheadRound();
        runtime.aheadAllocation = List.copyOf(state.getAheadAllocation());
        stored.learnedChunks().forEach((i, chunk) -> runtime.storedChunks.put(i, chunk));
        return runtime;
    }

    /**
     * The ids of the job's workers in its stored roster, in index order, as many as its record
     * says it has; null for a job stored without one. (Worker records of an index beyond them are
     * not read: a query may see those of a worker that joined while it read.)
     *
     * @throws IllegalArgumentException if a chunk is missing or the roster does not begin with as
     *     many workers as the record says (a worker named twice is refused by the caller)
     */
    private static List<String> roster(JobStateParts stored) {
        JobState state = stored.job();
        int chunks = state.getRosterChunks();
        if (chunks == 0) {
            return null;
        }
        try {
            return JobRoster.decode(
                    joinChunks(stored.rosterChunks(), chunks, state.getJob(), "roster"), state.getWorkersApart());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "job " + state.getJob() + ": its roster of " + state.getWorkersApart() + " worker(s): "
                            + e.getMessage(),
                    e);
        }
    }

    /**
     * The learned part of a worker the job has not observed: what a fresh policy of the job's
     * holds for its one worker. A worker whose part is this, with no statistics, has no record of
     * its own; one whose part is anything else has, so a policy that sets a newcomer's part
     * otherwise costs records, never a wrong restore.
     */
    private byte[] freshPart() {
        if (freshPart == null) {
            PolicyContext one = context(new double[] {Double.NaN}); // a worker without a configured mean
            freshPart = PolicyFactory.create(policyName, one, seed, new WorkerStats(1))
                    .splitLearnedState()
                    .map(split -> split.workers().get(0))
                    .orElse(NO_BYTES);
        }
        return freshPart;
    }

    /** Whether worker {@code i} is as fresh as it joined, with learned part {@code part}: nothing observed. */
    private boolean unobserved(int i, byte[] part) {
        return stats.count(i) == 0
                && observed.get(i) == 0
                && Double.doubleToRawLongBits(stats.sum(i)) == 0
                && Double.doubleToRawLongBits(stats.sumSquares(i)) == 0
                && Double.doubleToRawLongBits(stats.sumCubes(i)) == 0
                && Double.doubleToRawLongBits(stats.censoredTime(i)) == 0
                && Arrays.equals(part, freshPart());
    }

    private void restoreLearnedState(JobStateParts stored) {
        JobState state = stored.job();
        LearnedState learned = state.getLearnedState();
        if (learned != null && learned.getSplit()) {
            List<byte[]> parts = new ArrayList<>(workerIds.size());
            for (int i = 0; i < workerIds.size(); i++) {
                JobWorkerState w = stored.workers().get(i);
                parts.add(w == null ? freshPart() : Chunks.bytesOf(w.getLearned()));
            }
            PolicyState shared = new PolicyState(learned.getPolicy(), learned.getVersion(), learnedBytes(stored));
            policy.restoreSplitLearnedState(new SplitPolicyState(shared, parts));
        } else if (learned != null) {
            policy.restoreLearnedState(
                    new PolicyState(learned.getPolicy(), learned.getVersion(), learnedBytes(stored)));
        } else if (state.getEstimator() != null) {
            policy.restoreLearnedState(fromEstimatorField(state.getPolicy(), state.getEstimator()));
        }
    }

    /**
     * The bytes of the stored learned state: in the record, or its chunks put back together.
     *
     * @throws IllegalArgumentException if a chunk is missing
     */
    private static byte[] learnedBytes(JobStateParts stored) {
        LearnedState learned = stored.job().getLearnedState();
        int chunks = learned.getChunks();
        if (chunks == 0) {
            return Chunks.bytesOf(learned.getBytes());
        }
        return joinChunks(stored.learnedChunks(), chunks, stored.job().getJob(), "learned state");
    }

    /**
     * The bytes of {@code what}, stored in {@code count} chunks, put back together.
     *
     * @throws IllegalArgumentException if a chunk is missing
     */
    private static byte[] joinChunks(SortedMap<Integer, byte[]> chunks, int count, String job, String what) {
        if (chunks.size() != count || chunks.lastKey() != count - 1) {
            throw new IllegalArgumentException(
                    "job " + job + ": its " + what + " has " + count + " chunk(s), " + chunks.size() + " were read");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(count * JobStateParts.CHUNK_BYTES);
        chunks.values().forEach(out::writeBytes);
        return out.toByteArray();
    }

    /**
     * The job's state as the broker stores it ({@link JobStateParts}): its record, the records of
     * the workers whose part changed since the last call (or the restore), and the chunks that
     * changed, which from then on count as stored. A worker that joined and has not been observed
     * gets no record: the roster names it. The caller writes them at once: a write that fails
     * fails the stream task, whose jobs are then read from the store again.
     */
    public JobStateParts partsToStore() {
        int n = workerIds.size();
        LearnedParts learnedParts = policy.learnedParts().orElse(null);
        SortedMap<Integer, byte[]> changedRoster = new TreeMap<>();
        if (rosterWorkers != n) {
            rosterChunks = cutIntoChunks(JobRoster.encode(workerIds), storedRosterChunks, changedRoster);
            rosterWorkers = n;
        }
        SortedMap<Integer, byte[]> changedChunks = new TreeMap<>();
        LearnedState learned = Optional.ofNullable(learnedParts)
                .map(LearnedParts::shared)
                .or(policy::learnedState)
                .map(p -> LearnedState.newBuilder()
                        .setPolicy(p.policy())
                        .setVersion(p.version())
                        .setBytes(ByteBuffer.wrap(NO_BYTES))
                        .setChunks(cutIntoChunks(p.bytes(), storedChunks, changedChunks))
                        .setSplit(learnedParts != null)
                        .build())
                .orElse(null);
        JobState record = jobRecord()
                .setWorkersApart(n)
                .setRosterChunks(rosterChunks)
                .setActive(List.of())
                .setWorkerIds(List.of())
                .setCount(List.of())
                .setSum(List.of())
                .setSumSquares(List.of())
                .setSumCubes(List.of())
                .setCensored(List.of())
                .setObserved(List.of())
                .setLearnedState(learned)
                .build();
        SortedMap<Integer, JobWorkerState> changed = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            long seen = observed.get(i);
            long changes = learnedParts == null ? 0 : learnedParts.changes(i);
            boolean sameStatistics = storedParts.sameStatistics(i, stats, seen);
            if (sameStatistics && storedParts.sameChanges(i, changes)) {
                continue; // most workers of a large fleet: nothing to build
            }
            byte[] part = learnedParts == null ? NO_BYTES : learnedParts.worker(i);
            boolean unchanged = sameStatistics && storedParts.sameLearned(i, part);
            if (unchanged || (!storedParts.has(i) && unobserved(i, part))) {
                // as stored, or fresh (the roster names it): no record
                storedParts.stored(i, stats, seen, changes, part);
                continue;
            }
            changed.put(
                    i,
                    JobWorkerState.newBuilder()
                            .setWorkerId(workerIds.get(i))
                            .setActive(false) // not kept: see StoredWorkerParts
                            .setCount(stats.count(i))
                            .setSum(stats.sum(i))
                            .setSumSquares(stats.sumSquares(i))
                            .setSumCubes(stats.sumCubes(i))
                            .setCensored(stats.censoredTime(i))
                            .setObserved(seen)
                            .setLearned(ByteBuffer.wrap(part))
                            .build());
            storedParts.stored(i, stats, seen, changes, part);
        }
        return new JobStateParts(record, changed, changedChunks, changedRoster);
    }

    /**
     * Cuts {@code bytes} into chunks of {@link JobStateParts#CHUNK_BYTES}; those that differ from
     * the {@code stored} ones go to {@code changed} and from then on count as stored. Returns how
     * many chunks there are. (Not {@code Chunks.slice}: that bounds a payload to the slices a
     * topic record may carry, which a store's small chunks would reach at 2.5 MB.)
     */
    private static int cutIntoChunks(byte[] bytes, Map<Integer, byte[]> stored, SortedMap<Integer, byte[]> changed) {
        int chunks = (bytes.length + JobStateParts.CHUNK_BYTES - 1) / JobStateParts.CHUNK_BYTES;
        for (int c = 0; c < chunks; c++) {
            int from = c * JobStateParts.CHUNK_BYTES;
            int to = Math.min(bytes.length, from + JobStateParts.CHUNK_BYTES);
            byte[] was = stored.get(c);
            // compared in place: most chunks of a long job's learned state stay as they were
            if (was == null || !Arrays.equals(was, 0, was.length, bytes, from, to)) {
                byte[] chunk = Arrays.copyOfRange(bytes, from, to);
                changed.put(c, chunk);
                stored.put(c, chunk);
            }
        }
        return chunks;
    }

    /** What the policy learned, whole, as a broker before {@link JobStateParts} stored it. */
    private static LearnedState learnedState(PolicyState p) {
        return LearnedState.newBuilder()
                .setPolicy(p.policy())
                .setVersion(p.version())
                .setBytes(ByteBuffer.wrap(p.bytes()))
                .build();
    }

    /** The job's record without its workers: rounds, allocations. */
    private JobState.Builder jobRecord() {
        return JobState.newBuilder()
                .setJob(job)
                .setPolicy(policyName)
                .setBatch(batch)
                .setSeed(seed)
                .setLastOpenedRound(lastOpenedRound)
                .setLastClosedRound(lastClosedRound)
                .setLastEventMs(lastEventMs)
                .setPendingRound(pendingRound)
                .setPendingModelVersion(pendingModelVersion)
                .setLastAllocation(new ArrayList<>(lastAllocation))
                .setAheadRound(aheadRound)
                .setAheadAllocation(new ArrayList<>(aheadAllocation))
                .setEstimator(null); // superseded by learned_state
    }

    /**
     * The job's whole state in one record, every worker's statistics and the learned state whole
     * in it: what the broker's queries show, and what a broker before {@link JobStateParts} stored.
     */
    public JobState snapshot() {
        int n = workerIds.size();
        List<Long> count = new ArrayList<>(n);
        List<Double> sum = new ArrayList<>(n);
        List<Double> squares = new ArrayList<>(n);
        List<Double> cubes = new ArrayList<>(n);
        List<Double> censored = new ArrayList<>(n);
        List<Boolean> active = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            count.add(stats.count(i));
            sum.add(stats.sum(i));
            squares.add(stats.sumSquares(i));
            cubes.add(stats.sumCubes(i));
            censored.add(stats.censoredTime(i));
            active.add(stats.isActive(i));
        }
        return jobRecord()
                .setActive(active)
                .setWorkerIds(new ArrayList<>(workerIds))
                .setCount(count)
                .setSum(sum)
                .setSumSquares(squares)
                .setSumCubes(cubes)
                .setCensored(censored)
                .setObserved(new ArrayList<>(observed))
                .setLearnedState(
                        policy.learnedState().map(JobRuntime::learnedState).orElse(null))
                .build();
    }

    /**
     * Migrates a JobState written before {@code learned_state}: its {@code estimator} field held
     * the estimated-eta state, which is version 1 of the learned state of every policy that kept one
     * (ata-auto, ata-auto-subtractive, ata-hedge:R, ata-ert).
     */
    private static PolicyState fromEstimatorField(String policy, EtaEstimatorState e) {
        EstimatedRelativeWidth.State estimator = new EstimatedRelativeWidth.State(
                e.getEta(),
                e.getSeen(),
                e.getNextRefresh(),
                e.getSampleWorkers().stream().mapToInt(Integer::intValue).toArray(),
                e.getSamples().stream().mapToDouble(Double::doubleValue).toArray());
        return new PolicyState(policy, EstimatedRelativeWidth.State.VERSION, estimator.toBytes());
    }

    private PolicyContext context() {
        double[] known = new double[workerIds.size()];
        for (int i = 0; i < known.length; i++) {
            known[i] = settings.knownMeans().getOrDefault(workerIds.get(i), Double.NaN);
        }
        return context(known);
    }

    /** The job's policy context over as many workers as {@code known} has means for (NaN: not configured). */
    private PolicyContext context(double[] known) {
        // NaN marks a worker whose mean is not configured: oracle policies leave it out.
        return new PolicyContext(
                known.length,
                batch,
                known,
                settings.convention(),
                settings.alpha(),
                settings.eta(),
                "broker configuration");
    }

    private int indexOf(String worker) {
        Integer i = indexOf.get(worker);
        if (i != null) {
            return i;
        }
        int index = stats.addWorker(); // a new worker enters unexplored
        stats.setActive(index, false);
        workerIds.add(worker);
        observed.add(0L);
        indexOf.put(worker, index);
        if (policy != null) {
            policy.workerAdded(index, settings.knownMeans().getOrDefault(worker, Double.NaN));
        }
        return index;
    }

    /**
     * Brings membership up to date: a worker is active while its last heartbeat is recent, says
     * ALIVE and lists at least one task partition. Returns true if any worker changed state.
     */
    public boolean syncMembership(Iterable<WorkerHeartbeat> heartbeats, long nowMs) {
        List<MembershipMirror.Member> members = new ArrayList<>();
        heartbeats.forEach(h -> members.add(MembershipMirror.Member.of(h)));
        return syncMembers(members, nowMs);
    }

    /** {@link #syncMembership(Iterable, long)} over members whose partitions are sorted already. */
    boolean syncMembers(List<MembershipMirror.Member> members, long nowMs) {
        boolean changed = false;
        int[][] owned = new int[workerIds.size() + members.size()][];
        for (MembershipMirror.Member m : members) {
            WorkerHeartbeat h = m.heartbeat();
            int i = indexOf(h.getWorkerId());
            owned[i] = m.partitions();
            boolean live = settings.isLive(h, nowMs) && m.partitions().length > 0;
            if (stats.isActive(i) != live) {
                stats.setActive(i, live);
                changed = true;
            }
        }
        ownedPartitions = new int[workerIds.size()][];
        for (int i = 0; i < workerIds.size(); i++) {
            ownedPartitions[i] = owned[i] == null ? NO_PARTITIONS : owned[i];
            if (owned[i] == null && stats.isActive(i)) {
                stats.setActive(i, false); // no heartbeat at all: left the membership
                changed = true;
            }
        }
        return changed;
    }

    /** True if at least one worker is live and owns a task partition: a round can be allocated. */
    public boolean hasLiveWorker() {
        return activeWorkers().length > 0;
    }

    /**
     * Remembers a round opened while no worker was live, to be allocated by {@link #allocatePending}
     * once one is. A round is delayed, never dropped: the trainer waits for it either way.
     */
    public void deferOpen(long round, long modelVersion) {
        pendingRound = round;
        pendingModelVersion = modelVersion;
    }

    public boolean hasPendingOpen() {
        return pendingRound > 0;
    }

    /** Allocates the deferred round if a worker is live now; empty otherwise. */
    public List<TaskAssignment> allocatePending(long nowMs) {
        if (pendingRound == 0 || !hasLiveWorker()) {
            return List.of();
        }
        long round = pendingRound;
        pendingRound = 0;
        return allocate(round, pendingModelVersion, nowMs);
    }

    /** A round event of the job (OPENED, CLOSED or OVERDUE) was handled at {@code nowMs}: it is alive. */
    public void heardAt(long nowMs) {
        lastEventMs = Math.max(lastEventMs, nowMs);
    }

    /**
     * When the broker last handled a round event (OPENED, CLOSED or OVERDUE) of the job (wall
     * clock, ms); 0 if not since it was restored from a state written before this was kept.
     */
    public long lastEventMs() {
        return lastEventMs;
    }

    /**
     * Whether {@link #lastEventMs} is more than {@code slackMs} past the time the store holds: an
     * event that wrote nothing else (a duplicate CLOSED, an OVERDUE with nothing to back up), or a
     * time filled in for a state read without one. Written, a restart does not count the job's
     * retention from an older time (or from when it reads the state again).
     */
    public boolean eventTimeUnstored(long slackMs) {
        return lastEventMs - storedEventMs > slackMs;
    }

    /** A {@link #snapshot} was just written to the store: the time of the last event in it is stored. */
    public void eventTimeStored() {
        storedEventMs = lastEventMs;
    }

    /** Has round {@code round} been opened before (its assignments can be re-emitted)? */
    public boolean alreadyOpened(long round) {
        return round <= lastOpenedRound;
    }

    /**
     * The assignments of round {@code round}: the policy's plan, one record per worker with tasks,
     * each to a task partition that worker owns. Re-opening the last opened round returns the
     * stored assignments unchanged (idempotent); an older round returns nothing. A round planned
     * ahead ({@link #planAhead}) becomes the open round with the assignments already emitted for
     * it, and returns nothing: they are at the agents, and the same task ids must not go to others.
     */
    public List<TaskAssignment> allocate(long round, long modelVersion, long nowMs) {
        if (round < lastOpenedRound) {
            return List.of();
        }
        if (round == lastOpenedRound) {
            if (allocatedAtMs == 0) {
                allocatedAtMs = nowMs; // restored mid-round: its tasks are delivered again from now
            }
            return toAssignments(round, modelVersion, lastAllocation, nowMs);
        }
        if (round <= pendingRound) {
            pendingRound = 0; // opened again (or superseded) while pending
        }
        boolean plannedAhead = round == aheadRound;
        List<AllocationEntry> entries = plannedAhead ? aheadAllocation : plan(round);
        aheadRound = 0;
        aheadAllocation = List.of();
        lastOpenedRound = round;
        lastAllocation = entries;
        allocatedAtMs = nowMs;
        copiedFor.clear();
        overdueSince.clear();
        return plannedAhead ? List.of() : toAssignments(round, modelVersion, entries, nowMs);
    }

    /** Whether round {@code round} was planned ahead: its OPENED needs no live worker now. */
    public boolean plannedAhead(long round) {
        return aheadRound > 0 && round == aheadRound;
    }

    /**
     * Pipelined allocation: the assignments of round {@code round}, the one after the open round,
     * planned now from the statistics folded so far (one round older than when it opens), so that
     * agents hold them when its model version comes. Planned once: asked again (the open round was
     * opened again), the stored assignments are returned unchanged. Nothing past the job's
     * {@code lastRound} (0: unknown, nothing planned ahead) nor while no worker is live; and round
     * 2 is planned when it opens: agents park an assignment one version past the job's newest model,
     * but one of a job whose first model they have not read yet they can only wait for.
     */
    public List<TaskAssignment> planAhead(long round, long lastRound, long nowMs) {
        if (round == aheadRound) {
            return toAssignments(round, ModelVersions.computedOnBy(round), aheadAllocation, nowMs);
        }
        if (round <= 2 || round != lastOpenedRound + 1 || round > lastRound || !hasLiveWorker()) {
            return List.of();
        }
        aheadAllocation = plan(round);
        aheadRound = round;
        return toAssignments(round, ModelVersions.computedOnBy(round), aheadAllocation, nowMs);
    }

    /** The policy's plan of round {@code round}: one entry per worker with tasks, on a partition it owns. */
    private List<AllocationEntry> plan(long round) {
        if (!hasLiveWorker()) {
            throw new IllegalStateException(
                    "job " + job + " round " + round + ": no live worker owns a task partition");
        }
        RoundPlan plan = policy.plan(round);
        List<AllocationEntry> entries = new ArrayList<>();
        int next = 0;
        for (int k = 0; k < plan.supportSize(); k++) {
            int w = plan.supportWorker(k);
            // Greedy (GTA) workers keep computing until the round closes: B tasks each is the most
            // one worker can contribute to a batch.
            int tasks = plan.tasks(w) == RoundPlan.UNBOUNDED ? batch : plan.tasks(w);
            List<String> ids = new ArrayList<>(tasks);
            for (int t = 0; t < tasks; t++) {
                ids.add(TaskIds.of(job, round, next++));
            }
            int[] owned = ownedPartitions.length > w ? ownedPartitions[w] : NO_PARTITIONS;
            if (owned.length == 0) {
                throw new IllegalStateException("worker " + workerIds.get(w) + " is active but owns no task partition");
            }
            int partition = owned[(int) Math.floorMod(round, (long) owned.length)];
            entries.add(AllocationEntry.newBuilder()
                    .setWorkerId(workerIds.get(w))
                    .setPartition(partition)
                    .setTaskIds(ids)
                    .build());
        }
        return entries;
    }

    private int[] activeWorkers() {
        return java.util.stream.IntStream.range(0, workerIds.size())
                .filter(stats::isActive)
                .toArray();
    }

    private List<TaskAssignment> toAssignments(
            long round, long modelVersion, List<AllocationEntry> entries, long nowMs) {
        List<TaskAssignment> out = new ArrayList<>(entries.size());
        for (AllocationEntry e : entries) {
            out.add(TaskAssignment.newBuilder()
                    .setJob(job)
                    .setRound(round)
                    .setModelVersion(modelVersion)
                    .setWorkerId(e.getWorkerId())
                    .setPartition(e.getPartition())
                    .setTaskIds(new ArrayList<>(e.getTaskIds()))
                    .setBatch(batch)
                    .setPolicy(policyName)
                    .setCreatedMs(nowMs)
                    // a copy has no deadline: the trainer watches it with its own stall bound
                    .setDeadlineMs(e.getBackupOf().isEmpty() ? deadlineMs(e.getWorkerId()) : 0)
                    .setBackupOf(e.getBackupOf())
                    .build());
        }
        return out;
    }

    /** The deadline an assignment of {@code worker} runs under, in ms; 0 without backups or a fit. */
    private double deadlineMs(String worker) {
        Optional<TaskDeadlines> deadlines = policy.deadlines();
        Integer i = indexOf.get(worker);
        if (deadlines.isEmpty() || i == null) {
            return 0;
        }
        double d = deadlines.get().deadline(i);
        return Double.isFinite(d) ? d + DEADLINE_FLOOR_MS : 0;
    }

    /**
     * Backup copies of the open round's tasks an OVERDUE event lists, under every policy: the
     * trainer reports an assignment quiet past its {@code deadline_ms}, or past a stall bound of its
     * own for assignments without one (policies without deadlines, and copies). The event names one
     * worker and tasks it holds in the open round, its own or copies it was sent. Each listed task
     * gets one copy, on the worker expected to finish it soonest ({@link #soonest}), unless:
     *
     * <ul>
     *   <li>this worker's report on the task already sent a copy (the same request again sends
     *       nothing);</li>
     *   <li>the task has {@link #MAX_COPIES_PER_TASK} copies already;</li>
     *   <li>no worker can take it: live, owning a task partition, not reported overdue in the
     *       round, not holding the task already (original or copy), and, under a policy with
     *       deadlines, one the policy lets take backups (not on probation, with a fit).</li>
     * </ul>
     *
     * <p>A copy has no deadline of its own and names the task's original worker in {@code
     * backup_of}, whoever was reported. The copies join {@link #lastAllocation}: they are
     * re-emitted with the round if it is opened again and a later OVERDUE may name them.
     *
     * @throws IllegalArgumentException if the event lists a task the worker does not hold in the open round
     */
    public List<TaskAssignment> backUp(RoundEvent overdue, long nowMs) {
        if (overdue.getRound() != lastOpenedRound
                || overdue.getRound() <= lastClosedRound
                || overdue.getTimings().isEmpty()) {
            return List.of();
        }
        RoundTiming first = overdue.getTimings().get(0);
        String worker = first.getWorkerId();
        Map<String, Set<String>> holders = holders();
        for (RoundTiming t : overdue.getTimings()) {
            if (!t.getWorkerId().equals(worker)
                    || !holders.getOrDefault(t.getTaskId(), Set.of()).contains(worker)) {
                throw new IllegalArgumentException("job " + job + " round " + overdue.getRound() + ": task "
                        + t.getTaskId() + " is not one worker " + worker + " holds in the open round");
            }
        }
        overdueSince.putIfAbsent(worker, new double[] {first.getComputeMs(), first.getArrivalMs()});
        Set<String> reported = reportedOverdue();
        Optional<TaskDeadlines> deadlines = policy.deadlines();
        double elapsed = nowMs - allocatedAtMs;
        // each worker's tasks this round before this request, its own and copies it already got
        Map<String, Integer> load = new HashMap<>();
        lastAllocation.forEach(e -> load.merge(e.getWorkerId(), e.getTaskIds().size(), Integer::sum));
        Map<Integer, Integer> given = new HashMap<>();
        Map<Copy, List<String>> copies = new LinkedHashMap<>();
        for (RoundTiming t : overdue.getTimings()) {
            String task = t.getTaskId();
            Set<String> has = holders.get(task);
            if (copiedFor.getOrDefault(task, Set.of()).contains(worker) || has.size() - 1 >= MAX_COPIES_PER_TASK) {
                continue;
            }
            int b = soonest(deadlines, has, reported, load, given, elapsed);
            if (b < 0) {
                continue;
            }
            copiedFor.computeIfAbsent(task, k -> new LinkedHashSet<>()).add(worker);
            has.add(workerIds.get(b));
            given.merge(b, 1, Integer::sum);
            // the first holder is the original: allocation entries come before their copies
            copies.computeIfAbsent(new Copy(b, has.iterator().next()), k -> new ArrayList<>())
                    .add(task);
        }
        List<AllocationEntry> entries = new ArrayList<>();
        copies.forEach((copy, ids) -> {
            int[] owned = ownedPartitions[copy.worker()];
            entries.add(AllocationEntry.newBuilder()
                    .setWorkerId(workerIds.get(copy.worker()))
                    .setPartition(owned[(int) Math.floorMod(overdue.getRound(), (long) owned.length)])
                    .setTaskIds(ids)
                    .setBackupOf(copy.original())
                    .build());
        });
        List<AllocationEntry> all = new ArrayList<>(lastAllocation);
        all.addAll(entries);
        lastAllocation = all;
        return toAssignments(overdue.getRound(), ModelVersions.computedOnBy(overdue.getRound()), entries, nowMs);
    }

    /** Copies for worker index {@code worker} of tasks first assigned to {@code original}: one assignment. */
    private record Copy(int worker, String original) {}

    /** Per task of the open round, the workers holding it: its original worker, then those of its copies. */
    private Map<String, Set<String>> holders() {
        Map<String, Set<String>> holders = new HashMap<>();
        for (AllocationEntry e : lastAllocation) {
            for (String task : e.getTaskIds()) {
                holders.computeIfAbsent(task, k -> new LinkedHashSet<>()).add(e.getWorkerId());
            }
        }
        return holders;
    }

    /** The tasks {@code worker} holds in the open round: its own, and copies it was sent. */
    public Set<String> heldBy(String worker) {
        Set<String> held = new HashSet<>();
        lastAllocation.stream().filter(e -> e.getWorkerId().equals(worker)).forEach(e -> held.addAll(e.getTaskIds()));
        return held;
    }

    /**
     * The workers reported overdue in the open round: those this instance heard of, and those its
     * saved copies name (a broker restarted mid-round still knows them).
     */
    private Set<String> reportedOverdue() {
        Set<String> reported = new HashSet<>(overdueSince.keySet());
        lastAllocation.stream().filter(e -> !e.getBackupOf().isEmpty()).forEach(e -> reported.add(e.getBackupOf()));
        return reported;
    }

    /**
     * The worker to take one more copy, or -1: of the live workers that own a task partition, are
     * not {@code reported} overdue and do not hold the task ({@code holders}), the first by
     *
     * <ol>
     *   <li>idle: its {@code load} of tasks this round should be done {@code elapsedMs} after the
     *       round was allocated (at its expected task time; a worker with no such time is idle if
     *       it has no task), so the copy starts at once instead of queueing behind the worker's
     *       own tasks, which the round waits for as well;</li>
     *   <li>a known expected task time: the policy's ({@link TaskDeadlines#expectedTime}, which
     *       also says who may not take backups at all) or, for a policy without deadlines, the
     *       mean of the worker's statistics;</li>
     *   <li>expected finish of the copy: what is left of its load, the copies {@code given} in
     *       this request, and this one; without a known time, the fewest tasks;</li>
     *   <li>the lower worker index (deterministic).</li>
     * </ol>
     */
    private int soonest(
            Optional<TaskDeadlines> deadlines,
            Set<String> holders,
            Set<String> reported,
            Map<String, Integer> load,
            Map<Integer, Integer> given,
            double elapsedMs) {
        int best = -1;
        double[] bestKey = null;
        for (int b = 0; b < workerIds.size(); b++) {
            String id = workerIds.get(b);
            if (!stats.isActive(b)
                    || b >= ownedPartitions.length
                    || ownedPartitions[b].length == 0
                    || holders.contains(id)
                    || reported.contains(id)) {
                continue;
            }
            double m = deadlines.isPresent()
                    ? deadlines.get().expectedTime(b)
                    : stats.count(b) > 0 ? stats.mean(b) : Double.NaN;
            boolean known = m >= 0;
            if (deadlines.isPresent() && !known) {
                continue; // the policy keeps it from backups: on probation, or no fit yet
            }
            int before = load.getOrDefault(id, 0);
            int now = given.getOrDefault(b, 0);
            boolean idle = known ? before * m <= elapsedMs : before == 0;
            double finish = known ? Math.max(0, before * m - elapsedMs) + (now + 1) * m : before + now;
            double[] key = {idle ? 0 : 1, known ? 0 : 1, finish};
            if (bestKey == null || Arrays.compare(key, bestKey) < 0) {
                best = b;
                bestKey = key;
            }
        }
        return best;
    }

    /**
     * Folds a CLOSED event's timings into the statistics, exactly once: a round already folded
     * returns false and changes nothing. The broker leaves bad timings out before
     * ({@link RoundEventRules#checkClose}); this is the last guard of the statistics.
     *
     * @throws IllegalArgumentException for a compute time outside {@link ComputeTime} (nothing is
     *     folded: a caller that lets one through has not judged the event)
     */
    public boolean fold(RoundEvent closed) {
        if (closed.getRound() <= lastClosedRound) {
            return false;
        }
        for (RoundTiming t : closed.getTimings()) {
            String problem = ComputeTime.problem("compute_ms", t.getComputeMs());
            if (problem != null) {
                throw new IllegalArgumentException("job " + job + " round " + closed.getRound() + ": timing of task "
                        + t.getTaskId() + ": " + problem);
            }
        }
        RoundOutcome outcome = outcomeOf(closed);
        for (int k = 0; k < outcome.durationCount(); k++) {
            int w = outcome.durationWorker(k);
            observed.set(w, observed.get(w) + 1);
        }
        outcome.foldInto(stats);
        policy.observe(outcome);
        lastClosedRound = closed.getRound();
        return true;
    }

    /** The CLOSED event as the simulator's {@link RoundOutcome}. */
    RoundOutcome outcomeOf(RoundEvent closed) {
        for (RoundTiming t : closed.getTimings()) {
            indexOf(t.getWorkerId());
        }
        RoundOutcome outcome = new RoundOutcome(workerIds.size());
        outcome.reset(closed.getRound(), workerIds.size());
        // A task finished twice (its backup copy and the original, or a run again after a
        // rebalance) is counted once, as the simulator does: the first result; the later one is
        // worker time spent, not a second observation of the task.
        Set<String> finished = new HashSet<>();
        for (RoundTiming t : closed.getTimings()) {
            int i = indexOf.get(t.getWorkerId());
            switch (t.getStatus()) {
                case COMPLETED, LATE -> {
                    if (finished.add(t.getTaskId())) {
                        outcome.addCompleted(i, t.getComputeMs(), t.getStatus() == TimingStatus.COMPLETED, arrival(t));
                    } else {
                        outcome.addWasted(i, t.getComputeMs());
                    }
                }
                case CANCELLED -> outcome.addCancelled(i, t.getComputeMs());
            }
        }
        // Every holder whose overdue report sent a copy of a task elsewhere was backed up on it,
        // once however many copies the task got; each of them that did not give the task its
        // accepted result lost it to another copy: stuck from when it was noticed to that result.
        Map<String, RoundTiming> accepted = new HashMap<>();
        for (RoundTiming t : closed.getTimings()) {
            if (t.getStatus() == TimingStatus.COMPLETED) {
                accepted.putIfAbsent(t.getTaskId(), t);
            }
        }
        for (Map.Entry<String, Set<String>> task : copiedFor.entrySet()) {
            RoundTiming won = accepted.get(task.getKey());
            for (String holder : task.getValue()) {
                int i = indexOf(holder);
                outcome.addBackedUp(i);
                if (won != null && !won.getWorkerId().equals(holder)) {
                    double[] since = overdueSince.get(holder);
                    double stuckFor = since[0] + Math.max(0, arrival(won) - since[1]);
                    outcome.addLostToBackup(i, Double.isNaN(stuckFor) ? since[0] : stuckFor);
                }
            }
        }
        outcome.setRoundTime(closed.getRoundTimeMs());
        return outcome;
    }

    /** When the trainer read the timing's result, from the round's open; NaN if it did not say. */
    private static double arrival(RoundTiming t) {
        return t.getArrivalMs() >= 0 ? t.getArrivalMs() : Double.NaN;
    }

    public String job() {
        return job;
    }

    public String policyName() {
        return policyName;
    }

    /** B: the results each round of the job needs. */
    public int batch() {
        return batch;
    }

    /** How many workers the job has ever known. */
    public int workerCount() {
        return workerIds.size();
    }

    /** Whether {@code worker} is one of the job's workers. */
    public boolean knowsWorker(String worker) {
        return indexOf.containsKey(worker);
    }

    /** The task ids of the last opened round's allocation. */
    public Set<String> openRoundTaskIds() {
        Set<String> ids = new HashSet<>();
        lastAllocation.forEach(e -> ids.addAll(e.getTaskIds()));
        return ids;
    }

    public long lastOpenedRound() {
        return lastOpenedRound;
    }

    public long lastClosedRound() {
        return lastClosedRound;
    }

    /** Read-only view for queries and tests. */
    public WorkerStats stats() {
        return stats;
    }

    public List<String> workerIds() {
        return List.copyOf(workerIds);
    }

    /** The assignments of the last opened round, as stored. */
    public List<AllocationEntry> lastAllocation() {
        return lastAllocation;
    }

    /** Every worker the job knows, in index order, with its statistics and its share of the open round. */
    public List<WorkerSummary> workerSummaries() {
        Map<String, Integer> thisRound = new HashMap<>();
        lastAllocation.forEach(
                e -> thisRound.merge(e.getWorkerId(), e.getTaskIds().size(), Integer::sum));
        List<WorkerSummary> out = new ArrayList<>(workerIds.size());
        for (int i = 0; i < workerIds.size(); i++) {
            String w = workerIds.get(i);
            out.add(new WorkerSummary(
                    w,
                    stats.isActive(i),
                    stats.count(i),
                    stats.mean(i),
                    Math.sqrt(stats.variance(i)),
                    lowerBound(i),
                    thisRound.getOrDefault(w, 0)));
        }
        return out;
    }

    /**
     * The lower confidence bound on worker {@code i}'s mean task time that an LCB policy (ATA and
     * its relatives) would plan the next round with: its score {@code s_i} at round
     * {@code lastClosedRound + 1}, with the width in force now. NaN for other policies and for a
     * worker without a completed task.
     */
    private double lowerBound(int i) {
        long k = stats.count(i);
        if (!(policy instanceof LcbPolicy lcb) || k == 0) {
            return Double.NaN;
        }
        ConfidenceWidth width = lcb.width();
        double logTerm = Math.log(2.0) + 2 * Math.log(lastClosedRound + 1.0); // L = ln(2 k^2), as LcbPolicy
        return width.score(stats.mean(i), k, logTerm);
    }
}
