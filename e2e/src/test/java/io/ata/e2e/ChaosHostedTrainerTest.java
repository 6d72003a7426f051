package io.ata.e2e;

import io.ata.local.LocalDeployment;
import io.ata.testsupport.EndToEnd;
import io.ata.trainer.Trainer;
import io.ata.trainer.TrainerConfig;

/**
 * {@link ChaosTest} with the job's trainer in a trainer host: its trainer killed twice among the
 * other kills, each successor reading the open round again through a catch-up behind the host's
 * reader, the accounting exact.
 */
@EndToEnd
class ChaosHostedTrainerTest extends ChaosTest {
    @Override
    Trainer startTrainer(LocalDeployment local, TrainerConfig config) {
        return local.startHostedTrainer(config);
    }
}
