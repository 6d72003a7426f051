/**
 * A virtual fleet: one process that behaves as many worker agents on real Kafka clients and real
 * records ({@link io.ata.bench.fleet.VirtualFleet}), so that the broker can be measured at fleet
 * sizes a machine cannot host as one JVM per agent ({@link io.ata.bench.fleet.FleetBench}), as
 * Kafka's own {@code kafka-producer-perf-test} stands for many producers.
 */
package io.ata.bench.fleet;
