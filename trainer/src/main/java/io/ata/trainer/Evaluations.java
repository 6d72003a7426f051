package io.ata.trainer;

import io.ata.schemas.Evaluation;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scores model versions on the held-out test set on a background thread, so the trainer loop is
 * not blocked, and keeps the results until a transaction publishes them.
 *
 * <p>Which versions: every {@code every}-th ({@code version % every == 0}, version 0 included)
 * and the job's last; none if {@code every} is 0. Each is scored on a copy of its parameters, one
 * at a time in version order, by the model's {@link TestScorer} (a DJL network for a neural
 * network, built on the background thread). If scoring falls behind the rounds, at most
 * {@link #MAX_WAITING} versions wait; a version due beyond that is skipped (logged and counted),
 * except the last, which is always scored.
 *
 * <p>Publishing: {@link #ready()} gives the scored versions not yet published, in order; the
 * trainer puts them in its next transaction and calls {@link #published} once it committed, so an
 * aborted transaction loses none. A version that fails to score is logged, counted and dropped:
 * the training goes on.
 *
 * <p>Owned by the trainer thread, apart from the scoring itself. The scoring thread ends after
 * {@value #IDLE_THREAD_MS} ms without a version to score; the next version starts another.
 */
final class Evaluations implements AutoCloseable {
    // the trainer's log, whichever of its parts writes: one logger to configure
    private static final Logger log = LoggerFactory.getLogger(Trainer.class);

    /** Versions that may wait to be scored or published at once. */
    static final int MAX_WAITING = 3;

    private static final Duration POLL = Duration.ofMillis(100);
    /** How long the scoring thread waits idle for the next version before it ends (the next starts another). */
    private static final long IDLE_THREAD_MS = 30_000;

    private record Scoring(long version, Future<Evaluation> result) {}

    private final String job;
    private final Model model;
    private final long every;
    private final int threads;
    private final Clock clock;
    private final TrainerMetrics metrics;
    private final long idleThreadMs;
    private final Deque<Scoring> waiting = new ArrayDeque<>();
    private ThreadPoolExecutor executor;
    /** Used on the background thread only. */
    private volatile TestScorer scorer;

    Evaluations(String job, Model model, long every, int threads, Clock clock, TrainerMetrics metrics) {
        this(job, model, every, threads, clock, metrics, IDLE_THREAD_MS);
    }

    /** @param idleThreadMs how long the scoring thread waits idle before it ends */
    Evaluations(
            String job, Model model, long every, int threads, Clock clock, TrainerMetrics metrics, long idleThreadMs) {
        this.idleThreadMs = idleThreadMs;
        this.job = job;
        this.model = model;
        this.every = Bounds.atLeast(every, 0, "evaluation interval");
        this.threads = threads;
        this.clock = clock;
        this.metrics = metrics;
    }

    /** Whether model version {@code version} is to be scored ({@code last}: the job's last version). */
    boolean due(long version, boolean last) {
        return every > 0 && (version % every == 0 || last);
    }

    /**
     * Scores {@code parameters}, model version {@code version} published at {@code modelTimestampMs},
     * in the background; skipped if {@link #MAX_WAITING} versions wait already, unless
     * {@code mustScore}.
     *
     * @param parameters a copy the trainer no longer changes
     */
    void submit(long version, FlatTensor parameters, long modelTimestampMs, boolean mustScore) {
        if (!mustScore && waiting.size() >= MAX_WAITING) {
            metrics.evaluationSkipped();
            log.warn(
                    "job {}: evaluation of model version {} skipped, {} versions still wait to be scored",
                    job,
                    version,
                    waiting.size());
            return;
        }
        waiting.add(new Scoring(version, executor().submit(() -> score(version, parameters, modelTimestampMs))));
    }

    private Evaluation score(long version, FlatTensor parameters, long modelTimestampMs) {
        long start = System.nanoTime();
        if (scorer == null) {
            scorer = model.scorer(threads);
        }
        TestScorer.TestScore score = scorer.score(parameters);
        metrics.evaluated(Duration.ofNanos(System.nanoTime() - start));
        return Evaluation.newBuilder()
                .setJob(job)
                .setModelVersion(version)
                .setTestLoss(score.loss())
                .setTestAccuracy(score.accuracy())
                .setSamples(score.samples())
                .setDataset(score.dataset())
                .setModelTimestampMs(modelTimestampMs)
                .setTimestampMs(clock.millis())
                .build();
    }

    /**
     * The scored versions not yet published, in version order (those still scoring, and any after
     * them, wait). Versions that failed to score are dropped here.
     */
    List<Evaluation> ready() {
        List<Evaluation> ready = new ArrayList<>();
        for (Iterator<Scoring> it = waiting.iterator(); it.hasNext(); ) {
            Scoring scoring = it.next();
            if (!scoring.result().isDone()) {
                break;
            }
            try {
                ready.add(scoring.result().get());
            } catch (ExecutionException | CancellationException e) {
                it.remove();
                metrics.evaluationFailed();
                log.warn("job {}: evaluation of model version {} failed", job, scoring.version(), e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CancellationException("interrupted");
            }
        }
        return ready;
    }

    /** The first {@code evaluations} of {@link #ready()} were committed: forget them. */
    void published(List<Evaluation> evaluations) {
        for (Evaluation evaluation : evaluations) {
            Scoring head = waiting.pollFirst();
            if (head == null || head.version() != evaluation.getModelVersion()) {
                throw new IllegalStateException(
                        "published evaluation of version " + evaluation.getModelVersion() + " was not the next one");
            }
        }
    }

    /**
     * Waits for every version submitted to be scored, then returns {@link #ready()}.
     *
     * @throws CancellationException if the trainer is killed meanwhile
     */
    List<Evaluation> awaitAll(StopRequest stop) {
        for (Scoring scoring : List.copyOf(waiting)) {
            while (!scoring.result().isDone()) {
                if (stop.killed()) {
                    throw new CancellationException("killed");
                }
                try {
                    scoring.result().get(POLL.toMillis(), TimeUnit.MILLISECONDS);
                } catch (TimeoutException | ExecutionException | CancellationException e) {
                    // done with a failure (reported by ready()), or not done yet
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new CancellationException("interrupted");
                }
            }
        }
        return ready();
    }

    /** Versions submitted and not yet published (scoring, or scored). */
    int waiting() {
        return waiting.size();
    }

    private ThreadPoolExecutor executor() {
        if (executor == null) {
            executor =
                    new ThreadPoolExecutor(
                            1, 1, idleThreadMs, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), task -> {
                                Thread t = new Thread(task, "ata-trainer-" + job + "-evaluation");
                                t.setDaemon(true); // a long scoring never holds the JVM up
                                return t;
                            }) {
                        @Override
                        protected void terminated() {
                            // every scoring has ended: nothing else uses the scorer now
                            if (scorer != null) {
                                scorer.close();
                            }
                        }
                    };
            // a job scored once (its first version) and then every 25 rounds need not keep a thread
            // between: a thousand jobs in one trainer host kept a thousand idle ones
            executor.allowCoreThreadTimeOut(true);
        }
        return executor;
    }

    /** Stops scoring: versions not yet scored are dropped; the scorer is closed once the running one ends. */
    @Override
    public void close() {
        if (executor != null) {
            executor.shutdownNow();
        }
        waiting.clear();
    }
}
