package io.ata.bench;

import io.ata.trainer.RoundListener;
import io.ata.trainer.RoundSummary;
import java.util.ArrayList;
import java.util.List;

/**
 * Every round the job closes, as its trainers tell (the listener is handed to each trainer the soak
 * starts, so the record goes on across restarts): when (wall clock, once the close was committed),
 * how long the round took, and how many of its results were clipped.
 */
public final class RoundCloses implements RoundListener {
    /** One closed round. */
    public record Close(long atMs, long round, double roundTimeMs, int clipped) {}

    private final List<Close> closes = new ArrayList<>();

    @Override
    public void roundClosed(RoundSummary summary) {
        Close close = new Close(System.currentTimeMillis(), summary.round(), summary.roundTimeMs(), summary.clipped());
        synchronized (this) {
            closes.add(close);
        }
    }

    public synchronized List<Close> all() {
        return List.copyOf(closes);
    }

    public synchronized int count() {
        return closes.size();
    }

    /** The last round closed, 0 before any. */
    public synchronized long lastRound() {
        return closes.isEmpty() ? 0 : closes.get(closes.size() - 1).round();
    }
}
