package io.ata.broker;

import io.ata.schemas.WorkerHeartbeat;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The global membership store as the round processors read it: every worker's last heartbeat,
 * decoded once, with its task partitions sorted. One per broker instance, written by the global
 * store's thread ({@link MembershipUpdater}) beside the store and read by the stream threads.
 *
 * <p>Why not read the store: it keeps Avro bytes, so every read of the whole membership decoded
 * every heartbeat again, and the broker reads it for every OPENED round and, in every task, every
 * liveness check: at 1,024 workers that is 1,024 decodes and sorts on each round's critical path.
 * The store stays what the interactive queries read.
 */
final class MembershipMirror {
    private static final Comparator<String> IN_STORE_ORDER =
            Comparator.comparing(worker -> worker.getBytes(StandardCharsets.UTF_8), Arrays::compareUnsigned);

    /** A worker's last heartbeat and the task partitions it lists, sorted. */
    record Member(WorkerHeartbeat heartbeat, int[] partitions) {
        static Member of(WorkerHeartbeat heartbeat) {
            int[] sorted = heartbeat.getPartitions().stream()
                    .mapToInt(Integer::intValue)
                    .toArray();
            Arrays.sort(sorted);
            return new Member(heartbeat, sorted);
        }

        String workerId() {
            return heartbeat.getWorkerId();
        }
    }

    /**
     * By worker id in the order of its UTF-8 bytes, as the store keeps them: a job indexes the
     * workers it meets in this order, and a policy breaks its ties by index. Replaced whole by
     * {@link #replace}, so a reader sees the old members or the new, never a mix.
     */
    private volatile ConcurrentNavigableMap<String, Member> members = new ConcurrentSkipListMap<>(IN_STORE_ORDER);

    /** {@code worker}'s heartbeat was taken by the store. */
    void put(String worker, WorkerHeartbeat heartbeat) {
        members.put(worker, Member.of(heartbeat));
    }

    /** {@code worker} left the store. */
    void remove(String worker) {
        members.remove(worker);
    }

    /** Takes {@code heartbeats} (by worker) for the whole membership: the store's thread starts over from its contents. */
    void replace(Map<String, WorkerHeartbeat> heartbeats) {
        ConcurrentNavigableMap<String, Member> all = new ConcurrentSkipListMap<>(IN_STORE_ORDER);
        heartbeats.forEach((worker, heartbeat) -> all.put(worker, Member.of(heartbeat)));
        members = all;
    }

    boolean contains(String worker) {
        return members.containsKey(worker);
    }

    /** Every member now: a copy, which the store's thread does not change under the reader. */
    List<Member> members() {
        return List.copyOf(members.values());
    }
}
