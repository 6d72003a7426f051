/**
 * Benchmarks of the system's parts on Kafka. {@link io.ata.bench.TransportBench}: how fast a task's
 * gradient travels from an agent to the trainer, exactly-once, next to plain Kafka moving the same
 * bytes.
 */
package io.ata.bench;
