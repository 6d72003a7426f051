package io.ata.ml.data;

/**
 * A training set (the agents draw task samples from it) and a test set (the trainer evaluates each
 * model version on it), with the same sample shape and number of classes.
 */
public record DataSplit(Dataset train, Dataset test) {

    public DataSplit {
        if (!train.featureShape().equals(test.featureShape())) {
            throw new DatasetException(train.name() + " has samples of " + train.featureShape() + " but " + test.name()
                    + " of " + test.featureShape());
        }
        if (train.classes() != test.classes()) {
            throw new DatasetException(train.name() + " has " + train.classes() + " classes but " + test.name()
                    + " has " + test.classes());
        }
    }
}
