package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.djl.Device;
import io.ata.ml.data.DataSplit;
import io.ata.ml.data.SyntheticDataset;
import io.ata.ml.djl.DjlNetwork;
import io.ata.ml.djl.DjlRuntime;
import io.ata.ml.djl.Evaluation;
import io.ata.ml.djl.Evaluator;
import io.ata.ml.net.NetworkSpec;
import org.junit.jupiter.api.Test;

/** Scoring a network's versions on the test split with DJL, as the trainer's background thread does. */
class NetworkScorerTest {

    @Test
    void scoresEachVersionOnTheWholeTestSet() {
        NetworkSpec spec = NetworkSpec.parse("mlp:16");
        DataSplit data = SyntheticDataset.split(0);
        NetworkModel model = new NetworkModel(spec, "synthetic", data, 32, 16, 3);
        FlatTensor v0 = model.initialParameters();
        FlatTensor other = FlatTensor.of(spec.initialParameters(99));
        try (TestScorer scorer = model.scorer(1)) {
            TestScorer.TestScore first = scorer.score(v0);
            TestScorer.TestScore second = scorer.score(other);
            assertEquals(SyntheticDataset.TEST_SIZE, first.samples());
            assertEquals("synthetic", first.dataset());

            // the same numbers as an evaluator of ata-ml over a network built here
            DjlRuntime.start(1);
            try (DjlNetwork network = DjlNetwork.build(spec, Device.cpu())) {
                Evaluator evaluator = new Evaluator(network, 250);
                network.setParameters(spec.initialParameters(3));
                Evaluation expected = evaluator.evaluate(data.test());
                assertEquals(expected.loss(), first.loss(), 1e-5);
                assertEquals(expected.accuracy(), first.accuracy());
                network.setParameters(spec.initialParameters(99));
                assertEquals(evaluator.evaluate(data.test()).loss(), second.loss(), 1e-5, "new parameters are used");
            }
            assertNotEquals(first.loss(), second.loss());
            assertThrows(IllegalArgumentException.class, () -> scorer.score(FlatTensor.of(new double[3])));
        }
    }
}
