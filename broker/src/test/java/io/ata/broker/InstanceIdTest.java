package io.ata.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The broker's static member id: the same after every restart, different for every state directory. */
class InstanceIdTest {
    @Test
    void theIdIsKeptInTheStateDirectoryAndDiffersBetweenDirectories(@TempDir Path dir) throws Exception {
        Path one = dir.resolve("one");
        String first = InstanceId.of(one, "ata-broker");
        assertTrue(first.matches("[0-9a-f]{8}"), first);
        assertEquals(first, InstanceId.of(one, "ata-broker"), "the same after a restart");
        assertNotEquals(first, InstanceId.of(dir.resolve("two"), "ata-broker"), "another instance, another id");
        assertNotEquals(first, InstanceId.of(one, "other-app"), "per application id");
    }

    @Test
    void aDamagedFileIsReplacedByANewId(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("ata-broker.instance-id"), "not an id\n");
        String id = InstanceId.of(dir, "ata-broker");
        assertTrue(id.matches("[0-9a-f]{8}"), id);
        assertEquals(id + "\n", Files.readString(dir.resolve("ata-broker.instance-id")));
    }
}
