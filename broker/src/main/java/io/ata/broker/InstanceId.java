package io.ata.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

/**
 * The stable id of a broker instance: made once, kept in its state directory, so the instance has
 * the same id after every restart and two instances (which never share a state directory) never
 * have the same. It names the instance's static membership in the Streams group
 * ({@code group.instance.id}): a restarted instance takes its tasks back at once, where a new
 * member waited for the dead one's session to expire.
 */
final class InstanceId {
    private InstanceId() {}

    /** The id kept in {@code stateDir} for application {@code applicationId}, made there if missing. */
    static String of(Path stateDir, String applicationId) {
        Path file = stateDir.resolve(applicationId + ".instance-id");
        try {
            if (Files.isRegularFile(file)) {
                String kept = Files.readString(file, StandardCharsets.UTF_8).strip();
                if (kept.matches("[0-9a-f]{8}")) {
                    return kept;
                }
            }
            String id = UUID.randomUUID().toString().substring(0, 8);
            Files.createDirectories(stateDir);
            Files.writeString(file, id + "\n", StandardCharsets.UTF_8);
            return id;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot keep the broker's instance id in " + file, e);
        }
    }
}
