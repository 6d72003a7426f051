package io.ata.ml.net;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
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

    private final List<NetworkKind> kinds;
    private final Map<String, NetworkKind> byName;

    private NetworkKindRegistry(List<NetworkKind> kinds, Map<String, NetworkKind> byName) {
        this.kinds = List.copyOf(kinds);
        this.byName = Map.copyOf(byName);
    }

    /** The built-in kinds, then every provider's that {@link ServiceLoader} finds, in its order. */
    public static NetworkKindRegistry standard() {
        return Standard.REGISTRY;
    }

    /** Loaded once, on first use: the class path does not change while we run. */
    private static final class Standard {
        static final NetworkKindRegistry REGISTRY = load();

        private static NetworkKindRegistry load() {
            List<NetworkKindProvider> providers = new ArrayList<>();
            providers.add(new BuiltInNetworkKinds());
            ServiceLoader.load(NetworkKindProvider.class, NetworkKindProvider.class.getClassLoader())
                    .forEach(providers::add);
            return of(providers);
        }
    }

    /**
     * The kinds of {@code providers}, in order.
     *
     * @throws IllegalArgumentException if a name is not a valid kind name, or two kinds share one
     */
    public static NetworkKindRegistry of(List<? extends NetworkKindProvider> providers) {
        List<NetworkKind> all = new ArrayList<>();
        Map<String, NetworkKind> byName = new HashMap<>();
        Map<String, NetworkKindProvider> definedBy = new HashMap<>();
        for (NetworkKindProvider provider : providers) {
            for (NetworkKind kind : provider.kinds()) {
                String name = kind.name();
                if (name == null || !NAME.matcher(name).matches()) {
                    throw new IllegalArgumentException("network kind name '" + name + "' of "
                            + provider.getClass().getName() + " must match " + NAME.pattern());
                }
                NetworkKindProvider earlier = definedBy.putIfAbsent(name, provider);
                if (earlier != null) {
                    throw new IllegalArgumentException("network kind '" + name + "' is defined twice: by "
                            + earlier.getClass().getName() + " and by "
                            + provider.getClass().getName());
                }
                byName.put(name, kind);
                all.add(kind);
            }
        }
        return new NetworkKindRegistry(all, byName);
    }

    /** Every kind, in registration order. */
    public List<NetworkKind> kinds() {
        return kinds;
    }

    /** The kinds' names, in registration order. */
    public List<String> names() {
        return kinds.stream().map(NetworkKind::name).toList();
    }

    /**
     * The kind named {@code name} (any case).
     *
     * @throws IllegalArgumentException {@code "unknown kind 'x'; known network kinds: mlp, cnn"}
     */
    public NetworkKind find(String name) {
        NetworkKind kind = byName.get(name.toLowerCase(Locale.ROOT));
        if (kind == null) {
            throw new IllegalArgumentException(
                    "unknown kind '" + name + "'; known network kinds: " + String.join(", ", names()));
        }
        return kind;
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
