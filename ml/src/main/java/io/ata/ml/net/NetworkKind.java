package io.ata.ml.net;

import ai.djl.nn.Block;
import java.util.List;

/**
 * One kind of network ({@code mlp}, {@code cnn}, ...): everything that differs between kinds, in
 * one class. A kind reads and writes its text form, checks a spec, lists its layers, and from them
 * gives its parameter shapes, its initial values and its DJL block. The {@link
 * NetworkKindRegistry} finds kinds by {@link #name()}; a {@link NetworkSpec} carries its kind.
 *
 * <p>Most kinds only say their name, preset, checks and layers ({@link NamedNetworkKind} takes the
 * name and preset once): the defaults read the common text
 * form ({@link NetworkText}), compute the parameter shapes and the block from the layers, and
 * initialise with {@link ParameterInit#uniformFanIn}. The parameter shapes are the contract with
 * the trainer and every agent (and a Python agent, which builds the same network in PyTorch): once
 * a kind is in use, its names, shapes, order, initial values and text form never change, or model
 * versions already published stop fitting.
 *
 * <p>A kind is one object per registry (it is compared by identity): keep no state in it.
 */
public interface NetworkKind {

    /**
     * The name the text form starts with, e.g. {@code mlp}: lower case, no colon, comma or space.
     * No two kinds of a registry share it.
     */
    String name();

    /** One line for help texts and the registry's listing. */
    String description();

    /** The hidden sizes a text without any means (the preset's, e.g. 256,128 for {@code mlp}). */
    List<Integer> presetHidden();

    /**
     * The input shape that data samples of {@code sampleShape} give this kind when the text has
     * no {@code in=}. The sample's shape itself by default; {@code mlp} flattens it.
     */
    default List<Integer> inputShapeOf(List<Integer> sampleShape) {
        return sampleShape;
    }

    /**
     * Refuses a spec this kind cannot build (input shape, hidden sizes). The spec's common checks
     * (dtype, classes, positive sizes) have passed; the layout is checked after this.
     *
     * @throws IllegalArgumentException saying what is wrong, in the text form's terms
     */
    void check(NetworkSpec spec);

    /** The layers of {@code spec}, input to logits. */
    List<Layer> layers(NetworkSpec spec);

    /**
     * The spec written {@code name:items} ({@code items} null when the text is the bare name).
     * By default the common form: {@link NetworkText#parse}.
     *
     * @param sampleShape the data's sample shape, for a missing {@code in=}
     * @param dataClasses the data's classes, for a missing {@code classes=}
     * @throws IllegalArgumentException saying what is wrong with the items
     */
    default NetworkSpec parse(String items, List<Integer> sampleShape, int dataClasses) {
        return NetworkText.parse(this, items, sampleShape, dataClasses);
    }

    /**
     * The canonical text of {@code spec}, complete, which {@link #parse} reads back to an equal
     * spec whatever the data. By default the common form: {@link NetworkText#format}.
     */
    default String format(NetworkSpec spec) {
        return NetworkText.format(spec);
    }

    /**
     * The parameter tensors in order, named as DJL names them in the built {@link #block}. By
     * default those of the {@link #layers}: {@link Layer#parametersOf}.
     */
    default List<ParameterShape> parameters(NetworkSpec spec) {
        return Layer.parametersOf(layers(spec), spec.inputShape());
    }

    /**
     * Deterministic initial values, flat, in {@code layout} order, in plain Java (the trainer
     * makes version 0 without DJL). By default {@link ParameterInit#uniformFanIn}.
     */
    default float[] initialParameters(ParameterLayout layout, long seed) {
        return ParameterInit.uniformFanIn(layout, seed);
    }

    /**
     * A new DJL block of {@code spec}'s network, taking batches of shape {@code (n,
     * spec.inputShape()...)}; its parameters must be {@link #parameters} exactly (the build
     * checks). By default the {@link #layers} in sequence: {@link Layer#sequentialBlock}.
     */
    default Block block(NetworkSpec spec) {
        return Layer.sequentialBlock(layers(spec));
    }
}
