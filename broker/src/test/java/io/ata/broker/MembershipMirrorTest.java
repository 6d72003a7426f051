package io.ata.broker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.ata.testsupport.Records;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MembershipMirrorTest {
    private static List<String> ids(MembershipMirror mirror) {
        return mirror.members().stream().map(MembershipMirror.Member::workerId).toList();
    }

    /** The order in which a job meets, and so indexes, new workers: the store's, whatever the arrival. */
    @Test
    void membersComeInTheStoresOrderOfWorkerIds() {
        MembershipMirror mirror = new MembershipMirror();
        for (String w : List.of("w2", "w10", "é1", "w1")) {
            mirror.put(w, Records.heartbeat(w, 0, 3, 1, 2).build());
        }
        assertEquals(List.of("w1", "w10", "w2", "é1"), ids(mirror), "by UTF-8 bytes, as the store's keys");
        assertArrayEquals(new int[] {1, 2, 3}, mirror.members().get(0).partitions(), "partitions sorted");

        mirror.remove("w10");
        assertFalse(mirror.contains("w10"));
        mirror.replace(Map.of(
                "b",
                Records.heartbeat("b", 0, 0).build(),
                "a",
                Records.heartbeat("a", 0, 1).build()));
        assertEquals(List.of("a", "b"), ids(mirror), "replaced whole");
    }
}
