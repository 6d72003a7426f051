package io.ata.broker;

import io.ata.schemas.JobState;
import org.apache.kafka.streams.TopologyTestDriver;

/** A job's whole state as a {@link TopologyTestDriver}'s broker stores it, put together from its parts. */
final class DriverJobs {
    private DriverJobs() {}

    static JobState whole(TopologyTestDriver driver, BrokerSettings settings, String job) {
        return new StoredJobs(
                        driver.getKeyValueStore(BrokerTopology.JOBS_STORE),
                        driver.getKeyValueStore(BrokerTopology.JOB_WORKERS_STORE),
                        driver.getKeyValueStore(BrokerTopology.JOB_LEARNED_STORE),
                        settings)
                .get(job);
    }
}
