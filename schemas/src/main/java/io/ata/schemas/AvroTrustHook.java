package io.ata.schemas;

import org.apache.avro.Conversion;

/**
 * Runs {@link AvroTrust#ensure()} before Avro can need it, without any caller remembering to.
 *
 * <p>Why a {@link Conversion}: every Avro data model ({@code GenericData}, and the
 * {@code SpecificData} that each generated class creates in its static initializer) loads all
 * {@code Conversion}s listed in {@code META-INF/services/org.apache.avro.Conversion} when it is
 * constructed. Listing this class there makes its constructor the earliest code of ours that
 * runs whenever Avro is used, so {@code WorkerHeartbeat.newBuilder()...build()} works even in a
 * program that never touched a serde.
 *
 * <p>It is not a real conversion: its logical type name is used by no schema and its converted
 * type ({@link Never}) has no instances, so it can never match a value. If an application is
 * repackaged into a fat jar, the shade plugin needs the {@code ServicesResourceTransformer} to keep
 * this entry; without it, records are still trusted as soon as a serde is created.
 */
public final class AvroTrustHook extends Conversion<AvroTrustHook.Never> {

    /** A logical type name no schema uses. */
    public static final String LOGICAL_TYPE_NAME = "io.ata.schemas.avro-trust-hook";

    /** Called by {@link java.util.ServiceLoader}; trusts our package. */
    public AvroTrustHook() {
        AvroTrust.ensure();
    }

    @Override
    public Class<Never> getConvertedType() {
        return Never.class;
    }

    @Override
    public String getLogicalTypeName() {
        return LOGICAL_TYPE_NAME;
    }

    /** A type without instances, so this conversion never applies to any datum. */
    public static final class Never {
        private Never() {}
    }
}
