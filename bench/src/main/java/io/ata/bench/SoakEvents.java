package io.ata.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * What the soak did, in order: restarts, floods, bad records, crowds of connections. The report
 * names the events just before and during the longest gap between two closed rounds.
 */
public final class SoakEvents {
    /** One thing the soak did, at {@code atMs} (wall clock). */
    public record Event(long atMs, String kind, String detail) {}

    private final List<Event> events = new ArrayList<>();

    /** Notes {@code kind} (e.g. {@code restart-broker}) now, with what it was. */
    public synchronized void add(String kind, String detail) {
        events.add(new Event(System.currentTimeMillis(), kind, detail));
    }

    public synchronized List<Event> all() {
        return List.copyOf(events);
    }

    /** The events from {@code fromMs} to {@code toMs}, both included. */
    public synchronized List<Event> between(long fromMs, long toMs) {
        return events.stream()
                .filter(e -> e.atMs() >= fromMs && e.atMs() <= toMs)
                .toList();
    }

    /** How many events of {@code kind} there were. */
    public synchronized long count(String kind) {
        return events.stream().filter(e -> e.kind().equals(kind)).count();
    }
}
