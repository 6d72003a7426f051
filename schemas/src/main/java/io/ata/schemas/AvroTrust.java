package io.ata.schemas;

import org.apache.avro.util.ClassSecurityValidator;
import org.apache.avro.util.ClassSecurityValidator.ClassSecurityPredicate;

/**
 * Tells Avro that the classes generated into {@code io.ata.schemas} may be instantiated.
 *
 * <p>Why: since 1.11.4/1.12.0 Avro only loads classes named by a schema when they are trusted
 * (a defence against deserialization gadgets). Out of the box it trusts a few {@code java.lang}
 * types, plus whatever the system properties {@code org.apache.avro.SERIALIZABLE_PACKAGES} /
 * {@code SERIALIZABLE_CLASSES} listed <em>when Avro's validator class was first loaded</em> (they are
 * read once, so setting them later has no effect). Our generated classes are not trusted, so Avro
 * throws {@code SecurityException: Forbidden io.ata.schemas.TimingStatus!} when it has to create
 * one by name: when a {@code SpecificDatumReader} reads a record or enum, and even when a
 * {@code Builder.build()} fills in the default of an unset enum or record field.
 *
 * <p>What: {@link #ensure()} adds "anything in {@code io.ata.schemas}" to Avro's global
 * {@link ClassSecurityValidator} predicate, keeping everything Avro already trusted. Nobody needs
 * to call it by hand: {@link AvroTrustHook} runs it as soon as Avro creates its first data model
 * (which every generated class does when it is loaded), and the serdes call it again. It is
 * idempotent and cheap.
 */
public final class AvroTrust {

    /** The package (and its sub-packages) whose classes Avro may instantiate. */
    public static final String TRUSTED_PACKAGE = "io.ata.schemas";

    private AvroTrust() {}

    /**
     * Makes Avro trust {@link #TRUSTED_PACKAGE}, unless it already does (for example because
     * {@code -Dorg.apache.avro.SERIALIZABLE_PACKAGES=io.ata.schemas} was given, or a previous call).
     * If some other code later replaces Avro's global predicate, calling this again re-adds us.
     */
    public static synchronized void ensure() {
        ClassSecurityPredicate current = ClassSecurityValidator.getGlobal();
        if (current.isTrusted(AvroTrust.class)) {
            return;
        }
        ClassSecurityValidator.setGlobal(ClassSecurityValidator.composite(current, AvroTrust::inTrustedPackage));
    }

    /** Whether Avro currently accepts {@code type}; handy in diagnostics and tests. */
    public static boolean isTrusted(Class<?> type) {
        return ClassSecurityValidator.getGlobal().isTrusted(type);
    }

    private static boolean inTrustedPackage(Class<?> type) {
        return type.getName().startsWith(TRUSTED_PACKAGE + ".");
    }
}
