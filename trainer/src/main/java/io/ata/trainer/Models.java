package io.ata.trainer;

import io.ata.ml.data.DataSplit;
import io.ata.ml.data.DatasetException;
import io.ata.ml.data.DatasetResolver;
import io.ata.ml.net.NetworkSpec;
import java.util.Locale;

/**
 * Turns the command line's {@code --model} and {@code --data} into a {@link Model}:
 * {@code quadratic} is the paper's problem (no data); anything else is a network in
 * {@link NetworkSpec}'s text form ({@code mlp}, {@code cnn}, {@code mlp:4096,2048}, ...), whose
 * input shape and classes default to the data set's, trained on {@code --data} as
 * {@link DatasetResolver} resolves it.
 */
public final class Models {
    public static final String QUADRATIC = "quadratic";

    private Models() {}

    /**
     * The model named {@code model}, with the data set {@code data} (null or blank for the
     * quadratic problem) from the standard places.
     *
     * @throws IllegalArgumentException if the model or the data cannot be resolved, or do not fit
     */
    public static Model of(String model, String data, int samplesPerTask, int microBatch, long sampleSeed) {
        return of(model, data, samplesPerTask, microBatch, sampleSeed, DatasetResolver.standard());
    }

    static Model of(
            String model, String data, int samplesPerTask, int microBatch, long sampleSeed, DatasetResolver resolver) {
        String name = model == null ? "" : model.trim();
        boolean noData = data == null || data.isBlank();
        if (name.toLowerCase(Locale.ROOT).equals(QUADRATIC)) {
            if (!noData) {
                throw new IllegalArgumentException("--data applies to network models only, not to " + QUADRATIC);
            }
            return new ObjectiveModel(QuadraticObjective.paper()); // the paper's, d = 100
        }
        if (name.isEmpty()) {
            throw new IllegalArgumentException(
                    "the model is empty; give quadratic, mlp, cnn or a network such as mlp:256,128");
        }
        NetworkSpec.parse(name); // the text's own mistakes first, before looking for data
        if (noData) {
            throw new IllegalArgumentException("the network " + name
                    + " needs a data set: --data fashion-mnist, synthetic, a directory of IDX files or a .csv file");
        }
        DataSplit split;
        try {
            split = resolver.resolve(data);
        } catch (DatasetException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        NetworkSpec spec = NetworkSpec.parse(
                name, split.train().featureShape(), split.train().classes());
        return new NetworkModel(spec, data.trim(), split, samplesPerTask, microBatch, sampleSeed);
    }
}
