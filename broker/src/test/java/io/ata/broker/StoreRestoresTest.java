package io.ata.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class StoreRestoresTest {
    private final AtomicLong now = new AtomicLong();
    private final StoreRestores restores = new StoreRestores(now::get);

    private static TopicPartition changelog(String store, int partition) {
        return new TopicPartition("ata-broker-" + store + "-changelog", partition);
    }

    @Test
    void addsUpAStoresPartitionsFromTheFirstStartToTheLastEnd() {
        now.set(100);
        restores.onRestoreStart(changelog("jobs", 0), "jobs", 0, 10);
        now.set(150);
        restores.onRestoreStart(changelog("jobs", 1), "jobs", 0, 30);
        restores.onRestoreStart(changelog("job-workers", 0), "job-workers", 0, 400);
        now.set(300);
        restores.onRestoreEnd(changelog("jobs", 1), "jobs", 30);
        now.set(420);
        restores.onRestoreEnd(changelog("jobs", 0), "jobs", 10);
        now.set(900);
        restores.onRestoreEnd(changelog("job-workers", 0), "job-workers", 400);

        assertEquals(
                List.of(
                        new StoreRestores.Restore("jobs", 2, 40, 100, 420),
                        new StoreRestores.Restore("job-workers", 1, 400, 150, 900)),
                restores.ended());
    }

    @Test
    void aRestoreSuspendedWhenItsPartitionMovedDoesNotCount() {
        restores.onRestoreStart(changelog("jobs", 0), "jobs", 0, 10);
        restores.onRestoreSuspended(changelog("jobs", 0), "jobs", 4);
        assertEquals(List.of(), restores.ended());

        // restored again later, it counts from its new start
        now.set(1_000);
        restores.onRestoreStart(changelog("jobs", 0), "jobs", 4, 10);
        now.set(1_500);
        restores.onRestoreEnd(changelog("jobs", 0), "jobs", 6);
        assertEquals(List.of(new StoreRestores.Restore("jobs", 1, 6, 1_000, 1_500)), restores.ended());
        assertEquals(500e-9, restores.ended().get(0).seconds(), 1e-15);
    }
}
