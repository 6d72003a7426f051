package io.ata.schemas.kafka;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.registry.SchemaNotFoundException;
import io.ata.schemas.registry.SchemaRegistryException;
import java.io.IOException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.junit.jupiter.api.Test;

class KafkaErrorsTest {

    @Test
    void fencingPermissionsAndABrokenSequenceAreFatal() {
        assertTrue(KafkaErrors.isFatal(new ProducerFencedException("fenced")));
        assertTrue(KafkaErrors.isFatal(new InvalidProducerEpochException("old epoch: fenced under transactions v2")));
        assertTrue(KafkaErrors.isFatal(new FencedInstanceIdException("static member fenced")));
        assertTrue(KafkaErrors.isFatal(new OutOfOrderSequenceException("gap")));
        assertTrue(KafkaErrors.isFatal(new TopicAuthorizationException("no write")));
        assertTrue(KafkaErrors.isFatal(new UnsupportedVersionException("old broker")));
    }

    @Test
    void aFatalErrorWrappedByTheClientIsStillFatal() {
        assertTrue(KafkaErrors.isFatal(new KafkaException("commit failed", new ProducerFencedException("fenced"))));
        assertTrue(KafkaErrors.isFatal(
                new KafkaException("outer", new KafkaException("inner", new AuthorizationException("denied")))));
    }

    @Test
    void timeoutsAndOtherKafkaErrorsAreTransient() {
        assertFalse(KafkaErrors.isFatal(new TimeoutException("no answer in time")));
        assertFalse(KafkaErrors.isFatal(new KafkaException("the coordinator went away")));
        assertFalse(KafkaErrors.isFatal(new CoordinatorNotAvailableException("moving")));
        assertFalse(KafkaErrors.isFatal(new SerializationException("cannot encode")));
        assertFalse(KafkaErrors.isFatal(new InterruptException(new InterruptedException())));
        assertFalse(KafkaErrors.isFatal(new KafkaException("wrapped", new IOException("connection reset"))));
    }

    @Test
    void aSchemaRegistryOutageIsTransient() {
        assertFalse(
                KafkaErrors.isFatal(new SchemaRegistryException("registry unreachable", new IOException("refused"))));
        assertFalse(KafkaErrors.isFatal(new SchemaRegistryException("HTTP 503", 503, 50301)));
        assertFalse(KafkaErrors.isFatal(new SchemaNotFoundException("subject not found", 40401)));
    }

    @Test
    void anIllegalStateIsFatalAsAreBugs() {
        // how a producer in a broken state answers, and how the agent reports a failed abort
        assertTrue(KafkaErrors.isFatal(new IllegalStateException("Cannot call send in state ABORTABLE_ERROR")));
        assertTrue(KafkaErrors.isFatal(
                new IllegalStateException("transactional producer is unusable", new KafkaException("abort failed"))));
        assertTrue(KafkaErrors.isFatal(new NullPointerException()));
        // a Kafka error caused by an illegal state is Kafka's to report: transient
        assertFalse(KafkaErrors.isFatal(new KafkaException("failed", new IllegalStateException("inner"))));
    }

    @Test
    void fencedMeansAnotherInstanceHasOurIdentity() {
        assertTrue(KafkaErrors.isFenced(new ProducerFencedException("fenced")));
        assertTrue(KafkaErrors.isFenced(new FencedInstanceIdException("static member fenced")));
        assertTrue(
                KafkaErrors.isFenced(new IllegalStateException(
                        "transactional producer is unusable", new ProducerFencedException("fenced"))),
                "an abort that failed because we were fenced");
        assertFalse(KafkaErrors.isFenced(new TopicAuthorizationException("no write")), "fatal, but not fenced");
        assertFalse(KafkaErrors.isFenced(new IllegalStateException("broken")));
        assertFalse(KafkaErrors.isFenced(new TimeoutException("slow")));
    }
}
