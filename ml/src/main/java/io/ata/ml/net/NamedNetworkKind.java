package io.ata.ml.net;

import java.util.List;

/**
 * A network kind that states its name, description and preset once, when it is made, and shows
 * as its name: what every kind has, so that a kind extending this class only adds its checks and
 * layers (and any default of {@link NetworkKind} it changes).
 */
public abstract class NamedNetworkKind implements NetworkKind {
    private final String name;
    private final String description;
    private final List<Integer> presetHidden;

    /** See {@link #name()}, {@link #description()} and {@link #presetHidden()} for what each is. */
    protected NamedNetworkKind(String name, String description, List<Integer> presetHidden) {
        this.name = name;
        this.description = description;
        this.presetHidden = List.copyOf(presetHidden);
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final String description() {
        return description;
    }

    @Override
    public final List<Integer> presetHidden() {
        return presetHidden;
    }

    @Override
    public String toString() {
        return name;
    }
}
