package io.ata.e2e;

import io.ata.local.LocalDeployment;
import io.ata.testsupport.EndToEnd;
import org.junit.jupiter.api.AfterEach;

/**
 * {@link HostileRecordsFuzzTest} under pipelined allocation: every hostile record gets its letter
 * and the job its rounds, with each round planned a round ahead.
 */
@EndToEnd
class HostileRecordsFuzzPipelinedTest extends HostileRecordsFuzzTest {
    HostileRecordsFuzzPipelinedTest() {
        super(LocalDeployment.QUICK_LIVENESS.withPipelinedAllocation(true));
    }

    @AfterEach
    void roundsWerePlannedAhead() {
        RoundsPlannedAhead.assertSome(local);
    }
}
