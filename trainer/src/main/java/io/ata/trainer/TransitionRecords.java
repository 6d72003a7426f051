package io.ata.trainer;

import io.ata.schemas.DeadLetter;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.Topics;
import io.ata.schemas.kafka.DeadLetters;
import io.ata.schemas.registry.SchemaRegistryClient;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serializer;

/**
 * What one transaction of the trainer publishes, as records: the one place that turns a
 * {@link Transition} and the dead letters of its round into what goes to Kafka, in order. Whatever
 * a round's close should publish atomically with the model belongs here.
 */
final class TransitionRecords {
    private final String job;
    private final String modelTopic;
    private final String roundsTopic;
    private final String deadLettersTopic;
    private final Serializer<ModelVersion> models;
    private final Serializer<RoundEvent> roundEvents;
    private final Serializer<DeadLetter> deadLetters;

    TransitionRecords(String job, Topics topics, SchemaRegistryClient registry) {
        this.job = job;
        this.modelTopic = topics.model().name();
        this.roundsTopic = topics.rounds().name();
        this.deadLettersTopic = topics.deadLetters().name();
        this.models = topics.model().valueSerde(registry).serializer();
        this.roundEvents = topics.rounds().valueSerde(registry).serializer();
        this.deadLetters = topics.deadLetters().valueSerde(registry).serializer();
    }

    /**
     * The model version (key: the job), the round events (key: the job) in order, then the dead
     * letters (key: their source topic, {@link DeadLetters#keyOf}).
     */
    List<ProducerRecord<String, byte[]>> of(Transition transition, List<DeadLetter> letters) {
        List<ProducerRecord<String, byte[]>> records =
                new ArrayList<>(1 + transition.roundEvents().size() + letters.size());
        records.add(new ProducerRecord<>(modelTopic, job, models.serialize(modelTopic, transition.model())));
        for (RoundEvent event : transition.roundEvents()) {
            records.add(new ProducerRecord<>(roundsTopic, job, roundEvents.serialize(roundsTopic, event)));
        }
        for (DeadLetter letter : letters) {
            records.add(new ProducerRecord<>(
                    deadLettersTopic, DeadLetters.keyOf(letter), deadLetters.serialize(deadLettersTopic, letter)));
        }
        return records;
    }
}
