package io.ata.ml.net;

import java.util.List;

/**
 * A source of network kinds for the {@link NetworkKindRegistry}. A jar adds its own kinds by
 * implementing this and naming the class in {@code
 * META-INF/services/io.ata.ml.net.NetworkKindProvider} ({@link java.util.ServiceLoader}); the
 * trainer and every agent with that jar on the class path then parse, lay out, initialise and
 * build them by name, with no change here. Names must not clash with the built-in ones or another
 * provider's. Put the jar on the trainer's class path and on every agent's: an agent without it
 * refuses the job's model versions with "unknown kind".
 *
 * <p>An implementation needs a public no-argument constructor, and must not parse network texts
 * while it is being loaded (the registry is not built yet).
 */
public interface NetworkKindProvider {

    /** The kinds this provider defines, in the order help texts should list them. */
    List<NetworkKind> kinds();
}
