package io.ata.schemas.registry;

import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;

/** Versions of a small record, for compatibility tests. */
public final class ThingSchemas {

    /** {@code Thing{a: string}}. */
    public static final Schema V1 =
            SchemaBuilder.record("Thing").fields().requiredString("a").endRecord();

    /** Adds {@code b} with a default: BACKWARD compatible with {@link #V1}. */
    public static final Schema WITH_DEFAULT = SchemaBuilder.record("Thing")
            .fields()
            .requiredString("a")
            .name("b")
            .type()
            .intType()
            .intDefault(0)
            .endRecord();

    /** Adds {@code b} without a default: FORWARD but not BACKWARD compatible with {@link #V1}. */
    public static final Schema NO_DEFAULT = SchemaBuilder.record("Thing")
            .fields()
            .requiredString("a")
            .requiredInt("b")
            .endRecord();

    private ThingSchemas() {}
}
