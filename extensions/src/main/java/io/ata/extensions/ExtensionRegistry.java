package io.ata.extensions;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.function.Function;

/**
 * The definitions of one kind of extension (an allocation policy, a network kind, an aggregator, an
 * optimizer) found by name: the built-in ones, then those of every provider that {@link
 * ServiceLoader} finds on the class path (a jar listing its provider class in {@code
 * META-INF/services/<provider interface>}). A name is defined once only and found in any case.
 *
 * <p>Adding a rule is one class and its definition beside it, listed by a provider: nothing else
 * changes, neither the command line nor the reports, which list {@link #names()}.
 *
 * @param <D> a definition: a name and what the extension needs to be made
 */
public final class ExtensionRegistry<D> {
    private final String kind;
    private final Map<String, D> byName;

    private ExtensionRegistry(String kind, Map<String, D> byName) {
        this.kind = kind;
        this.byName = byName;
    }

    /**
     * {@code builtIn}'s definitions, then those of every {@code providerType} on the class path, in
     * {@link ServiceLoader}'s order.
     *
     * @param kind        what is defined, for messages, e.g. "aggregator"
     * @param builtIn     the definitions that come with the project
     * @param definitions a provider's definitions
     * @param name        a definition's name
     * @throws IllegalArgumentException if two definitions share a name (naming both providers)
     */
    public static <D, P> ExtensionRegistry<D> load(
            String kind,
            P builtIn,
            Class<P> providerType,
            Function<? super P, ? extends List<? extends D>> definitions,
            Function<? super D, String> name) {
        List<P> providers = new ArrayList<>();
        providers.add(builtIn);
        ServiceLoader.load(providerType, providerType.getClassLoader()).forEach(providers::add);
        return of(kind, providers, definitions, name);
    }

    /**
     * The definitions of exactly {@code providers}, in order: for tests, and for an application
     * that embeds the parts with rules of its own.
     *
     * @throws IllegalArgumentException if a definition has no name, or two share one (naming both providers)
     */
    public static <D, P> ExtensionRegistry<D> of(
            String kind,
            List<? extends P> providers,
            Function<? super P, ? extends List<? extends D>> definitions,
            Function<? super D, String> name) {
        Map<String, D> byName = new LinkedHashMap<>();
        Map<String, P> definedBy = new LinkedHashMap<>();
        for (P provider : providers) {
            for (D definition : definitions.apply(provider)) {
                String given = name.apply(definition);
                if (given == null || given.isBlank()) {
                    throw new IllegalArgumentException(
                            "a " + kind + " of " + provider.getClass().getName() + " has no name");
                }
                String key = given.toLowerCase(Locale.ROOT);
                P earlier = definedBy.putIfAbsent(key, provider);
                if (earlier != null) {
                    throw new IllegalArgumentException(kind + " '" + key + "' is defined twice: by "
                            + earlier.getClass().getName() + " and by "
                            + provider.getClass().getName());
                }
                byName.put(key, definition);
            }
        }
        return new ExtensionRegistry<>(kind, byName);
    }

    /**
     * The definition named {@code name}, in any case, spaces around it ignored.
     *
     * @throws IllegalArgumentException {@code "unknown aggregator 'x'; known: mean, trimmed-mean"}
     */
    public D find(String name) {
        Objects.requireNonNull(name, kind);
        D d = byName.get(name.strip().toLowerCase(Locale.ROOT));
        if (d == null) {
            throw new IllegalArgumentException(
                    "unknown " + kind + " '" + name + "'; known: " + String.join(", ", names()));
        }
        return d;
    }

    /** Every definition, built-in first, then in the providers' order. */
    public List<D> definitions() {
        return List.copyOf(byName.values());
    }

    /** Every name (lower case), built-in first. */
    public List<String> names() {
        return List.copyOf(byName.keySet());
    }

    /** What is defined, as messages name it: "policy", "network kind", ... */
    public String kind() {
        return kind;
    }
}
