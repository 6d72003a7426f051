package io.ata.trainer;

import io.ata.schemas.TaskResult;
import io.ata.schemas.decoding.Decoded;
import io.ata.schemas.decoding.RecordDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Turns one raw record of the {@code gradients} topic into a result of this trainer's job, a
 * record of another job, or a reason to dead-letter it. The trainer reads bytes and decodes them
 * here, rather than in the consumer, so that one bad record cannot stop it.
 *
 * <p>Several jobs may share the topic, keyed by job. A record whose key names another job is left
 * to that job's trainer without decoding it: otherwise every trainer would dead-letter the same bad
 * record. A record without a key is decoded and judged by its {@code job} field.
 *
 * <p>Decoding is {@link RecordDecoder}'s: a Schema Registry outage is not the record's fault, so
 * its exception is thrown and the record is read again once the registry is back.
 */
final class GradientDecoder {

    /** What a raw record turned out to be. */
    sealed interface Outcome permits Result, OtherJob, Undecodable {}

    /** A result of this trainer's job, to offer to the open round. */
    record Result(TaskResult result) implements Outcome {}

    /** A record of another job: ignored. */
    record OtherJob(String job) implements Outcome {}

    /** A record that is not a result of this job it can use: dead-letter it with {@code reason}. */
    record Undecodable(String reason, Throwable error) implements Outcome {}

    private final String job;
    private final String topic;
    private final RecordDecoder<TaskResult> decoder;

    GradientDecoder(String job, String topic, Deserializer<TaskResult> deserializer) {
        this.job = Objects.requireNonNull(job, "job");
        this.topic = Objects.requireNonNull(topic, "topic");
        this.decoder = new RecordDecoder<>(deserializer, "TaskResult");
    }

    Outcome decode(byte[] key, byte[] value) {
        String keyJob = key == null ? null : new String(key, StandardCharsets.UTF_8);
        if (keyJob != null && !keyJob.equals(job)) {
            return new OtherJob(keyJob);
        }
        Decoded<TaskResult> decoded = decoder.decode(topic, value);
        if (decoded instanceof Decoded.Undecodable<TaskResult> bad) {
            return new Undecodable(bad.reason(), bad.error());
        }
        TaskResult result = ((Decoded.Valid<TaskResult>) decoded).record();
        if (!job.equals(result.getJob())) {
            if (keyJob == null) {
                return new OtherJob(result.getJob());
            }
            return new Undecodable(
                    "key names job '" + keyJob + "' but the result is of job '" + result.getJob() + "'", null);
        }
        return new Result(result);
    }
}
