/**
 * Network descriptions in plain Java: {@link io.ata.ml.net.NetworkSpec} (presets and the
 * command-line form), the {@link io.ata.ml.net.ParameterLayout} the trainer publishes and agents
 * check, and {@link io.ata.ml.net.ParameterInit deterministic initial values}. A {@link
 * io.ata.ml.net.Layer} also makes its DJL block, but nothing here starts DJL's engine: the
 * trainer computes layouts and initial values without it.
 */
package io.ata.ml.net;
