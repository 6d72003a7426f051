package io.ata.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local task state an unclean stop leaves, which exactly-once processing discards: deleted
 * before Kafka Streams starts, so that Streams does not open it first.
 *
 * <p>Under exactly-once a running task's stores carry no committed offsets (they may hold writes of
 * a transaction that never committed), so after {@code kill -9} Streams opens each task's RocksDB
 * stores, finds them not empty and unvouched for, declares the task corrupted and wipes it, and
 * does so twice: for its startup tasks and again when the group assigns them. Measured after
 * {@code kill -9} with 1,000 jobs in 16 tasks: 1.8 s before the membership store could start
 * restoring, and about 1 s more at assignment, of a restart of 10-14 s.
 *
 * <p>Whether the last stop was clean is known from a marker the broker writes when Kafka Streams
 * closed within its timeout ({@link #markCleanStop}) and removes when it starts. (Streams' own mark,
 * the stores' committed offsets, is inside the stores: reading it is the cost avoided.) With no
 * marker the task directories go; the global store's directory and the files Streams keeps beside
 * the tasks stay, its process id among them, which names the transactions a restarted instance must
 * fence. Nothing is deleted while another process holds the state directory's lock (the one Streams
 * takes), nor with standby replicas, whose state an unclean stop does not spoil. Deleting local
 * state is always safe: the changelogs restore it; at worst (a first start after an upgrade, with no
 * marker yet) a restart restores what it could have kept. This follows Streams' layout of the state
 * directory ({@code <state.dir>/<application.id>/<subtopology>_<partition>/}) as of Kafka 4.3.
 */
final class UncleanStopState {
    private static final Logger LOG = LoggerFactory.getLogger(UncleanStopState.class);
    /** A task's directory: its subtopology and partition. */
    private static final Pattern TASK_DIRECTORY = Pattern.compile("[0-9]+_[0-9]+");
    /** Streams' lock on an application's state directory (StateDirectory). */
    private static final String LOCK = ".lock";

    private UncleanStopState() {}

    /** The marker of a clean stop of application {@code applicationId} on {@code stateDir}. */
    static Path cleanStopMarker(Path stateDir, String applicationId) {
        return stateDir.resolve(applicationId + ".clean-stop");
    }

    /** Marks the stop of the instance on {@code stateDir} clean: Kafka Streams closed within its timeout. */
    static void markCleanStop(Path stateDir, String applicationId) {
        Path marker = cleanStopMarker(stateDir, applicationId);
        try {
            Files.createDirectories(stateDir);
            Files.writeString(marker, "Kafka Streams closed cleanly\n");
        } catch (IOException e) {
            // the next start restores from the changelogs, as after a crash
            LOG.warn("cannot mark the broker's stop clean in {}: {}", marker, e.toString());
        }
    }

    /**
     * At start: removes the clean-stop marker, so that a crash of this run is seen at the next;
     * returns whether there was one.
     */
    static boolean takeCleanStopMarker(Path stateDir, String applicationId) {
        Path marker = cleanStopMarker(stateDir, applicationId);
        try {
            return Files.deleteIfExists(marker);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove the broker's clean-stop marker " + marker, e);
        }
    }

    /**
     * After an unclean stop: deletes the task directories of application {@code applicationId}
     * under {@code stateDir}; returns the tasks whose state it deleted.
     */
    static List<String> deleteTaskState(Path stateDir, String applicationId) {
        Path appDir = stateDir.resolve(applicationId);
        if (!Files.isDirectory(appDir)) {
            return List.of();
        }
        try {
            return deleteTasks(appDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clear the task state of an unclean stop in " + appDir, e);
        }
    }

    private static List<String> deleteTasks(Path appDir) throws IOException {
        try (FileChannel channel =
                        FileChannel.open(appDir.resolve(LOCK), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock lock = tryLock(channel)) {
            if (lock == null) {
                LOG.warn("state directory {} is locked by another process: its task state is left as it is", appDir);
                return List.of();
            }
            List<String> deleted = new ArrayList<>();
            for (Path task : taskDirectories(appDir)) {
                Utils.delete(task.toFile()); // as Streams wipes a task's state
                deleted.add(task.getFileName().toString());
            }
            if (!deleted.isEmpty()) {
                LOG.info(
                        "the last stop was not clean: deleted the local state of task(s) {}, which exactly-once"
                                + " would discard; their changelogs restore them",
                        deleted);
            }
            return deleted;
        }
    }

    private static FileLock tryLock(FileChannel channel) throws IOException {
        try {
            return channel.tryLock();
        } catch (OverlappingFileLockException e) { // this JVM holds it: an instance runs on it
            return null;
        }
    }

    private static List<Path> taskDirectories(Path appDir) throws IOException {
        try (Stream<Path> entries = Files.list(appDir)) {
            return entries.filter(Files::isDirectory)
                    .filter(d ->
                            TASK_DIRECTORY.matcher(d.getFileName().toString()).matches())
                    .sorted()
                    .toList();
        }
    }
}
