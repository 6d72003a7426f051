package io.ata.allocation.policy;

import io.ata.allocation.WorkerStats;
import io.ata.extensions.ExtensionRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The policies known by name: to the command line, the broker's job configuration and reports.
 * Each {@link #create} returns fresh state, seeded, so runs are reproducible.
 *
 * <p>The {@link #standard()} registry holds the built-in policies ({@code BuiltInPolicies}) and
 * then those of every {@link PolicyProvider} on the class path; a name may be defined once only.
 */
public final class PolicyRegistry {
    private final List<PolicyDefinition> definitions;

    private PolicyRegistry(List<PolicyDefinition> definitions) {
        this.definitions = List.copyOf(definitions);
    }

    /** The built-in policies, then every provider's on the class path ({@link ExtensionRegistry#load}). */
    public static PolicyRegistry standard() {
        return Standard.REGISTRY;
    }

    /** Loaded once, on first use: the class path does not change while we run. */
    private static final class Standard {
        static final PolicyRegistry REGISTRY = new PolicyRegistry(ExtensionRegistry.load(
                        "policy",
                        new BuiltInPolicies(),
                        PolicyProvider.class,
                        PolicyProvider::policies,
                        PolicyDefinition::name)
                .definitions());
    }

    /**
     * The policies of {@code providers}, in order.
     *
     * @throws IllegalArgumentException if two definitions share a name
     */
    public static PolicyRegistry of(List<? extends PolicyProvider> providers) {
        return new PolicyRegistry(
                ExtensionRegistry.of("policy", providers, PolicyProvider::policies, PolicyDefinition::name)
                        .definitions());
    }

    /** Every definition, in registration order. */
    public List<PolicyDefinition> definitions() {
        return definitions;
    }

    /** The names as help texts list them ({@code ata-hedge:R} for a parameterised one), in order. */
    public List<String> labels() {
        return definitions.stream().map(PolicyDefinition::label).toList();
    }

    /**
     * The definition {@code name} stands for, its parameter checked.
     *
     * @throws IllegalArgumentException "unknown policy 'x'; known: ...", or the parameter's problem
     */
    public PolicyDefinition find(String name) {
        for (PolicyDefinition definition : definitions) {
            if (definition.matches(name)) {
                definition.checkArgument(name);
                return definition;
            }
        }
        throw new IllegalArgumentException("unknown policy '" + name + "'; known: " + known());
    }

    /** Splits {@code "fta,ata, gta"} into lower-case names, rejecting unknown and repeated ones up front. */
    public List<String> parseList(String commaSeparated) {
        List<String> names = new ArrayList<>();
        for (String part : commaSeparated.split(",")) {
            String name = part.trim().toLowerCase(Locale.ROOT);
            if (name.isEmpty()) {
                continue;
            }
            find(name);
            if (names.contains(name)) {
                throw new IllegalArgumentException("policy '" + name + "' listed twice");
            }
            names.add(name);
        }
        if (names.isEmpty()) {
            throw new IllegalArgumentException("no policy given; known: " + known());
        }
        return names;
    }

    /**
     * A policy named {@code name} reading membership and statistics from {@code stats}, which the
     * caller keeps up to date (folding each round's outcome before {@code observe}). {@code seed}
     * is the run's; the policy gets its own, {@code seed * 0x9E3779B97F4A7C15 + name.hashCode()},
     * so that policies compared in one run do not share their tie-breaking.
     */
    public AllocationPolicy create(String name, PolicyContext context, long seed, WorkerStats stats) {
        PolicyDefinition definition = find(name);
        long policySeed = seed * 0x9E3779B97F4A7C15L + name.hashCode();
        AllocationPolicy policy = definition.create(name, context, policySeed, stats);
        if (!name.equals(policy.name())) {
            // A policy's name tags its results and its learned state: it must be the name asked for.
            throw new IllegalStateException(
                    "the definition of '" + definition.label() + "' built a policy named '" + policy.name() + "'");
        }
        return policy;
    }

    private String known() {
        return String.join(", ", labels());
    }
}
