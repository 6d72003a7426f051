package io.ata.ml.djl;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.util.Pair;
import io.ata.ml.net.NetworkSpec;
import io.ata.ml.net.ParameterLayout;
import io.ata.ml.net.ParameterShape;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The DJL network of a {@link NetworkSpec} on one device, built once and then fed new parameter
 * values as model versions change ({@link #setParameters(float[])} overwrites the values in place;
 * nothing is rebuilt). {@link #build} checks the built parameters against the spec's {@link
 * NetworkSpec#layout() layout}.
 *
 * <p>The parameters hold DJL's random initial values until the first {@link #setParameters}. Not
 * thread-safe: a network, and the {@link GradientComputer} or {@link Evaluator} over it, serve one
 * thread at a time. Close it to free its native memory.
 */
public final class DjlNetwork implements AutoCloseable {
    private final NetworkSpec spec;
    private final ParameterLayout layout;
    private final NDManager manager;
    private final Block block;
    private final List<Parameter> parameters;

    private DjlNetwork(
            NetworkSpec spec, ParameterLayout layout, NDManager manager, Block block, List<Parameter> parameters) {
        this.spec = spec;
        this.layout = layout;
        this.manager = manager;
        this.block = block;
        this.parameters = parameters;
    }

    /**
     * Builds the network of {@code spec} on {@code device} ({@link DjlRuntime#start(int)} first).
     *
     * @throws io.ata.ml.net.LayoutMismatchException if DJL's parameters differ from the spec's
     *     layout (names or shapes; the first difference is named)
     */
    public static DjlNetwork build(NetworkSpec spec, Device device) {
        return build(spec, blockOf(spec), device);
    }

    /** Initialises {@code block} for {@code spec}'s input and checks it against the spec's layout. */
    static DjlNetwork build(NetworkSpec spec, Block block, Device device) {
        NDManager manager = DjlRuntime.engine().newBaseManager(device);
        try {
            block.initialize(manager, DataType.FLOAT32, batchShape(spec, 1));
            List<Parameter> parameters = new ArrayList<>();
            List<ParameterShape> built = new ArrayList<>();
            for (Pair<String, Parameter> entry : block.getParameters()) {
                Parameter parameter = entry.getValue();
                NDArray array = parameter.getArray();
                // the master values never collect gradients: each step differentiates fresh copies
                array.setRequiresGradient(false);
                parameters.add(parameter);
                built.add(new ParameterShape(
                        entry.getKey(),
                        Arrays.stream(array.getShape().getShape())
                                .mapToInt(Math::toIntExact)
                                .boxed()
                                .toList()));
            }
            ParameterLayout layout = spec.layout();
            layout.requireSame(ParameterLayout.of(built), "the network DJL built");
            return new DjlNetwork(spec, layout, manager, block, List.copyOf(parameters));
        } catch (RuntimeException e) {
            manager.close();
            throw e;
        }
    }

    /** A new DJL block of the spec's network: its kind's {@link io.ata.ml.net.NetworkKind#block}. */
    static Block blockOf(NetworkSpec spec) {
        return spec.kind().block(spec);
    }

    /**
     * The input shape of a batch of {@code n}: {@code (n, spec.inputShape()...)}, so {@code (n,
     * features)} for mlp and {@code (n, C, H, W)} for cnn.
     */
    static Shape batchShape(NetworkSpec spec, int n) {
        List<Integer> sample = spec.inputShape();
        long[] dims = new long[sample.size() + 1];
        dims[0] = n;
        for (int i = 0; i < sample.size(); i++) {
            dims[i + 1] = sample.get(i);
        }
        return new Shape(dims);
    }

    /**
     * Overwrites every parameter with {@code values} (the flat layout order). Cheap next to a
     * gradient: one copy per tensor; call it once per model version, not once per task.
     *
     * <p>Each tensor is written through an index ({@code target[...] = source}), not with
     * {@code NDArray.set(Buffer)}: DJL's PyTorch bridge runs that one under libtorch's deprecated
     * {@code AutoNonVariableTypeMode} guard, whose first use prints a deprecation warning on stderr
     * that no setting silences. The master values never require gradients, so the indexed write
     * records nothing for autograd, whatever the calling thread's grad mode.
     */
    public void setParameters(float[] values) {
        if (values.length != layout.totalSize()) {
            throw new IllegalArgumentException("the network " + spec + " has " + layout.totalSize()
                    + " parameters, got " + values.length + " values");
        }
        for (int i = 0; i < parameters.size(); i++) {
            int size = Math.toIntExact(layout.parameters().get(i).size());
            NDArray target = parameters.get(i).getArray();
            try (NDArray source = manager.create(FloatBuffer.wrap(values, layout.offset(i), size), target.getShape())) {
                target.set(new NDIndex("..."), source);
            }
        }
    }

    /** The current parameter values, flat, in layout order. */
    public float[] parameters() {
        float[] values = new float[layout.totalSize()];
        for (int i = 0; i < parameters.size(); i++) {
            float[] tensor = parameters.get(i).getArray().toFloatArray();
            System.arraycopy(tensor, 0, values, layout.offset(i), tensor.length);
        }
        return values;
    }

    public NetworkSpec spec() {
        return spec;
    }

    public ParameterLayout layout() {
        return layout;
    }

    public Device device() {
        return manager.getDevice();
    }

    Block block() {
        return block;
    }

    NDManager manager() {
        return manager;
    }

    List<Parameter> parameterList() {
        return parameters;
    }

    Shape batchShape(int n) {
        return batchShape(spec, n);
    }

    @Override
    public void close() {
        manager.close();
    }
}
