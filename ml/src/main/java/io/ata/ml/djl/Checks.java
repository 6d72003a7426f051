package io.ata.ml.djl;

import io.ata.ml.data.Dataset;
import io.ata.ml.net.NetworkSpec;

/** Whether a data set fits a network, with a message that says how it does not. */
final class Checks {

    private Checks() {}

    static void requireFits(NetworkSpec spec, Dataset data) {
        if (data.featureCount() != spec.inputSize()) {
            throw new IllegalArgumentException("the network " + spec + " takes " + spec.inputSize()
                    + " input features, but " + data.name() + " has samples of " + data.featureShape());
        }
        if (data.classes() > spec.classes()) {
            throw new IllegalArgumentException("the network " + spec + " has " + spec.classes() + " classes, but "
                    + data.name() + " has " + data.classes());
        }
    }
}
