package io.ata.allocation.policy;

import java.util.List;

/**
 * A source of policies for the {@link PolicyRegistry}. A jar adds its own policies by implementing
 * this and naming the class in {@code META-INF/services/io.ata.allocation.policy.PolicyProvider}
 * ({@link java.util.ServiceLoader}); every command and the broker then know them by name, with
 * no change here. Names must not clash with the built-in ones or another provider's.
 *
 * <p>An implementation needs a public no-argument constructor.
 */
public interface PolicyProvider {

    /** The policies this provider defines, in the order help texts should list them. */
    List<PolicyDefinition> policies();
}
