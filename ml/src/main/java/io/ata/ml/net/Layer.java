package io.ata.ml.net;

import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.Block;
import ai.djl.nn.Blocks;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.convolutional.Conv2d;
import ai.djl.nn.core.Linear;
import ai.djl.nn.pooling.Pool;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * One step of a network's architecture, in order: what {@link NetworkSpec#architecture()} lists.
 * A layer gives both its parameter tensors (names and shapes, in plain Java) and its DJL block, so
 * the {@link ParameterLayout} and the built network come from the same list and cannot disagree
 * about the structure. Building a block needs DJL's classes but not its engine.
 *
 * <p>Shapes here are those of one sample, without the batch dimension. A network kind of its own
 * may bring layers of its own: implement this interface.
 */
public interface Layer {

    /**
     * The shape of one sample after this layer, given its shape before.
     *
     * @throws IllegalArgumentException if the layer cannot take that shape
     */
    List<Integer> outputShape(List<Integer> input);

    /**
     * This layer's parameter tensors for an input of {@code input}, in DJL's order, each named
     * {@code prefix} (the layer's position, as DJL's {@link SequentialBlock} names it) followed by
     * DJL's block and parameter names ({@code Linear_weight}). None by default.
     */
    default List<ParameterShape> parameters(String prefix, List<Integer> input) {
        return List.of();
    }

    /** A new DJL block for this layer (uninitialised: DJL gives it its shapes at build). */
    Block block();

    /**
     * The parameter tensors of {@code layers} in order, on inputs of {@code inputShape}: each
     * layer's {@link #parameters} under the prefix DJL gives the child blocks of a {@link
     * SequentialBlock}, the 1-based position, two digits at least ({@code 01}, ..., {@code 99},
     * {@code 100}). Every layer takes a position, with parameters or not.
     */
    static List<ParameterShape> parametersOf(List<? extends Layer> layers, List<Integer> inputShape) {
        List<ParameterShape> params = new ArrayList<>();
        List<Integer> shape = inputShape;
        int position = 0;
        for (Layer layer : layers) {
            position++;
            params.addAll(layer.parameters(String.format(Locale.ROOT, "%02d", position), shape));
            shape = layer.outputShape(shape);
        }
        return params;
    }

    /**
     * Fully connected layers of the {@code hidden} sizes, each followed by a new {@code activation},
     * then one of {@code classes} units (the logits): {@code mlp}'s layers, with any activation.
     */
    static List<Layer> denseStack(List<Integer> hidden, int classes, Supplier<Layer> activation) {
        List<Layer> layers = new ArrayList<>();
        for (int units : hidden) {
            layers.add(new Dense(units));
            layers.add(activation.get());
        }
        layers.add(new Dense(classes));
        return layers;
    }

    /** One DJL block running {@code layers} in order, one child block per layer. */
    static Block sequentialBlock(List<? extends Layer> layers) {
        SequentialBlock block = new SequentialBlock();
        for (Layer layer : layers) {
            block.add(layer.block());
        }
        return block;
    }

    /** Fully connected layer with {@code units} outputs ({@code y = x W^T + b}) on a flat input. */
    record Dense(int units) implements Layer {
        @Override
        public List<Integer> outputShape(List<Integer> input) {
            requireFlat(input);
            return List.of(units);
        }

        /** {@code Linear_weight [units, in]} and {@code Linear_bias [units]}. */
        @Override
        public List<ParameterShape> parameters(String prefix, List<Integer> input) {
            requireFlat(input);
            return List.of(
                    ParameterShape.of(prefix + "Linear_weight", units, input.get(0)),
                    ParameterShape.of(prefix + "Linear_bias", units));
        }

        @Override
        public Block block() {
            return Linear.builder().setUnits(units).build();
        }

        private static void requireFlat(List<Integer> input) {
            if (input.size() != 1) {
                throw new IllegalArgumentException("a dense layer takes a flat input, not " + input);
            }
        }
    }

    /** 3x3 convolution, stride 1, padding 1 (keeps height and width), {@code channels} filters. */
    record Conv3x3(int channels) implements Layer {
        @Override
        public List<Integer> outputShape(List<Integer> input) {
            requireImage(input);
            return List.of(channels, input.get(1), input.get(2));
        }

        /** {@code Conv2d_weight [channels, C, 3, 3]} and {@code Conv2d_bias [channels]}. */
        @Override
        public List<ParameterShape> parameters(String prefix, List<Integer> input) {
            requireImage(input);
            return List.of(
                    ParameterShape.of(prefix + "Conv2d_weight", channels, input.get(0), 3, 3),
                    ParameterShape.of(prefix + "Conv2d_bias", channels));
        }

        @Override
        public Block block() {
            return Conv2d.builder()
                    .setKernelShape(new Shape(3, 3))
                    .optPadding(new Shape(1, 1))
                    .setFilters(channels)
                    .build();
        }
    }

    /** A layer that maps each value on its own, an activation: the shape stays, no parameters. */
    interface ElementWise extends Layer {
        @Override
        default List<Integer> outputShape(List<Integer> input) {
            return input;
        }
    }

    /** {@code max(0, x)}, no parameters. */
    record Relu() implements ElementWise {
        @Override
        public Block block() {
            return Activation.reluBlock();
        }
    }

    /** 2x2 max-pooling with stride 2 (height and width halve, rounding down), no parameters. */
    record MaxPool2x2() implements Layer {
        @Override
        public List<Integer> outputShape(List<Integer> input) {
            requireImage(input);
            return List.of(input.get(0), input.get(1) / 2, input.get(2) / 2);
        }

        @Override
        public Block block() {
            return Pool.maxPool2dBlock(new Shape(2, 2), new Shape(2, 2));
        }
    }

    /** Flattens {@code (N, C, H, W)} to {@code (N, C*H*W)}, no parameters. */
    record Flatten() implements Layer {
        @Override
        public List<Integer> outputShape(List<Integer> input) {
            return List.of(NetworkText.product(input));
        }

        @Override
        public Block block() {
            return Blocks.batchFlattenBlock();
        }
    }

    private static void requireImage(List<Integer> input) {
        if (input.size() != 3) {
            throw new IllegalArgumentException("an image layer takes C x H x W, not " + input);
        }
    }
}
