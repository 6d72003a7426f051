package io.ata.allocation.policy;

import io.ata.allocation.WorkerStats;
import java.util.List;

/**
 * Shortcuts to the {@link PolicyRegistry#standard() standard registry}, for the drivers that build
 * policies by name: the simulator, the replay, the broker and the CLI.
 */
public final class PolicyFactory {

    private PolicyFactory() {}

    /** {@link PolicyRegistry#parseList} of the standard registry. */
    public static List<String> parseList(String commaSeparated) {
        return PolicyRegistry.standard().parseList(commaSeparated);
    }

    /** {@link PolicyRegistry#create} of the standard registry. */
    public static AllocationPolicy create(String name, PolicyContext context, long seed, WorkerStats stats) {
        return PolicyRegistry.standard().create(name, context, seed, stats);
    }
}
