package io.ata.bench;

import io.ata.schemas.TopicDef;
import io.ata.schemas.Topics;
import io.ata.schemas.registry.SchemaRegistryClient;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.avro.specific.SpecificData;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Waves of bad records on every topic a part reads, under the keys the parts use: values cut to
 * their first 20 bytes (the wire format's header with the topic's real schema id, then 15 bytes of
 * a body), 64 random bytes, and tombstones where a tombstone would delete state (the job's
 * {@code model} and {@code optimizer}, a worker's heartbeat); on the registry's schemas topic, an
 * entry that is not JSON and one that contradicts an id the registry holds. Live readers (broker,
 * agents, trainer) should dead-letter each at once; the trainer reads {@code model},
 * {@code optimizer} and {@code evaluations} only when it starts, and letters them then; nobody
 * reads {@code timings} or the schemas topic but tools and a starting registry, where the records
 * must simply break nothing.
 */
public final class BadRecords {
    private final Producer<byte[], byte[]> producer;
    private final Topics topics;
    private final SchemaRegistryClient registry;
    private final String job;
    private final List<String> workers;
    private final Random random;
    private final SentRecords sent;
    private final SoakEvents events;
    private int waves;

    /**
     * @param workers the fleet's worker ids: the keys of heartbeats and assignments
     */
    public BadRecords(
            Producer<byte[], byte[]> producer,
            Topics topics,
            SchemaRegistryClient registry,
            String job,
            List<String> workers,
            Random random,
            SentRecords sent,
            SoakEvents events) {
        this.producer = producer;
        this.topics = topics;
        this.registry = registry;
        this.job = job;
        this.workers = List.copyOf(workers);
        this.random = random;
        this.sent = sent;
        this.events = events;
    }

    /** The topics some part reads as records arrive: a bad record there should be lettered at once. */
    public static Set<String> readLive(Topics topics) {
        return Set.of(
                topics.workers().name(),
                topics.membership().name(),
                topics.rounds().name(),
                topics.tasks().name(),
                topics.allocations().name(),
                topics.gradients().name(),
                topics.model().name());
    }

    /** One wave: bad records on every topic. */
    public void wave() throws InterruptedException {
        int wave = ++waves;
        String worker = workers.get(wave % workers.size());
        int modelPartition =
                Topics.partitionOfJob(job, partitions(topics.model().name()));
        int optimizerPartition =
                Topics.partitionOfJob(job, partitions(topics.optimizer().name()));
        int taskPartition = wave % partitions(topics.tasks().name());
        List<Bad> bad = new ArrayList<>();
        garbage(bad, topics.workers(), null, worker, true);
        garbage(bad, topics.membership(), null, worker, false);
        garbage(bad, topics.rounds(), null, job, false);
        garbage(bad, topics.tasks(), taskPartition, worker, false);
        garbage(bad, topics.allocations(), null, job, false);
        garbage(bad, topics.gradients(), null, job, false);
        garbage(bad, topics.model(), modelPartition, job, true);
        garbage(bad, topics.optimizer(), optimizerPartition, job, true);
        garbage(bad, topics.timings(), null, worker, false);
        garbage(bad, topics.evaluations(), null, job, false);
        String schemas = topics.schemas();
        byte[] noise = new byte[64];
        random.nextBytes(noise);
        bad.add(new Bad(schemas, 0, noise, noise, "schemas: random key and value"));
        String forgedKey = "{\"keytype\":\"SCHEMA\",\"subject\":\"soak-forged\",\"version\":" + wave + ",\"magic\":1}";
        bad.add(new Bad(schemas, 0, utf8(forgedKey), noise, "schemas: an entry that is not JSON"));
        bad.add(new Bad(
                schemas,
                0,
                utf8(forgedKey),
                utf8("{\"subject\":\"soak-forged\",\"version\":" + wave
                        + ",\"id\":1,\"schema\":\"\\\"string\\\"\",\"deleted\":false}"),
                "schemas: an entry that gives schema id 1 another schema"));
        List<Future<RecordMetadata>> futures = new ArrayList<>();
        for (Bad b : bad) {
            futures.add(producer.send(new ProducerRecord<>(b.topic(), b.partition(), b.key(), b.value())));
        }
        producer.flush();
        for (int i = 0; i < futures.size(); i++) {
            try {
                sent.add(
                        futures.get(i).get(),
                        SentRecords.Kind.BAD,
                        0,
                        bad.get(i).what());
            } catch (ExecutionException e) {
                events.add("send-failed", bad.get(i).what() + ": " + e.getCause());
            }
        }
        events.add(
                "bad-records", bad.size() + " bad records on " + topics.names().size() + " topics");
    }

    private record Bad(String topic, Integer partition, byte[] key, byte[] value, String what) {}

    /** A value cut to 20 bytes and 64 random bytes on {@code topic}, and a tombstone if {@code tombstone}. */
    private void garbage(List<Bad> bad, TopicDef<?> topic, Integer partition, String key, boolean tombstone) {
        byte[] k = utf8(key);
        String name = topic.name();
        String shortName = name.substring(topics.prefix().length());
        byte[] cut = ByteBuffer.allocate(20)
                .put((byte) 0) // the wire format's magic byte, then the topic's real schema id, then 15 bytes
                .putInt(schemaId(topic))
                .put(randomBytes(15))
                .array();
        bad.add(new Bad(name, partition, k, cut, shortName + ": a value cut to 20 bytes"));
        bad.add(new Bad(name, partition, k, randomBytes(64), shortName + ": 64 random bytes"));
        if (tombstone) {
            bad.add(new Bad(name, partition, k, null, shortName + ": a tombstone"));
        }
    }

    /** The id of the topic's value schema (registered if nobody has written the topic yet). */
    private int schemaId(TopicDef<?> topic) {
        return registry.register(topic.valueSubject(), SpecificData.get().getSchema(topic.valueClass()));
    }

    private int partitions(String topic) {
        return producer.partitionsFor(topic).size();
    }

    private byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
