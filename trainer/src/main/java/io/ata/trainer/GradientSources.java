package io.ata.trainer;

import io.ata.platform.kafka.KafkaClientFactory;

/** Opens a trainer's {@link GradientSource}: a consumer of its own, or a share of a {@link TrainerHost}'s reader. */
@FunctionalInterface
interface GradientSources {
    /** A consumer of the trainer's own, a static member of its job's group. */
    GradientSources OWN_CONSUMER = (config, clients) ->
            new OwnGradientsConsumer(config, clients.consumer(TrainerClients.gradientsConsumer(config)));

    /** The source of {@code config}'s job, on {@code clients}; not started. */
    GradientSource open(TrainerConfig config, KafkaClientFactory clients);
}
