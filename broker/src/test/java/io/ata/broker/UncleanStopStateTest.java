package io.ata.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UncleanStopStateTest {
    private static final String APP = "ata-broker";

    @TempDir
    Path stateDir;

    private Path task(String name) throws IOException {
        Path stores = Files.createDirectories(
                stateDir.resolve(APP).resolve(name).resolve("rocksdb").resolve("jobs"));
        Files.writeString(stores.resolve("000001.sst"), "rows");
        return stateDir.resolve(APP).resolve(name);
    }

    @Test
    void aCleanStopIsMarkedAndTheMarkIsTakenAtTheNextStart() {
        assertFalse(UncleanStopState.takeCleanStopMarker(stateDir, APP), "no stop yet");
        UncleanStopState.markCleanStop(stateDir, APP);
        assertTrue(UncleanStopState.takeCleanStopMarker(stateDir, APP));
        assertFalse(UncleanStopState.takeCleanStopMarker(stateDir, APP), "a crash of this run is unclean");
    }

    @Test
    void deletesTheTasksStateAndKeepsWhatStreamsKeepsBesideIt() throws IOException {
        Path one = task("2_5");
        Path other = task("0_11");
        Path global = Files.createDirectories(stateDir.resolve(APP).resolve("global"));
        Path processId = Files.writeString(stateDir.resolve(APP).resolve("kafka-streams-process-metadata"), "{}");
        Path notATask = Files.createDirectories(stateDir.resolve(APP).resolve("notes"));

        assertEquals(List.of("0_11", "2_5"), UncleanStopState.deleteTaskState(stateDir, APP));

        assertTrue(Files.notExists(one) && Files.notExists(other), "the tasks' state");
        for (Path kept : List.of(global, processId, notATask)) {
            assertTrue(Files.exists(kept), kept + " is kept");
        }
    }

    /** An instance runs on the directory (here, in this JVM): it holds Streams' lock. */
    @Test
    void leavesADirectoryAnotherInstanceHoldsAlone() throws IOException {
        Path running = task("2_3");
        try (FileChannel channel = FileChannel.open(
                        stateDir.resolve(APP).resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock held = channel.lock()) {
            assertEquals(List.of(), UncleanStopState.deleteTaskState(stateDir, APP));
        }
        assertTrue(Files.exists(running.resolve("rocksdb/jobs/000001.sst")));
    }

    @Test
    void aMissingStateDirectoryHasNothingToDelete() {
        assertEquals(List.of(), UncleanStopState.deleteTaskState(stateDir.resolve("none"), APP));
        assertEquals(List.of(), UncleanStopState.deleteTaskState(stateDir, APP));
    }
}
