package io.ata.broker;

import io.ata.schemas.JobState;
import io.ata.schemas.WorkerHeartbeat;
import java.util.List;
import java.util.function.Supplier;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;

/** A job's whole state as a {@link TopologyTestDriver}'s broker stores it, put together from its parts. */
final class DriverJobs {
    private DriverJobs() {}

    /** The job's state with no worker live: for tests that do not ask about liveness. */
    static JobState whole(TopologyTestDriver driver, BrokerSettings settings, String job) {
        return stored(driver, settings, List::of, 0).get(job);
    }

    /** The job's state with its workers' liveness judged from the driver's membership store at {@code membershipClockMs}. */
    static JobState whole(TopologyTestDriver driver, BrokerSettings settings, String job, long membershipClockMs) {
        KeyValueStore<String, WorkerHeartbeat> membership = driver.getKeyValueStore(BrokerTopology.MEMBERSHIP_STORE);
        return stored(driver, settings, () -> BrokerApp.heartbeatsIn(membership), membershipClockMs)
                .get(job);
    }

    private static StoredJobs stored(
            TopologyTestDriver driver,
            BrokerSettings settings,
            Supplier<List<WorkerHeartbeat>> membership,
            long membershipClockMs) {
        return new StoredJobs(
                driver.getKeyValueStore(BrokerTopology.JOBS_STORE),
                driver.getKeyValueStore(BrokerTopology.JOB_WORKERS_STORE),
                driver.getKeyValueStore(BrokerTopology.JOB_LEARNED_STORE),
                settings,
                membership,
                () -> membershipClockMs);
    }
}
