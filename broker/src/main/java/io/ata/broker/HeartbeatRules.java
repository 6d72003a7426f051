package io.ata.broker;

import io.ata.schemas.WorkerHeartbeat;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.function.IntSupplier;

/**
 * The rules a heartbeat must keep to enter the membership: checked on {@code workers} before it is
 * forwarded, and again on {@code membership} before the global store takes it (anyone who can
 * write to that topic could put anything there).
 */
final class HeartbeatRules {
    /** More tasks at once than this is no worker's capacity. */
    static final int MAX_CAPACITY = 65_536;
    /** Longest host and device name. */
    static final int MAX_NAME_LENGTH = 1024;

    private final IntSupplier taskPartitions;
    private final IntSupplier recount;
    private final long maxAheadMs;

    /**
     * @param taskPartitions the partition count of the tasks topic, 0 while unknown (then only
     *     negative partitions are refused)
     * @param maxAheadMs how far ahead of the broker's clock a heartbeat's time may be: the liveness
     *     timeout, beyond which a heartbeat would keep a silent worker live longer than it says
     */
    HeartbeatRules(IntSupplier taskPartitions, long maxAheadMs) {
        this(taskPartitions, taskPartitions, maxAheadMs);
    }

    /**
     * @param recount the partition count asked for again, for a heartbeat listing a partition past
     *     the known end (the topic may just have grown, see {@link TaskPartitionGrowth})
     */
    HeartbeatRules(IntSupplier taskPartitions, IntSupplier recount, long maxAheadMs) {
        this.taskPartitions = taskPartitions;
        this.recount = recount;
        this.maxAheadMs = maxAheadMs;
    }

    /** Why heartbeat {@code h}, read with raw key {@code key} at wall-clock {@code nowMs}, is refused; null if it is not. */
    String problem(byte[] key, WorkerHeartbeat h, long nowMs) {
        String id = WorkerIds.problem(h.getWorkerId());
        if (id != null) {
            return "heartbeat with a " + id;
        }
        String worker = h.getWorkerId();
        if (key != null && !new String(key, StandardCharsets.UTF_8).equals(worker)) {
            return "heartbeat key does not match its worker_id " + worker;
        }
        if (h.getCapacity() < 1 || h.getCapacity() > MAX_CAPACITY) {
            return "heartbeat of " + worker + " has capacity " + h.getCapacity() + " (1 to " + MAX_CAPACITY + ")";
        }
        if (h.getThreads() < 0 || h.getDeviceMemoryBytes() < 0) {
            return "heartbeat of " + worker + " has a negative thread count or device memory";
        }
        if (h.getHost().length() > MAX_NAME_LENGTH || h.getDeviceName().length() > MAX_NAME_LENGTH) {
            return "heartbeat of " + worker + " has a host or device name over " + MAX_NAME_LENGTH + " characters";
        }
        String consumer = h.getTaskConsumer();
        if (consumer.length() > MAX_NAME_LENGTH
                || consumer.chars().anyMatch(Character::isISOControl)
                || (!consumer.isEmpty() && consumer.isBlank())) {
            return "heartbeat of " + worker + " names a task consumer that is blank, of over " + MAX_NAME_LENGTH
                    + " characters or with a control character";
        }
        if (h.getTimestampMs() <= 0) {
            return "heartbeat of " + worker + " has timestamp_ms " + h.getTimestampMs() + ", not positive";
        }
        if (h.getTimestampMs() > nowMs + maxAheadMs) {
            return "heartbeat of " + worker + " has timestamp_ms " + h.getTimestampMs() + ", "
                    + (h.getTimestampMs() - nowMs) + " ms ahead of the broker's clock (" + nowMs + "), more than the "
                    + maxAheadMs + " ms allowed";
        }
        return partitionProblem(worker, h);
    }

    private String partitionProblem(String worker, WorkerHeartbeat h) {
        int count = taskPartitions.getAsInt();
        int highest =
                h.getPartitions().stream().mapToInt(Integer::intValue).max().orElse(-1);
        if (count > 0 && highest >= count) {
            count = recount.getAsInt();
        }
        Set<Integer> seen = new HashSet<>();
        for (int p : h.getPartitions()) {
            if (p < 0 || (count > 0 && p >= count)) {
                return "heartbeat of " + worker + " lists partition " + p + " of the tasks topic, which has "
                        + (count > 0 ? "partitions 0 to " + (count - 1) : "no negative partitions");
            }
            if (!seen.add(p)) {
                return "heartbeat of " + worker + " lists partition " + p + " twice";
            }
        }
        return null;
    }
}
