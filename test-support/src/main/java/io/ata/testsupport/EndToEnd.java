package io.ata.testsupport;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * A slow end-to-end test: it starts a Kafka broker (embedded, or in a container) or runs a live
 * command on one. {@code ./mvnw test} leaves these out; Failsafe runs them in {@code ./mvnw verify}
 * (the tag is configured in the parent pom).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag(EndToEnd.TAG)
public @interface EndToEnd {
    /** The JUnit tag, as the parent pom's {@code e2e.tag} names it. */
    String TAG = "e2e";
}
