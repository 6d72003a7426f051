package io.ata.ml.net;

import io.ata.extensions.ExtensionRegistry;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The network kinds known by name, and the parser of the network text form ({@code mlp:4096,2048})
 * that the trainer's command line and every model version's task description use.
 *
 * <p>The {@link #standard()} registry holds the built-in kinds ({@code BuiltInNetworkKinds}) and
 * then those of every {@link NetworkKindProvider} on the class path; a name may be defined once
 * only.
 */
public final class NetworkKindRegistry {
    /** Lower case (texts are lower-cased before lookup); no colon, comma or space (the text's syntax). */
    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_-]*");

    private final ExtensionRegistry<NetworkKind> kinds;

    private NetworkKindRegistry(ExtensionRegistry<NetworkKind> kinds) {
        this.kinds = kinds;
    }

    /** The built-in kinds, then every provider's on the class path ({@link ExtensionRegistry#load}). */
    public static NetworkKindRegistry standard() {
        return Standard.REGISTRY;
    }

    /** Loaded once, on first use: the class path does not change while we run. */
    private static final class Standard {
        static final NetworkKindRegistry REGISTRY = new NetworkKindRegistry(ExtensionRegistry.load(
                "network kind",
                new BuiltInNetworkKinds(),
                NetworkKindProvider.class,
                NetworkKindRegistry::namedKinds,
                NetworkKind::name));
    }

    /**
     * The kinds of {@code providers}, in order.
     *
     * @throws IllegalArgumentException if a name is not a valid kind name, or two kinds share one
     */
    public static NetworkKindRegistry of(List<? extends NetworkKindProvider> providers) {
        return new NetworkKindRegistry(
                ExtensionRegistry.of("network kind", providers, NetworkKindRegistry::namedKinds, NetworkKind::name));
    }

    /** A provider's kinds, each name checked: the text form {@code KIND[:ITEMS]} must be able to say it. */
    private static List<NetworkKind> namedKinds(NetworkKindProvider provider) {
        List<NetworkKind> kinds = provider.kinds();
        for (NetworkKind kind : kinds) {
            if (kind.name() == null || !NAME.matcher(kind.name()).matches()) {
                throw new IllegalArgumentException("network kind name '" + kind.name() + "' of "
                        + provider.getClass().getName() + " must match " + NAME.pattern());
            }
        }
        return kinds;
    }

    /** Every kind, in registration order. */
    public List<NetworkKind> kinds() {
        return kinds.definitions();
    }

    /** The kinds' names, in registration order. */
    public List<String> names() {
        return kinds.names();
    }

    /**
     * The kind named {@code name} (any case).
     *
     * @throws IllegalArgumentException {@code "unknown network kind 'x'; known: mlp, cnn"}
     */
    public NetworkKind find(String name) {
        return kinds.find(name);
    }

    /**
     * Parses the text form {@code KIND[:ITEMS]}: the kind by name, the items by the kind ({@link
     * NetworkText} for the built-in ones). Missing {@code in=} and {@code classes=} come from the
     * data: {@code sampleShape} and {@code dataClasses}.
     *
     * @throws IllegalArgumentException with a message that quotes the text and says what is wrong
     */
    public NetworkSpec parse(String text, List<Integer> sampleShape, int dataClasses) {
        try {
            String trimmed = text.trim();
            int colon = trimmed.indexOf(':');
            NetworkKind kind = find(colon < 0 ? trimmed : trimmed.substring(0, colon));
            NetworkSpec spec = kind.parse(colon < 0 ? null : trimmed.substring(colon + 1), sampleShape, dataClasses);
            if (spec.kind() != kind) {
                throw new IllegalStateException("the network kind '" + kind.name() + "' parsed a spec of kind '"
                        + spec.kind().name() + "'");
            }
            return spec;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("network '" + text + "': " + e.getMessage() + " (expected "
                    + String.join("|", names()) + "[:N,...][,in=DxD...][,classes=N], e.g. mlp:4096,2048)");
        }
    }
}
