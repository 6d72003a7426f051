package io.ata.workeragent;

import io.ata.schemas.registry.SchemaRegistryClient;
import io.ata.schemas.serde.SerdeConfig;
import java.util.Map;

/**
 * Runs one agent as a process, for {@code ata worker}: the agent works on the calling thread,
 * and Ctrl-C (or any JVM shutdown) closes it cleanly, with the LEAVING heartbeat.
 */
public final class AgentMain {

    private AgentMain() {}

    /**
     * Runs an agent until the JVM shuts down or the agent fails.
     *
     * @return a process exit code: 0 after a clean shutdown, 1 if the agent failed
     */
    public static int run(AgentConfig config, SchemaRegistryClient registry) {
        WorkerAgent agent = new WorkerAgent(config, registry);
        Thread hook = new Thread(agent::close, "ata-agent-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        agent.run();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook is what stopped the agent
        }
        return agent.failure().isPresent() ? 1 : 0;
    }

    /**
     * The Schema Registry client that client properties name ({@code schema.registry.url},
     * {@code basic.auth.user.info}, ...; see {@link SerdeConfig}).
     */
    public static SchemaRegistryClient registryFrom(Map<String, ?> clientProperties) {
        return SerdeConfig.registryClient(clientProperties);
    }
}
