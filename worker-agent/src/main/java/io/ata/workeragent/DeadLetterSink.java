package io.ata.workeragent;

import io.ata.schemas.DeadLetter;
import io.ata.schemas.Topics;
import io.ata.schemas.decoding.DeadLetters;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Somewhere to put a record that could not be processed, so processing can go on. */
@FunctionalInterface
public interface DeadLetterSink {

    void deadLetter(DeadLetter letter);

    /**
     * Dead letters sent by a plain producer, outside any transaction: for records with no offset to
     * commit with them, such as the model topic's. {@code counted} is told of each one.
     */
    static DeadLetterSink untransacted(
            Producer<String, byte[]> producer, Topics topics, AgentCodec codec, Runnable counted) {
        Logger log = LoggerFactory.getLogger(DeadLetterSink.class);
        return letter -> {
            counted.run();
            producer.send(
                    new ProducerRecord<>(
                            topics.deadLetters().name(),
                            DeadLetters.keyOf(letter),
                            codec.encode(topics.deadLetters(), letter)),
                    (metadata, error) -> {
                        if (error != null) {
                            log.warn("dead letter not sent: {}", error.toString());
                        }
                    });
        };
    }
}
