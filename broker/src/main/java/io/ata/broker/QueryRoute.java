package io.ata.broker;

import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.state.HostInfo;

/**
 * Where a query about one job is answered: here, by the instance that hosts the job, or nowhere
 * right now. The decision alone, without Kafka or HTTP, so that it can be tested by itself.
 */
sealed interface QueryRoute {

    /** This instance hosts the job (or is the only one that could answer): read the local store. */
    record Local() implements QueryRoute {}

    /** Another instance hosts the job: ask it, once. */
    record Forward(HostInfo owner) implements QueryRoute {}

    /** Nobody can answer now, e.g. during a rebalance: the client should retry shortly. */
    record Unavailable(String reason) implements QueryRoute {}

    /**
     * @param self      this instance's endpoint; null if it advertises none, in which case it knows
     *                  no other instance and answers from its own store as a lone instance would
     * @param owner     the job's key metadata, as {@link BrokerApp#ownerOf(String)} gives it
     * @param forwarded whether another instance already forwarded this request here
     */
    static QueryRoute of(HostInfo self, KeyQueryMetadata owner, boolean forwarded) {
        if (self == null) {
            return new Local();
        }
        HostInfo active = owner == null ? null : owner.activeHost();
        if (active == null || active.equals(HostInfo.unavailable()) || active.port() < 0) {
            return new Unavailable("the instance hosting this job is not known yet (rebalancing?)");
        }
        if (active.equals(self)) {
            return new Local();
        }
        if (forwarded) {
            // The sender thought this instance hosts the job, and this one thinks otherwise: the
            // views differ during a rebalance. Forwarding again could bounce the request around.
            return new Unavailable("forwarded here, but the job is hosted by " + active.host() + ":" + active.port()
                    + " (rebalancing?)");
        }
        return new Forward(active);
    }
}
