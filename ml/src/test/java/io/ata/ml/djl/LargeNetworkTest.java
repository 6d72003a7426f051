package io.ata.ml.djl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import io.ata.ml.data.SyntheticDataset;
import io.ata.ml.net.NetworkSpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A network of about ten million parameters builds, takes parameters and gives a gradient. */
class LargeNetworkTest {

    @BeforeAll
    static void start() {
        DjlRuntime.start(1);
    }

    @Test
    void elevenMillionParameters() {
        NetworkSpec spec = NetworkSpec.parse("mlp:4096,2048");
        assertEquals(11_626_506, spec.parameterCount());
        float[] parameters = spec.initialParameters(1);
        try (DjlNetwork network = DjlNetwork.build(spec, Device.cpu())) {
            network.setParameters(parameters);
            int arrays = network.manager().getManagedArrays().size();
            GradientResult result = new GradientComputer(network, 8)
                    .compute(SyntheticDataset.split(0).train(), DjlTestSupport.range(0, 16), () -> false);
            assertEquals(spec.parameterCount(), result.gradient().length);
            assertEquals(16, result.samples());
            assertTrue(Double.isFinite(result.loss()) && result.loss() > 0, "loss " + result.loss());
            boolean anyNonZero = false;
            for (float g : result.gradient()) {
                assertTrue(Float.isFinite(g));
                anyNonZero |= g != 0;
            }
            assertTrue(anyNonZero);
            assertEquals(arrays, network.manager().getManagedArrays().size());
            assertFalse(result.cancelled());
        }
    }
}
