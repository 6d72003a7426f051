/**
 * Benchmarks of the system's parts on Kafka. {@link io.ata.bench.TransportBench}: how fast a task's
 * gradient travels from an agent to the trainer, exactly-once, next to plain Kafka moving the same
 * bytes. {@link io.ata.bench.Soak}: one job on the live system for a given time under every
 * disturbance at once (outliers, forged and bad records, slow HTTP clients, restarts), and
 * whether every round still closes ({@link io.ata.bench.SoakReport}).
 */
package io.ata.bench;
