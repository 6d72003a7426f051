package io.ata.e2e;

import io.ata.local.LocalDeployment;
import io.ata.testsupport.EndToEnd;
import org.junit.jupiter.api.AfterEach;

/**
 * {@link FailureRecoveryTest} under pipelined allocation: workers joining and dying, restarts and
 * bad records, with each round planned a round ahead.
 */
@EndToEnd
class FailureRecoveryPipelinedTest extends FailureRecoveryTest {
    FailureRecoveryPipelinedTest() {
        super(LocalDeployment.QUICK_LIVENESS.withPipelinedAllocation(true));
    }

    @AfterEach
    void roundsWerePlannedAhead(LocalDeployment local) {
        RoundsPlannedAhead.assertSome(local);
    }
}
