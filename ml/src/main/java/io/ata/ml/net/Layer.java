package io.ata.ml.net;

/**
 * One step of a network's architecture, in order: what {@link NetworkSpec#architecture()} lists,
 * the parameter layout is computed from and the DJL builder turns into blocks (one block per
 * layer), so the two can never disagree about the structure.
 */
public sealed interface Layer {

    /** Fully connected layer with {@code units} outputs ({@code y = x W^T + b}). */
    record Dense(int units) implements Layer {}

    /** 3x3 convolution, stride 1, padding 1 (keeps height and width), {@code channels} filters. */
    record Conv3x3(int channels) implements Layer {}

    /** {@code max(0, x)}, no parameters. */
    record Relu() implements Layer {}

    /** 2x2 max-pooling with stride 2 (height and width halve, rounding down), no parameters. */
    record MaxPool2x2() implements Layer {}

    /** Flattens {@code (N, C, H, W)} to {@code (N, C*H*W)}, no parameters. */
    record Flatten() implements Layer {}
}
