package io.ata.ml.djl;

import ai.djl.Device;
import io.ata.ml.net.NetworkSpec;
import java.nio.FloatBuffer;
import java.util.Arrays;

/**
 * Sets a small network's parameters in a child JVM for {@link DjlNetworkTest}, which reads what
 * libtorch prints on the process's stderr: through {@link DjlNetwork#setParameters}, or with
 * {@code buffer} through DJL's {@code NDArray.set(Buffer)}, the call that prints libtorch's
 * deprecation warning. Prints {@code set} when the values read back equal those given.
 */
public final class SetParametersMain {

    private SetParametersMain() {}

    public static void main(String[] args) {
        DjlRuntime.start(1);
        NetworkSpec spec = NetworkSpec.parse("mlp:3,in=2,classes=2");
        float[] values = spec.initialParameters(1);
        try (DjlNetwork network = DjlNetwork.build(spec, Device.cpu())) {
            if (args.length > 0 && args[0].equals("buffer")) {
                network.parameterList().get(0).getArray().set(FloatBuffer.wrap(values, 0, 6));
                System.out.println("set");
            } else {
                network.setParameters(values);
                System.out.println(Arrays.equals(values, network.parameters()) ? "set" : "differs");
            }
        }
    }
}
