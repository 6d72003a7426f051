package io.ata.ml.djl;

import ai.djl.Device;
import io.ata.ml.data.DataSplit;
import io.ata.ml.data.Dataset;
import io.ata.ml.data.DatasetException;
import io.ata.ml.data.DatasetResolver;
import io.ata.ml.data.SyntheticDataset;
import io.ata.ml.data.TaskSamples;
import io.ata.ml.net.NetworkSpec;
import java.util.Arrays;

/**
 * Prints median timings of the ML pieces on this machine (not a test). Run after {@code ./mvnw -B
 * test-compile -pl ml -am} with the module's test classpath, e.g.
 *
 * <pre>
 * java -cp ml/target/test-classes:ml/target/classes:broker/workloads/target/classes:$(cat cp.txt) \
 *     io.ata.ml.djl.GradientBench [threads]
 * </pre>
 */
public final class GradientBench {
    private static int warmup = 20;
    private static int runs = 50;

    private GradientBench() {}

    public static void main(String[] args) {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 1;
        long t0 = System.nanoTime();
        DjlRuntime.start(threads);
        System.out.printf("engine start: %.0f ms (threads %d)%n", ms(System.nanoTime() - t0), threads);
        System.out.println("cpu: " + DeviceInfo.of(Device.cpu()));

        DataSplit data;
        try {
            long t1 = System.nanoTime();
            data = DatasetResolver.standard().resolve("fashion-mnist");
            System.out.printf(
                    "fashion-mnist load (train %d + test %d): %.0f ms%n",
                    data.train().size(), data.test().size(), ms(System.nanoTime() - t1));
        } catch (DatasetException e) {
            System.out.println("fashion-mnist: " + e.getMessage() + "; using synthetic");
            data = SyntheticDataset.split(0);
        }

        for (String net : new String[] {"mlp", "cnn", "mlp:4096,2048"}) {
            NetworkSpec spec = NetworkSpec.parse(net);
            boolean large = spec.parameterCount() > 1_000_000;
            warmup = large ? 2 : 20;
            runs = large ? 9 : 50;
            float[] parameters = spec.initialParameters(1);
            try (DjlNetwork network = DjlNetwork.build(spec, Device.cpu())) {
                network.setParameters(parameters);
                for (int microBatch : new int[] {32, 16, 8}) {
                    GradientComputer computer = new GradientComputer(network, microBatch);
                    Dataset train = data.train();
                    double median = median(i ->
                            computer.compute(train, TaskSamples.of(0, "bench", i, 0, train.size(), 32), () -> false));
                    System.out.printf(
                            "%-14s %,11d params: gradient of 32 samples, micro-batch %2d: %7.2f ms%n",
                            net, spec.parameterCount(), microBatch, median);
                }
                System.out.printf(
                        "%-14s setParameters: %7.2f ms%n", net, median(i -> network.setParameters(parameters)));
                Evaluator evaluator = new Evaluator(network, 256);
                Dataset test = data.test();
                System.out.printf(
                        "%-14s evaluate 32 samples: %7.2f ms%n",
                        net, median(i -> evaluator.evaluate(test, TaskSamples.of(0, "eval", i, 0, test.size(), 32))));
                if (large) {
                    continue; // a full evaluation takes tens of seconds on one thread
                }
                long t2 = System.nanoTime();
                Evaluation all = evaluator.evaluate(test);
                System.out.printf(
                        "%-14s evaluate all %d test samples: %7.0f ms (accuracy %.3f)%n",
                        net, all.samples(), ms(System.nanoTime() - t2), all.accuracy());
            }
        }
    }

    private interface Run {
        void run(int i);
    }

    private static double median(Run run) {
        for (int i = 0; i < warmup; i++) {
            run.run(i);
        }
        long[] times = new long[runs];
        for (int i = 0; i < runs; i++) {
            long start = System.nanoTime();
            run.run(warmup + i);
            times[i] = System.nanoTime() - start;
        }
        Arrays.sort(times);
        return ms(times[runs / 2]);
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }
}
