package io.ata.broker;

import io.ata.schemas.DeadLetter;
import io.ata.schemas.decoding.DeadLetters;
import io.ata.schemas.decoding.Decoded;
import io.ata.schemas.decoding.RecordDecoder;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Where a processor sends an input record it cannot process: the dead-letter topic (through the
 * processor's dead-letter sink), keyed by the source topic, committed at once so that operators
 * see it, and counted per input topic and kind of refusal. A huge record's letter carries its
 * first bytes only ({@link DeadLetters}), so that the letter itself never fails the producer.
 */
final class DeadLetterOutput {
    private static final DeadLetters LETTERS = new DeadLetters(DeadLetters.BROKER);

    private final String topic;
    private final String sink;
    private final BrokerMetrics metrics;

    /**
     * @param topic the processor's input topic, the {@code source} of the dead letters counted
     * @param sink the name of the processor's sink to the dead-letter topic
     */
    DeadLetterOutput(String topic, String sink, BrokerMetrics metrics) {
        this.topic = topic;
        this.sink = sink;
        this.metrics = metrics;
    }

    /**
     * {@code input}'s value decoded by {@code decoder}; null if it does not decode, once {@code
     * input} is sent here as {@link Refusal.Kind#UNDECODABLE} with the decoder's reason.
     */
    <V> V decodeOrSend(
            ProcessorContext<String, SpecificRecord> context, Record<byte[], byte[]> input, RecordDecoder<V> decoder) {
        Decoded<V> decoded = decoder.decode(topic, input.value());
        if (decoded instanceof Decoded.Undecodable<V> bad) {
            send(context, input, new Refusal(Refusal.Kind.UNDECODABLE, bad.reason()), bad.error());
            return null;
        }
        return ((Decoded.Valid<V>) decoded).record();
    }

    /** Sends {@code input}, the record being processed, with why it was refused. */
    void send(
            ProcessorContext<String, SpecificRecord> context,
            Record<byte[], byte[]> input,
            Refusal refusal,
            Throwable error) {
        metrics.deadLetter(topic, refusal.kind());
        RecordMetadata where = context.recordMetadata().orElse(null);
        DeadLetter letter = LETTERS.of(
                where == null ? "" : where.topic(),
                where == null ? -1 : where.partition(),
                where == null ? -1 : where.offset(),
                input.key(),
                input.value(),
                refusal.reason(),
                error,
                context.currentSystemTimeMs());
        // key: the source topic, as every part keys its dead letters (DeadLetters.keyOf)
        context.forward(new Record<String, SpecificRecord>(topic, letter, input.timestamp()), sink);
        context.commit();
    }
}
