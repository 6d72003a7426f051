package io.ata.broker;

import io.ata.schemas.WorkerHeartbeat;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/** Keeps the global membership store: the latest validated heartbeat of every worker. */
final class MembershipUpdater implements Processor<String, WorkerHeartbeat, Void, Void> {
    private KeyValueStore<String, WorkerHeartbeat> store;

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        store = context.getStateStore(BrokerTopology.MEMBERSHIP_STORE);
    }

    @Override
    public void process(Record<String, WorkerHeartbeat> record) {
        if (record.key() == null) {
            return;
        }
        if (record.value() == null) {
            store.delete(record.key());
        } else {
            store.put(record.key(), record.value());
        }
    }
}
