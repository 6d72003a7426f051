/**
 * Network descriptions in plain Java: {@link io.ata.ml.net.NetworkSpec} (presets and the
 * command-line form), the {@link io.ata.ml.net.ParameterLayout} the trainer publishes and agents
 * check, and {@link io.ata.ml.net.ParameterInit deterministic initial values}. Nothing here loads
 * DJL.
 */
package io.ata.ml.net;
