package io.ata.e2e;

import io.ata.local.LocalDeployment;
import io.ata.testsupport.EndToEnd;
import org.junit.jupiter.api.AfterEach;

/**
 * {@link ChaosTest} under pipelined allocation: the kills in turn keep the accounting exact when
 * each round is planned a round ahead.
 */
@EndToEnd
class ChaosPipelinedTest extends ChaosTest {
    ChaosPipelinedTest() {
        super(LocalDeployment.QUICK_LIVENESS.withPipelinedAllocation(true));
    }

    @AfterEach
    void roundsWerePlannedAhead(LocalDeployment local) {
        RoundsPlannedAhead.assertSome(local);
    }
}
