package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.ml.data.DataSplit;
import io.ata.ml.data.SyntheticDataset;
import io.ata.ml.net.NetworkSpec;
import io.ata.ml.net.ParameterShape;
import io.ata.schemas.ParameterDescription;
import io.ata.schemas.TaskSpec;
import io.ata.schemas.TensorEncoding;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A network as the trainer's model: its task description, version 0, and the names it is given by. */
class NetworkModelTest {
    private static final DataSplit SYNTHETIC = SyntheticDataset.split(0);

    @Test
    void theTaskSpecDescribesNetworkLayoutDataAndSampleRule() {
        NetworkModel model = new NetworkModel(NetworkSpec.mlp(), "synthetic", SYNTHETIC, 32, 8, 77);
        TaskSpec task = model.taskSpec().orElseThrow();
        assertEquals("mlp:256,128,in=784,classes=10", task.getNetwork());
        assertEquals("float32", task.getDtype());
        assertEquals("synthetic", task.getDataset());
        assertEquals(SyntheticDataset.TRAIN_SIZE, task.getDatasetSize());
        assertEquals(32, task.getSamplesPerTask());
        assertEquals(77, task.getSampleSeed());
        assertEquals(8, task.getMicroBatch());
        List<ParameterShape> layout = NetworkSpec.mlp().layout().parameters();
        assertEquals(layout.size(), task.getParameters().size());
        for (int i = 0; i < layout.size(); i++) {
            ParameterDescription d = task.getParameters().get(i);
            assertEquals(layout.get(i).name(), d.getName());
            assertEquals(layout.get(i).shape(), d.getShape());
        }
        assertEquals(List.of(256, 784), task.getParameters().get(0).getShape());
        assertEquals("01Linear_weight", task.getParameters().get(0).getName());
        // the text form parses back to the same network, as an agent will parse it
        assertEquals(NetworkSpec.mlp(), NetworkSpec.parse(task.getNetwork()));
    }

    @Test
    void versionZeroIsTheSpecsInitialParametersInFloat32() {
        NetworkSpec spec = NetworkSpec.parse("mlp:16");
        NetworkModel model = new NetworkModel(spec, "synthetic", SYNTHETIC, 4, 4, 5);
        FlatTensor start = model.initialParameters();
        assertEquals(TensorEncoding.FLOAT32_LE, start.precision());
        assertEquals(TensorEncoding.FLOAT32_LE, model.precision());
        assertEquals(spec.parameterCount(), model.dimension());
        assertTrue(start.sameBits(FlatTensor.of(spec.initialParameters(5))));
        assertTrue(
                !start.sameBits(new NetworkModel(spec, "synthetic", SYNTHETIC, 4, 4, 6).initialParameters()),
                "another seed, other parameters");
        assertEquals(1.25, model.objective(start, 1.25), "the loss the round's results reported");
    }

    @Test
    void refusesAMisfitOrOutOfRangeSettings() {
        NetworkSpec wrongInput = NetworkSpec.parse("mlp:8,in=20");
        assertThrows(IllegalArgumentException.class, () -> new NetworkModel(wrongInput, "s", SYNTHETIC, 4, 4, 0));
        NetworkSpec fewClasses = NetworkSpec.parse("mlp:8,classes=3");
        assertThrows(IllegalArgumentException.class, () -> new NetworkModel(fewClasses, "s", SYNTHETIC, 4, 4, 0));
        NetworkSpec spec = NetworkSpec.parse("mlp:8");
        assertThrows(IllegalArgumentException.class, () -> new NetworkModel(spec, "s", SYNTHETIC, 0, 4, 0));
        assertThrows(
                IllegalArgumentException.class,
                () -> new NetworkModel(spec, "s", SYNTHETIC, SyntheticDataset.TRAIN_SIZE + 1, 4, 0));
        assertThrows(IllegalArgumentException.class, () -> new NetworkModel(spec, "s", SYNTHETIC, 4, 0, 0));
    }

    @Test
    void modelsByName() {
        assertInstanceOf(ObjectiveModel.class, Models.of("quadratic", null, 32, 16, 0));
        assertEquals("quadratic(d=100)", Models.of("Quadratic", "", 32, 16, 0).describe());
        Model cnn = Models.of("cnn", "synthetic", 32, 16, 0);
        assertEquals("cnn:16,32,32,in=1x28x28,classes=10 on synthetic", cnn.describe());
        assertEquals(NetworkSpec.cnn().parameterCount(), cnn.dimension());
        // the data set's shape fills in what the text leaves out
        assertEquals(
                "mlp:64,in=784,classes=10",
                ((NetworkModel) Models.of("mlp:64", "synthetic:3", 32, 16, 0))
                        .spec()
                        .toString());

        assertMessage("--data applies to network models only", () -> Models.of("quadratic", "synthetic", 32, 16, 0));
        assertMessage("needs a data set", () -> Models.of("mlp", null, 32, 16, 0));
        assertMessage("unknown network kind 'resnet'", () -> Models.of("resnet", null, 32, 16, 0));
        assertMessage("no such file or directory", () -> Models.of("mlp", "/no/such/dir", 32, 16, 0));
    }

    private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void theQuadraticKeepsFloat64AndHasNoTaskSpec() {
        ObjectiveModel quadratic = new ObjectiveModel(QuadraticObjective.paper());
        assertEquals(TensorEncoding.FLOAT64_LE, quadratic.precision());
        assertTrue(quadratic.taskSpec().isEmpty());
        FlatTensor x0 = quadratic.initialParameters();
        assertArrayEquals(QuadraticObjective.paper().initialParameters(), x0.toDoubles(), 0);
        TestScorer.TestScore score = quadratic.scorer(1).score(x0);
        assertEquals(QuadraticObjective.paper().evaluate(x0.toDoubles()), score.loss());
        assertTrue(Double.isNaN(score.accuracy()));
        assertEquals(0, score.samples());
    }
}
