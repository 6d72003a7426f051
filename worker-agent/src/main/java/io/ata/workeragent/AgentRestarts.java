package io.ata.workeragent;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * How often a {@link SupervisedAgent} (or the virtual fleet's shared client) starts its agent over
 * with new clients after the agent lost its producer ({@link io.ata.platform.kafka.KafkaErrors#isHealedByNewClients}): at most
 * {@link #MAX} times within {@link #WINDOW}. A pause past the transaction timeout (a long GC, a
 * frozen VM) costs one start; two agents under one worker id would fence each other's producers
 * over and over, and the budget stops that (their static group membership usually stops one first).
 */
public final class AgentRestarts {
    public static final int MAX = 3;
    public static final Duration WINDOW = Duration.ofMinutes(10);

    private final Deque<Long> startsMs = new ArrayDeque<>();

    /** Whether the agent may start over at {@code nowMs}; if so, the start is counted. */
    public boolean allow(long nowMs) {
        while (!startsMs.isEmpty() && nowMs - startsMs.peekFirst() >= WINDOW.toMillis()) {
            startsMs.pollFirst();
        }
        if (startsMs.size() >= MAX) {
            return false;
        }
        startsMs.addLast(nowMs);
        return true;
    }
}
