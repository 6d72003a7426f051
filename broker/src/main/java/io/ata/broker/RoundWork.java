package io.ata.broker;

import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TimingStatus;

/**
 * What a closed round cost the fleet, from its CLOSED event's timings: the compute time of every
 * task ({@code busyMs}) and of the tasks whose work the round did not use, late or cancelled
 * ({@code wastedMs}). The broker's meters and its round history both report these.
 */
record RoundWork(double busyMs, double wastedMs) {

    static RoundWork of(RoundEvent closed) {
        double busy = 0;
        double wasted = 0;
        for (RoundTiming t : closed.getTimings()) {
            busy += t.getComputeMs();
            if (t.getStatus() != TimingStatus.COMPLETED) {
                wasted += t.getComputeMs();
            }
        }
        return new RoundWork(busy, wasted);
    }
}
