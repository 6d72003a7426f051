package io.ata.schemas.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TaskTiming;
import io.ata.schemas.WorkerHeartbeat;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.junit.jupiter.api.Test;

class EmbeddedSchemaRegistryTest {

    private static final Schema TIMING = TaskTiming.getClassSchema();
    private static final Schema TASKS = TaskAssignment.getClassSchema();
    private static final Schema WORKERS = WorkerHeartbeat.getClassSchema();

    @Test
    void idsAreOneTwoThreeAndStableOnReRegister() {
        EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();
        assertEquals(1, registry.register("ata.timings-value", TIMING));
        assertEquals(2, registry.register("ata.tasks-value", TASKS));
        assertEquals(3, registry.register("ata.workers-value", WORKERS));
        assertEquals(1, registry.register("ata.timings-value", TIMING));
        assertEquals(List.of(1), registry.versions("ata.timings-value"), "no new version");
    }

    @Test
    void aSchemaKnownUnderAnotherSubjectKeepsItsGlobalId() {
        EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();
        int id = registry.register("ata.timings-value", TIMING);
        assertEquals(id, registry.register("replay.timings-value", TIMING));
        assertEquals(new SchemaVersion("replay.timings-value", 1, id, TIMING), registry.latest("replay.timings-value"));
    }

    @Test
    void newVersionsAreAcceptedAndNumbered() {
        EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();
        Schema v1 = ThingSchemas.V1;
        Schema v2 = ThingSchemas.WITH_DEFAULT;
        int id1 = registry.register("things-value", v1);
        int id2 = registry.register("things-value", v2);
        assertEquals(List.of(1, 2), registry.versions("things-value"));
        assertEquals(new SchemaVersion("things-value", 2, id2, v2), registry.latest("things-value"));
        assertEquals(new SchemaVersion("things-value", 1, id1, v1), registry.version("things-value", 1));
        assertEquals(v1, registry.getById(id1));
        assertEquals(1, registry.lookup("things-value", v1).orElseThrow().version());
        assertTrue(registry.lookup("other-value", v1).isEmpty());
        assertEquals(List.of("things-value"), registry.subjects());
    }

    @Test
    void missingSubjectVersionAndIdAreTypedErrors() {
        EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();
        registry.register("a-value", TIMING);
        SchemaNotFoundException subject =
                assertThrows(SchemaNotFoundException.class, () -> registry.latest("nope-value"));
        assertEquals(40401, subject.errorCode());
        assertEquals("Subject 'nope-value' not found.", subject.getMessage());
        assertEquals(
                40402,
                assertThrows(SchemaNotFoundException.class, () -> registry.version("a-value", 2))
                        .errorCode());
        assertEquals(
                40403,
                assertThrows(SchemaNotFoundException.class, () -> registry.getById(99))
                        .errorCode());
    }

