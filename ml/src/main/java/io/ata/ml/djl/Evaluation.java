package io.ata.ml.djl;

/** Mean softmax cross-entropy loss and accuracy (fraction correct) of a model on {@code samples} samples. */
public record Evaluation(double loss, double accuracy, int samples) {}
