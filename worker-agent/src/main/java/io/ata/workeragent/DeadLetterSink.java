package io.ata.workeragent;

import io.ata.schemas.DeadLetter;

/** Somewhere to put a record that could not be processed, so processing can go on. */
@FunctionalInterface
public interface DeadLetterSink {

    void deadLetter(DeadLetter letter);
}
