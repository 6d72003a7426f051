package io.ata.bench.fleet;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.GcInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * The garbage collector's pauses in this JVM while a load runs, as the JVM reports them
 * ({@link GarbageCollectionNotificationInfo}). The bench runs the broker, the fleet, the trainers and
 * the embedded Kafka in one JVM, so a pause stops all of them at once: a round whose overhead
 * overlaps one is the bench's, not the broker's. The cycles of ZGC and Shenandoah run beside the
 * application and are left out (their pauses have a collector of their own).
 */
final class GcPauses implements AutoCloseable {
    /** One pause, in {@link System#nanoTime()}'s time (to the millisecond the JVM reports). */
    record Pause(long startNanos, long endNanos) {
        double ms() {
            return (endNanos - startNanos) / 1e6;
        }

        /** How much of this pause falls in {@code [from, to]}, in ms. */
        double overlapMs(long from, long to) {
            return Math.max(0, Math.min(to, endNanos) - Math.max(from, startNanos)) / 1e6;
        }
    }

    /** A pause as the JVM tells it: ms on its GC clock, and when the notice reached us. */
    private record Reported(long startMs, long endMs, long receivedNanos) {}

    /**
     * {@link System#nanoTime()} at the GC clock's zero, as well as the notices tell it: the least
     * of (received - reported end) over every pause this JVM reported to any instance. The GC
     * clock's zero is not the JVM's uptime zero (tens of ms apart), and a notice comes a
     * millisecond or so after its pause ends, the first ones tens of ms: the least delay is the
     * closest bound, and it only gets closer as a JVM's loads go by.
     */
    private static final AtomicLong ZERO_NANOS = new AtomicLong(Long.MAX_VALUE);

    private final List<Reported> reported = new ArrayList<>();
    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private final NotificationListener listener = this::received;

    /** Starts listening to every collector of this JVM that tells its collections. */
    GcPauses() {
        for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (bean instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener(listener, null, null);
                emitters.add(emitter);
            }
        }
    }

    private void received(Notification notification, Object handback) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
            return;
        }
        GarbageCollectionNotificationInfo info =
                GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
        String name = info.getGcName();
        if (name.contains("Cycles")) {
            return; // runs beside the application's threads
        }
        long received = System.nanoTime();
        GcInfo gc = info.getGcInfo();
        synchronized (reported) {
            reported.add(new Reported(gc.getStartTime(), gc.getEndTime(), received));
            ZERO_NANOS.accumulateAndGet(received - gc.getEndTime() * 1_000_000, Math::min);
        }
    }

    /** The pauses that overlap {@code [from, to]} ({@link System#nanoTime()}), in the order they came. */
    List<Pause> between(long from, long to) {
        long zero = ZERO_NANOS.get();
        synchronized (reported) {
            return reported.stream()
                    .map(r -> new Pause(zero + r.startMs() * 1_000_000, zero + r.endMs() * 1_000_000))
                    .filter(p -> p.endNanos() >= from && p.startNanos() <= to)
                    .toList();
        }
    }

    @Override
    public void close() {
        for (NotificationEmitter emitter : emitters) {
            try {
                emitter.removeNotificationListener(listener);
            } catch (ListenerNotFoundException e) {
                // already gone: nothing to remove
            }
        }
    }

    /** The parts of {@code pauses} inside {@code [from, to]}: none if the interval is empty. */
    static List<Pause> clipped(List<Pause> pauses, long from, long to) {
        return pauses.stream()
                .filter(p -> p.overlapMs(from, to) > 0)
                .map(p -> new Pause(Math.max(from, p.startNanos()), Math.min(to, p.endNanos())))
                .toList();
    }

    /** The time of {@code pauses} inside {@code [from, to]}, in ms. */
    static double overlapMs(List<Pause> pauses, long from, long to) {
        return pauses.stream().mapToDouble(p -> p.overlapMs(from, to)).sum();
    }
}
