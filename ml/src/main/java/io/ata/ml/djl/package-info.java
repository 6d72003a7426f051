/**
 * Real networks with DJL's PyTorch engine: {@link io.ata.ml.djl.DjlRuntime} starts the engine
 * (offline, fixed thread count), {@link io.ata.ml.djl.DeviceChoice} and {@link
 * io.ata.ml.djl.DeviceInfo} pick and describe the device, {@link io.ata.ml.djl.DjlNetwork} builds a
 * spec's network, {@link io.ata.ml.djl.GradientComputer} and {@link io.ata.ml.djl.Evaluator}
 * compute gradients and test metrics.
 */
package io.ata.ml.djl;
