package io.ata.lab.report;

import java.io.Console;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.LongConsumer;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * Shows how far an experiment has got, on stderr. {@code Experiment.run} reports finished rounds
 * from several worker threads at once, so {@link #accept} is thread-safe. On a terminal this is a
 * live progress bar; otherwise (CI logs, output piped to a file) a bar would fill the log with
 * redraws, so it prints one plain line at every 10% instead.
 */
public abstract class Progress implements LongConsumer, AutoCloseable {

    /**
     * @param task  what is running, e.g. "simulate"
     * @param total the rounds to be run in all (policies x seeds x rounds)
     * @param err   where the plain lines go when there is no terminal
     */
    public static Progress start(String task, long total, PrintWriter err) {
        return start(task, total, "rounds", err);
    }

    /** As {@link #start(String, long, PrintWriter)}, counting {@code unit} (plural, e.g. "tasks") instead of rounds. */
    public static Progress start(String task, long total, String unit, PrintWriter err) {
        return onTerminal() ? new Bar(task, total, unit) : new Lines(task, total, unit, err);
    }

    /**
     * Whether the output goes to a terminal. Up to Java 21 {@link System#console()} is null when
     * it does not; from Java 22 there is always a console and {@code Console.isTerminal()} tells.
     */
    private static boolean onTerminal() {
        Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
        } catch (ReflectiveOperationException e) {
            return true; // Java 17 to 21: a console means a terminal
        }
    }

    /** Adds {@code rounds} finished rounds. Safe to call from any thread. */
    @Override
    public abstract void accept(long rounds);

    @Override
    public abstract void close();

    /** The me.tongfei progress bar, redrawn in place on stderr. */
    private static final class Bar extends Progress {
        private final ProgressBar bar;

        public Bar(String task, long total, String unit) {
            bar = new ProgressBarBuilder()
                    .setTaskName(task)
                    .setInitialMax(total)
                    .setStyle(ProgressBarStyle.ASCII)
                    .setConsumer(new ConsoleProgressBarConsumer(System.err))
                    .setUnit(" " + unit, 1)
                    .setUpdateIntervalMillis(250)
                    .build();
        }

        @Override
        public synchronized void accept(long rounds) {
            bar.stepBy(rounds);
        }

        @Override
        public synchronized void close() {
            bar.close();
        }
    }

    /** One line per 10% reached, e.g. {@code simulate: 30% (675000 of 2250000 rounds, 12.4 s)}. */
    private static final class Lines extends Progress {
        private final String task;
        private final long total;
        private final String unit;
        private final PrintWriter err;
        private final long started = System.nanoTime();
        private long done; // guarded by this
        private int lastTenth; // guarded by this

        public Lines(String task, long total, String unit, PrintWriter err) {
            this.task = task;
            this.total = Math.max(1, total);
            this.unit = unit;
            this.err = err;
        }

        @Override
        public synchronized void accept(long rounds) {
            done += rounds;
            int tenth = (int) Math.min(10, done * 10 / total);
            if (tenth > lastTenth) {
                lastTenth = tenth;
                err.printf(
                        Locale.ROOT,
                        "%s: %d%% (%d of %d %s, %.1f s)%n",
                        task,
                        10 * tenth,
                        Math.min(done, total),
                        total,
                        unit,
                        (System.nanoTime() - started) / 1e9);
                err.flush();
            }
        }

        @Override
        public synchronized void close() {
            err.flush();
        }
    }
}
