package io.ata.lab.timinglog;

/**
 * Where a log source delivers what it reads, in file order: each valid line as a record, each bad
 * one as its 1-based line number and the reason.
 */
interface TimingLineSink {
    void record(TimingRecord record);

    void invalidLine(long line, String reason);
}
