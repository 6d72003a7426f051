package io.ata.bench;

import java.util.List;
import java.util.Locale;

/**
 * Restarts the parts in turn, each as a crash would: the trainer, an agent (the next one each
 * time), the broker (with its embedded registry). Each restart is an event, with how long it took;
 * one that fails is an event too, and the soak goes on.
 */
public final class Restarts {
    /** What is restarted, in this order, over and over. */
    public enum Part {
        TRAINER,
        AGENT,
        BROKER
    }

    private final SoakDeployment system;
    private final SoakEvents events;
    private int next;
    private int nextAgent;

    public Restarts(SoakDeployment system, SoakEvents events) {
        this.system = system;
        this.events = events;
    }

    /** Restarts the next part in turn; returns which. */
    public Part restartNext() throws InterruptedException {
        Part part = Part.values()[next++ % Part.values().length];
        restart(part);
        return part;
    }

    /** Restarts {@code part} now. */
    public void restart(Part part) throws InterruptedException {
        long start = System.nanoTime();
        String what = switch (part) {
            case TRAINER -> "trainer";
            case AGENT -> {
                List<String> ids = system.agentIds();
                yield ids.get(nextAgent++ % ids.size());
            }
            case BROKER -> "broker";
        };
        String kind = "restart-" + part.name().toLowerCase(Locale.ROOT);
        events.add(kind + "-begin", what);
        try {
            switch (part) {
                case TRAINER -> system.restartTrainer();
                case AGENT -> system.restartAgent(what);
                case BROKER -> system.restartBroker();
            }
            events.add(kind, String.format(Locale.ROOT, "%s killed and started again in %.1f s", what, seconds(start)));
        } catch (RuntimeException e) {
            events.add("restart-failed", what + " after " + String.format(Locale.ROOT, "%.1f s: ", seconds(start)) + e);
        }
    }

    private static double seconds(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e9;
    }
}
