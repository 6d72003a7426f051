package io.ata.ml.djl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import io.ata.ml.data.Dataset;
import io.ata.ml.data.SyntheticDataset;
import io.ata.ml.net.NetworkSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class GradientComputerTest {
    private static final Dataset SYNTHETIC = SyntheticDataset.split(0).train();

    @BeforeAll
    static void start() {
        DjlRuntime.start(1);
    }

    /**
     * Every coordinate of an mlp's gradient against a central finite difference of the loss
     * (computed by the Evaluator). The loss is float32, so a difference has noise of about 1e-4
     * here, and ReLU makes the loss piecewise smooth: a coordinate whose step crosses a kink (its
     * two differences, with steps 2e-3 and 1e-3, disagree) says nothing and is skipped, but most
     * coordinates must be smooth and match.
     */
    @Test
    void mlpGradientMatchesFiniteDifferencesCoordinateByCoordinate() {
        try (Probe probe = Probe.of("mlp:5,in=6,classes=3")) {
            float[] parameters = probe.parameters();
            GradientResult result = probe.gradient();
            Evaluator evaluator = probe.evaluator();
            int smooth = 0;
            int nonZero = 0;
            for (int i = 0; i < parameters.length; i++) {
                double wide = probe.finiteDifference(evaluator, i, 2e-3f);
                double narrow = probe.finiteDifference(evaluator, i, 1e-3f);
                nonZero += result.gradient()[i] != 0 ? 1 : 0;
                if (Math.abs(wide - narrow) > 1.5e-4 + 0.02 * Math.abs(narrow)) {
                    continue; // a kink within the step
                }
                smooth++;
                assertEquals(narrow, result.gradient()[i], 1.5e-4 + 0.02 * Math.abs(narrow), "coordinate " + i);
            }
            assertTrue(smooth >= 0.8 * parameters.length, smooth + " of " + parameters.length + " smooth");
            assertTrue(nonZero >= parameters.length / 3, nonZero + " of " + parameters.length + " non-zero");
            assertEquals(probe.loss(evaluator, parameters), result.loss(), 1e-6);
        }
    }

    /**
     * A cnn's loss has a kink wherever a ReLU or a max-pool switches, so many that single
     * coordinates of the convolutions often sit right on one. Checked instead: each coordinate
     * of the last (dense) layer, where the loss is smooth, and the whole gradient along random
     * directions, where single kinks weigh little.
     */
    @Test
    void cnnGradientMatchesFiniteDifferences() {
        try (Probe probe = Probe.of("cnn:2,2,in=1x6x6,classes=3")) {
            float[] parameters = probe.parameters();
            float[] gradient = probe.gradient().gradient();
            Evaluator evaluator = probe.evaluator();
            int lastLayer = probe.spec()
                    .layout()
                    .offset(probe.spec().layout().parameters().size() - 2);
            for (int i = lastLayer; i < parameters.length; i++) {
                double numeric = probe.finiteDifference(evaluator, i, 1e-3f);
                assertEquals(numeric, gradient[i], 1.5e-4 + 0.02 * Math.abs(numeric), "coordinate " + i);
            }
            java.util.SplittableRandom random = new java.util.SplittableRandom(9);
            for (int d = 0; d < 3; d++) {
                float[] plus = parameters.clone();
                float[] minus = parameters.clone();
                double predicted = 0;
                for (int i = 0; i < parameters.length; i++) {
                    double v = 2 * random.nextDouble() - 1;
                    plus[i] += (float) (1e-3 * v);
                    minus[i] -= (float) (1e-3 * v);
                    predicted += gradient[i] * ((double) plus[i] - minus[i]);
                }
                double up = probe.loss(evaluator, plus);
                double down = probe.loss(evaluator, minus);
                assertEquals(up - down, predicted, 2e-7 + 0.01 * Math.abs(predicted), "direction " + d);
            }
        }
    }

    /**
     * A small network of {@code spec} at its seed-2 start, 12 random samples of 3 classes, and an
     * evaluator of all 12 for finite differences of the loss.
     */
    private record Probe(NetworkSpec spec, Dataset data, int[] samples, float[] parameters, DjlNetwork network)
            implements AutoCloseable {
        static Probe of(String text) {
            NetworkSpec spec = NetworkSpec.parse(text);
            Dataset data = DjlTestSupport.randomData(12, spec.inputShape(), 3, 5);
            float[] parameters = spec.initialParameters(2);
            DjlNetwork network = DjlNetwork.build(spec, Device.cpu());
            network.setParameters(parameters);
            return new Probe(spec, data, DjlTestSupport.range(0, 12), parameters, network);
        }

        GradientResult gradient() {
            return new GradientComputer(network, 5).compute(data, samples, () -> false);
        }

        Evaluator evaluator() {
            return new Evaluator(network, 12);
        }

        double loss(Evaluator evaluator, float[] at) {
            network.setParameters(at);
            return evaluator.evaluate(data, samples).loss();
        }

        /** The central difference of the loss along coordinate {@code i}. */
        double finiteDifference(Evaluator evaluator, int i, float step) {
            float[] plus = parameters.clone();
            plus[i] += step;
            float[] minus = parameters.clone();
            minus[i] -= step;
            return (loss(evaluator, plus) - loss(evaluator, minus)) / ((double) plus[i] - minus[i]);
        }

        @Override
        public void close() {
            network.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"mlp", "cnn"})
    void theSameParametersAndSamplesGiveBitwiseTheSameGradient(String text) throws Exception {
        NetworkSpec spec = NetworkSpec.parse(text);
        int[] samples = {5, 17, 3, 99, 1000, 42, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 20, 21, 22};
        try (DjlNetwork a = DjlNetwork.build(spec, Device.cpu());
                DjlNetwork b = DjlNetwork.build(spec, Device.cpu())) {
            a.setParameters(spec.initialParameters(7));
            b.setParameters(spec.initialParameters(7));
            GradientComputer onA = new GradientComputer(a, 8);
            GradientResult first = onA.compute(SYNTHETIC, samples, () -> false);
            GradientResult again = onA.compute(SYNTHETIC, samples, () -> false);
            GradientResult elsewhere = new GradientComputer(b, 8).compute(SYNTHETIC, samples, () -> false);
            ExecutorService thread = Executors.newSingleThreadExecutor();
            GradientResult otherThread;
            try {
                otherThread = thread.submit(() -> onA.compute(SYNTHETIC, samples, () -> false))
                        .get();
            } finally {
                thread.shutdown();
            }
            for (GradientResult r : List.of(again, elsewhere, otherThread)) {
                assertArrayEquals(first.gradient(), r.gradient());
                assertEquals(first.loss(), r.loss());
            }
            assertEquals(samples.length, first.samples());
            assertFalse(first.cancelled());
            // no optimizer step: the parameters are untouched
            assertArrayEquals(spec.initialParameters(7), a.parameters());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"mlp", "cnn"})
    void microBatchesAddUpToTheOneBatchGradient(String text) {
        NetworkSpec spec = NetworkSpec.parse(text);
        int[] samples = DjlTestSupport.range(100, 164);
        try (DjlNetwork network = DjlNetwork.build(spec, Device.cpu())) {
            network.setParameters(spec.initialParameters(3));
            GradientResult whole = new GradientComputer(network, 64).compute(SYNTHETIC, samples, () -> false);
            for (int microBatch : new int[] {7, 16}) {
                GradientResult pieces =
                        new GradientComputer(network, microBatch).compute(SYNTHETIC, samples, () -> false);
                double difference = DjlTestSupport.relativeDifference(pieces.gradient(), whole.gradient());
                assertTrue(difference < 1e-6, "micro-batch " + microBatch + ": relative difference " + difference);
                assertEquals(whole.loss(), pieces.loss(), 1e-6 * whole.loss());
                assertFalse(pieces.cancelled());
            }
        }
    }

    @Test
    void cancellingAfterTheFirstMicroBatchReturnsWhatWasDone() {
        NetworkSpec spec = NetworkSpec.mlp();
        int[] samples = DjlTestSupport.range(0, 40);
        try (DjlNetwork network = DjlNetwork.build(spec, Device.cpu())) {
            network.setParameters(spec.initialParameters(4));
            GradientComputer computer = new GradientComputer(network, 16);
            AtomicInteger asked = new AtomicInteger();
            GradientResult cancelled = computer.compute(SYNTHETIC, samples, () -> asked.incrementAndGet() > 1);

            assertEquals(2, asked.get()); // before the first micro-batch, then before the second
            assertTrue(cancelled.cancelled());
            assertEquals(16, cancelled.samples());
            assertEquals(40, cancelled.requested());
            GradientResult firstSixteen = computer.compute(SYNTHETIC, DjlTestSupport.range(0, 16), () -> false);
            // the same up to float32 rounding (the copies' gradient was scaled by 16/40, then back)
            assertTrue(DjlTestSupport.relativeDifference(cancelled.gradient(), firstSixteen.gradient()) < 1e-6);
            assertEquals(firstSixteen.loss(), cancelled.loss());

            GradientResult none = computer.compute(SYNTHETIC, samples, () -> true);
            assertEquals(0, none.samples());
            assertTrue(none.cancelled());
            assertArrayEquals(new float[spec.parameterCount()], none.gradient());
        }
    }

    @Test
    void dataThatDoesNotFitIsRefused() {
        try (DjlNetwork network = DjlNetwork.build(NetworkSpec.parse("mlp:4,in=20,classes=3"), Device.cpu())) {
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class,
                    () -> new GradientComputer(network, 8).compute(SYNTHETIC, new int[] {0}, () -> false));
            assertEquals(
                    "the network mlp:4,in=20,classes=3 takes 20 input features, but synthetic/train has samples of"
                            + " [1, 28, 28]",
                    e.getMessage());
        }
    }

    @Test
    void noArraysLeakIntoTheNetworksManager() {
        NetworkSpec spec = NetworkSpec.cnn();
        try (DjlNetwork network = DjlNetwork.build(spec, Device.cpu())) {
            network.setParameters(spec.initialParameters(1));
            int arrays = network.manager().getManagedArrays().size();
            GradientComputer computer = new GradientComputer(network, 8);
            for (int i = 0; i < 20; i++) {
                computer.compute(SYNTHETIC, DjlTestSupport.range(i, i + 20), () -> false);
                new Evaluator(network, 16).evaluate(SYNTHETIC, DjlTestSupport.range(i, i + 20));
            }
            assertEquals(arrays, network.manager().getManagedArrays().size());
        }
    }

    /**
     * Agents in one JVM compute at the same time: DJL's one-collector-per-JVM rule must not make
     * any of them fail, and each gets exactly what it would get alone.
     */
    @Test
    void agentsInOneJvmComputeConcurrently() throws Exception {
        NetworkSpec spec = NetworkSpec.parse("mlp:64,32");
        int agents = 3;
        List<DjlNetwork> networks = new ArrayList<>();
        try {
            List<float[]> expected = new ArrayList<>();
            for (int a = 0; a < agents; a++) {
                DjlNetwork network = DjlNetwork.build(spec, Device.cpu());
                networks.add(network);
                network.setParameters(spec.initialParameters(a));
                expected.add(new GradientComputer(network, 4)
                        .compute(SYNTHETIC, DjlTestSupport.range(a, a + 24), () -> false)
                        .gradient());
            }
            ExecutorService pool = Executors.newFixedThreadPool(agents);
            try {
                List<Future<Boolean>> runs = new ArrayList<>();
                for (int a = 0; a < agents; a++) {
                    int agent = a;
                    GradientComputer computer = new GradientComputer(networks.get(a), 4);
                    Callable<Boolean> run = () -> {
                        for (int i = 0; i < 15; i++) {
                            float[] g = computer.compute(
                                            SYNTHETIC, DjlTestSupport.range(agent, agent + 24), () -> false)
                                    .gradient();
                            if (!java.util.Arrays.equals(expected.get(agent), g)) {
                                return false;
                            }
                        }
                        return true;
                    };
                    runs.add(pool.submit(run));
                }
                for (Future<Boolean> run : runs) {
                    assertTrue(run.get());
                }
            } finally {
                pool.shutdown();
            }
        } finally {
            networks.forEach(DjlNetwork::close);
        }
    }

    /**
     * Garbage collections do not change a gradient. DJL's PyTorch engine makes an array from Java
     * values on a Java direct buffer that the native tensor reads without owning it: an array that
     * PyTorch's graph still needs at the backward pass must stay reachable from Java until then.
     * The micro-batch weighting once broke that rule (DJL's {@code mul(Number)} closes its scalar at
     * once), and a collection between a forward and a backward pass scaled the whole gradient by
     * whatever the freed memory held. Micro-batches of one sample make many such passes, while a
     * thread collects garbage every millisecond; every gradient must equal, bit for bit, the
     * first. (Without the fix, most runs here differed, often by 1e30 and more.)
     */
    @Test
    void garbageCollectionsDuringTheComputationDoNotChangeTheGradient() throws Exception {
        NetworkSpec spec = NetworkSpec.parse("mlp:64,32");
        int[] samples = DjlTestSupport.range(200, 232);
        try (DjlNetwork network = DjlNetwork.build(spec, Device.cpu())) {
            network.setParameters(spec.initialParameters(11));
            GradientComputer computer = new GradientComputer(network, 1);
            float[] expected = computer.compute(SYNTHETIC, samples, () -> false).gradient();
            AtomicBoolean done = new AtomicBoolean();
            Thread collector = new Thread(() -> {
                while (!done.get()) {
                    System.gc();
                    LockSupport.parkNanos(1_000_000); // leave the computation some CPU
                }
            });
            collector.start();
            try {
                for (int run = 0; run < 6; run++) {
                    assertArrayEquals(
                            expected,
                            computer.compute(SYNTHETIC, samples, () -> false).gradient(),
                            "run " + run);
                }
            } finally {
                done.set(true);
                collector.join();
            }
        }
    }
}
