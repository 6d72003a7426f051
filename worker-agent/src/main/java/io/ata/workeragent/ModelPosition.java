package io.ata.workeragent;

/**
 * Where a model version's record sits in the model topic: its partition and offset (a sliced
 * version's last slice). Two readers of the topic that name the same position read the same
 * record, so a version read before its transaction committed is the committed one exactly when the
 * positions agree.
 */
public record ModelPosition(int partition, long offset) {}
