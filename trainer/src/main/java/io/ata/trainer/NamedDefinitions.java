package io.ata.trainer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.function.Function;

/**
 * Definitions found by name: the built-in ones, then those of every provider {@link ServiceLoader}
 * finds, a name defined once only. What {@link AggregatorRegistry} and {@link OptimizerRegistry}
 * share, as the allocation policies have their {@code PolicyRegistry}.
 *
 * @param <D> the definition
 */
final class NamedDefinitions<D> {
    private final String kind;
    private final Map<String, D> byName;

    private NamedDefinitions(String kind, Map<String, D> byName) {
        this.kind = kind;
        this.byName = byName;
    }

    /**
     * {@code builtIn}, then the definitions of every {@code providerType} on the class path.
     *
     * @param kind what is defined, for messages, e.g. "aggregator"
     * @param name a definition's name
     * @param provided a provider's definitions
     * @throws IllegalArgumentException if two definitions share a name
     */
    static <D, P> NamedDefinitions<D> load(
            String kind,
            List<D> builtIn,
            Class<P> providerType,
            Function<P, List<D>> provided,
            Function<D, String> name) {
        List<D> all = new ArrayList<>(builtIn);
        ServiceLoader.load(providerType, providerType.getClassLoader()).forEach(p -> all.addAll(provided.apply(p)));
        return of(kind, all, name);
    }

    /** Exactly {@code definitions}; a name defined twice is refused. */
    static <D> NamedDefinitions<D> of(String kind, List<D> definitions, Function<D, String> name) {
        Map<String, D> byName = new LinkedHashMap<>();
        for (D d : definitions) {
            String key = name.apply(d).toLowerCase(Locale.ROOT);
            if (byName.putIfAbsent(key, d) != null) {
                throw new IllegalArgumentException(kind + " '" + key + "' is defined twice");
            }
        }
        return new NamedDefinitions<>(kind, byName);
    }

    /**
     * The definition named {@code name} (case-insensitive).
     *
     * @throws IllegalArgumentException naming the known ones if there is none
     */
    D get(String name) {
        Objects.requireNonNull(name, kind);
        D d = byName.get(name.strip().toLowerCase(Locale.ROOT));
        if (d == null) {
            throw new IllegalArgumentException(
                    "unknown " + kind + " '" + name + "'; known: " + String.join(", ", names()));
        }
        return d;
    }

    /** Every name, built-in first. */
    List<String> names() {
        return List.copyOf(byName.keySet());
    }
}
