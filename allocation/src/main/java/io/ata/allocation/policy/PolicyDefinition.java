package io.ata.allocation.policy;

import io.ata.allocation.WorkerStats;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One entry of the {@link PolicyRegistry}: the name a policy is asked for by, a one-line
 * description for help texts, and how to build it. A definition is either a plain name
 * ({@code ata-auto}) or a name with one parameter after a colon ({@code ata-hedge:R}, asked for
 * as {@code ata-hedge:2}), whose value the definition checks before anything is built.
 */
public final class PolicyDefinition {
    /** Lower case (lists are lower-cased before lookup), and no comma, colon or space (list and parameter syntax). */
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]*");
    /** What help texts show in place of the value, e.g. {@code R}. */
    private static final Pattern PARAMETER = Pattern.compile("[A-Za-z][A-Za-z0-9_]*");

    /** Builds the policy a (full) name stands for. */
    @FunctionalInterface
    public interface Factory {
        /**
         * @param name    the full name asked for, e.g. {@code ata-hedge:2}; the policy's
         *                {@link AllocationPolicy#name()} must return it
         * @param context what the policy may know of the fleet
         * @param seed    the policy's own seed, already derived from the run's seed and {@code name}
         * @param stats   the statistics the caller keeps up to date
         */
        AllocationPolicy create(String name, PolicyContext context, long seed, WorkerStats stats);
    }

    /** Checks the value of a parameterised name, throwing IllegalArgumentException with the reason. */
    @FunctionalInterface
    public interface ArgumentCheck {
        /**
         * @param name     the full name asked for, e.g. {@code ata-hedge:-1}, for the message
         * @param argument the text after the colon, e.g. {@code -1}
         */
        void check(String name, String argument);
    }

    private final String name;
    private final String parameter;
    private final String description;
    private final ArgumentCheck argumentCheck;
    private final Factory factory;

    private PolicyDefinition(
            String name, String parameter, String description, ArgumentCheck argumentCheck, Factory factory) {
        if (!NAME.matcher(Objects.requireNonNull(name, "name")).matches()) {
            throw new IllegalArgumentException("policy name '" + name + "' must match " + NAME.pattern());
        }
        if (parameter != null && !PARAMETER.matcher(parameter).matches()) {
            throw new IllegalArgumentException(
                    "parameter '" + parameter + "' of policy '" + name + "' must match " + PARAMETER.pattern());
        }
        if (Objects.requireNonNull(description, "description").isBlank() || description.contains("\n")) {
            throw new IllegalArgumentException("policy '" + name + "' needs a one-line description");
        }
        this.name = name;
        this.parameter = parameter;
        this.description = description;
        this.argumentCheck = argumentCheck;
        this.factory = Objects.requireNonNull(factory, "factory");
    }

    /** A policy asked for by exactly {@code name}. */
    public static PolicyDefinition named(String name, String description, Factory factory) {
        return new PolicyDefinition(name, null, description, null, factory);
    }

    /**
     * A family of policies asked for as {@code name:value}, listed as {@code name:parameter}
     * (e.g. {@code ata-hedge:R}); {@code check} rejects a bad value before the policy is built.
     */
    public static PolicyDefinition withParameter(
            String name, String parameter, String description, ArgumentCheck check, Factory factory) {
        return new PolicyDefinition(
                name,
                Objects.requireNonNull(parameter, "parameter"),
                description,
                Objects.requireNonNull(check),
                factory);
    }

    /** The name, without the parameter: {@code ata-hedge}. No two definitions of a registry share it. */
    public String name() {
        return name;
    }

    /** How help texts list it: {@code ata-auto}, or {@code ata-hedge:R} for a parameterised one. */
    public String label() {
        return parameter == null ? name : name + ":" + parameter;
    }

    public String description() {
        return description;
    }

    /** True if {@code policyName} is this policy (with any value, for a parameterised one). */
    public boolean matches(String policyName) {
        return parameter == null
                ? policyName.equals(name)
                : policyName.length() > name.length()
                        && policyName.startsWith(name)
                        && policyName.charAt(name.length()) == ':';
    }

    /** Rejects a bad parameter value of a name this definition {@link #matches}. */
    void checkArgument(String policyName) {
        if (argumentCheck != null) {
            argumentCheck.check(policyName, policyName.substring(name.length() + 1));
        }
    }

    AllocationPolicy create(String policyName, PolicyContext context, long seed, WorkerStats stats) {
        return factory.create(policyName, context, seed, stats);
    }

    @Override
    public String toString() {
        return label() + ": " + description;
    }
}