    @Test
    void concurrentRegistrationsAgreeOnIds() throws Exception {
        EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();
        registry.setCompatibility(CompatibilityLevel.NONE); // two unrelated schemas per subject
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Callable<Integer>> calls = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                Schema schema = (i % 2 == 0) ? TIMING : TASKS;
                String subject = "s" + (i % 5) + "-value";
                calls.add(() -> registry.register(subject, schema));
            }
            Set<Integer> ids = new HashSet<>();
            for (Future<Integer> result : pool.invokeAll(calls)) {
                ids.add(result.get());
            }
            assertEquals(Set.of(1, 2), ids);
            for (String subject : registry.subjects()) {
                assertEquals(List.of(1, 2), registry.versions(subject));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void anIncompatibleVersionIsRefusedWith409AndNothingChanges() {
        EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();
        Schema v1 = ThingSchemas.V1;
        Schema noDefault = ThingSchemas.NO_DEFAULT;
        registry.register("things-value", v1);
        assertEquals(CompatibilityLevel.BACKWARD, registry.compatibilityOf("things-value"));
        SchemaRegistryException refused =
                assertThrows(SchemaRegistryException.class, () -> registry.register("things-value", noDefault));
        assertEquals(409, refused.httpStatus());
        assertEquals(409, refused.errorCode());
        assertTrue(refused.getMessage().contains("READER_FIELD_MISSING_DEFAULT_VALUE"), refused.getMessage());
        assertEquals(List.of(1), registry.versions("things-value"));
        assertTrue(registry.lookup("things-value", noDefault).isEmpty());

        // FORWARD only asks that the old schema reads new data: a new field without default is fine
        registry.setCompatibility("things-value", CompatibilityLevel.FORWARD);
        assertEquals(2, registry.register("things-value", noDefault));
        assertEquals(CompatibilityLevel.BACKWARD, registry.compatibility(), "the global level is untouched");
    }

    @Test
    void transitiveLevelsCheckEveryEarlierVersion() {
        EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();
        Schema v1 = ThingSchemas.V1;
        Schema v2 = SchemaBuilder.record("Thing").fields().optionalString("a").endRecord();
        // v3 adds c with a default; readsOnlyV3 needs c without one, which only v3's data has
        Schema v3 = SchemaBuilder.record("Thing")
                .fields()
                .optionalString("a")
                .name("c")
                .type()
                .intType()
                .intDefault(1)
                .endRecord();
        Schema readsOnlyV3 = SchemaBuilder.record("Thing")
                .fields()
                .name("a")
                .type()
                .unionOf()
                .nullType()
                .and()
                .stringType()
                .endUnion()
                .nullDefault()
                .requiredInt("c")
                .endRecord();
        registry.register("t-value", v1);
        registry.register("t-value", v2);
        registry.register("t-value", v3);
        assertTrue(registry.incompatibilities("t-value", readsOnlyV3).isEmpty(), "BACKWARD looks at v3 only");
        registry.setCompatibility("t-value", CompatibilityLevel.BACKWARD_TRANSITIVE);
        assertFalse(registry.incompatibilities("t-value", readsOnlyV3).isEmpty(), "v1 and v2 have no c");
        assertFalse(registry.incompatibilities("t-value", 1, readsOnlyV3).isEmpty());
        assertTrue(registry.incompatibilities("t-value", 3, readsOnlyV3).isEmpty());
        registry.setCompatibility("t-value", CompatibilityLevel.NONE);
        assertTrue(registry.incompatibilities("t-value", 1, readsOnlyV3).isEmpty());
    }

    @Test
    void levelsParseByName() {
        assertEquals(CompatibilityLevel.FULL_TRANSITIVE, CompatibilityLevel.parse(" full_transitive "));
        IllegalArgumentException bad =
                assertThrows(IllegalArgumentException.class, () -> CompatibilityLevel.parse("SIDEWAYS"));
        assertTrue(bad.getMessage().contains("BACKWARD_TRANSITIVE"), bad.getMessage());
        assertThrows(IllegalArgumentException.class, () -> CompatibilityLevel.parse(null));
    }

    @Test
    void bindingANameAndReleasingIt() {
        EmbeddedSchemaRegistry first = new EmbeddedSchemaRegistry().bind("bind-test");
        EmbeddedSchemaRegistry second = new EmbeddedSchemaRegistry();
        try {
            assertSame(first, EmbeddedSchemaRegistry.bound("bind-test").orElseThrow());
            IllegalStateException taken = assertThrows(IllegalStateException.class, () -> second.bind("bind-test"));
            assertTrue(taken.getMessage().contains("bind-test"));
            first.close();
            assertTrue(EmbeddedSchemaRegistry.bound("bind-test").isEmpty());
            second.bind("bind-test");
            assertSame(second, EmbeddedSchemaRegistry.bound("bind-test").orElseThrow());
        } finally {
            first.close();
            second.close();
        }
        assertTrue(EmbeddedSchemaRegistry.bound("bind-test").isEmpty());
    }
}
