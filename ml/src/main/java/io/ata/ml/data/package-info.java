/**
 * Data sets: the {@link io.ata.ml.data.Dataset} interface, IDX and CSV loaders, a seeded synthetic
 * set, the {@link io.ata.ml.data.DatasetResolver resolver} of the command line's {@code --data},
 * and {@link io.ata.ml.data.TaskSamples the rule} that picks a task's samples.
 */
package io.ata.ml.data;
