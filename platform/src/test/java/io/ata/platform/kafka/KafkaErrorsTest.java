package io.ata.platform.kafka;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.registry.SchemaNotFoundException;
import io.ata.schemas.registry.SchemaRegistryException;
import java.io.IOException;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.IllegalGenerationException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.InvalidPidMappingException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class KafkaErrorsTest {

    /** Errors no retry can cure: the client is fenced, not allowed, or its sequence is broken. */
    static Stream<Exception> fencingPermissionsAndABrokenSequence() {
        return Stream.of(
                new ProducerFencedException("fenced"),
                new InvalidProducerEpochException("old epoch: fenced under transactions v2"),
                new FencedInstanceIdException("static member fenced"),
                new OutOfOrderSequenceException("gap"),
                new TopicAuthorizationException("no write"),
                new UnsupportedVersionException("old broker"));
    }

    @ParameterizedTest
    @MethodSource("fencingPermissionsAndABrokenSequence")
    void fencingPermissionsAndABrokenSequenceAreFatal(Exception error) {
        assertTrue(KafkaErrors.isFatal(error));
    }

    @Test
    void aFatalErrorWrappedByTheClientIsStillFatal() {
        assertTrue(KafkaErrors.isFatal(new KafkaException("commit failed", new ProducerFencedException("fenced"))));
        assertTrue(KafkaErrors.isFatal(
                new KafkaException("outer", new KafkaException("inner", new AuthorizationException("denied")))));
    }

    /** Errors a retry may cure: the cluster was slow, moving or briefly unreachable. */
    static Stream<Exception> timeoutsAndOtherKafkaErrors() {
        return Stream.of(
                new InterruptException(new InterruptedException()),
                new TimeoutException("no answer in time"),
                new KafkaException("the coordinator went away"),
                new CoordinatorNotAvailableException("moving"),
                new SerializationException("cannot encode"),
                new KafkaException("wrapped", new IOException("connection reset")));
    }

    @ParameterizedTest
    @MethodSource("timeoutsAndOtherKafkaErrors")
    void timeoutsAndOtherKafkaErrorsAreTransient(Exception error) {
        assertFalse(KafkaErrors.isFatal(error));
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
        assertTrue(
                KafkaErrors.isFatal(new ProducerUnusableException("cannot abort", new KafkaException("abort failed"))));
        assertTrue(KafkaErrors.isFatal(new NullPointerException()));
        // a Kafka error caused by an illegal state is Kafka's to report: transient
        assertFalse(KafkaErrors.isFatal(new KafkaException("failed", new IllegalStateException("inner"))));
    }

    @Test
    void aLostProducerEpochIsHealedByNewClientsButAFencedGroupMemberIsNot() {
        // a transaction aborted while the process was paused, an expired transactional id, and
        // (indistinguishable under transactions v2) a fence: new clients under the same ids
        assertTrue(KafkaErrors.isHealedByNewClients(new InvalidProducerEpochException("epoch bumped")));
        assertTrue(KafkaErrors.isHealedByNewClients(
                new KafkaException("commit failed", new InvalidPidMappingException("id expired"))));
        assertTrue(KafkaErrors.isHealedByNewClients(new ProducerFencedException("fenced")));
        // the coordinator aborted it while the process was still frozen: the agent's commit on
        // waking, then its abort, as a frozen 'ata worker' logged them
        assertTrue(KafkaErrors.isHealedByNewClients(new ProducerUnusableException(
                "cannot abort",
                new KafkaException(
                        "Cannot execute transactional method because we are in an error state",
                        new InvalidTxnStateException("invalid state")))));
        // another agent with our static group member id: stop, whatever else went wrong
        assertFalse(KafkaErrors.isHealedByNewClients(new FencedInstanceIdException("static member fenced")));
        assertFalse(KafkaErrors.isHealedByNewClients(
                new KafkaException("commit failed", new FencedInstanceIdException("static member fenced"))));
        assertFalse(KafkaErrors.isHealedByNewClients(new AuthorizationException("denied")));
        assertFalse(KafkaErrors.isHealedByNewClients(new KafkaException("timeout")));
    }

    @Test
    void aProducerKafkaLeftUnusableIsHealedByNewClientsUnlessRefused() {
        // a fence that landed during a commit, as an agent logged it: the coordinator answered the
        // commit with an unknown server error, and the abort after it found the producer broken
        KafkaException unnamed = new KafkaException("Unhandled error in EndTxnResponse: unexpected server error");
        ProducerUnusableException afterCommit = new ProducerUnusableException(
                "cannot abort",
                new KafkaException("Cannot execute transactional method because we are in an error state", unnamed));
        afterCommit.addSuppressed(unnamed);
        assertTrue(KafkaErrors.isHealedByNewClients(afterCommit));
        assertTrue(KafkaErrors.isFatal(afterCommit), "the agent stops on it; only new clients go on");
        assertTrue(KafkaErrors.isHealedByNewClients(
                new ProducerUnusableException("the commit was cut short 3 times", new TimeoutException("slow"))));
        // the same unnamed error, not yet known to have broken the producer: a retry may heal it
        assertFalse(KafkaErrors.isHealedByNewClients(unnamed));
        // what new clients cannot change, even on a producer that is unusable
        assertFalse(KafkaErrors.isHealedByNewClients(new ProducerUnusableException(
                "cannot begin a transaction", new TransactionalIdAuthorizationException("denied"))));
        assertFalse(KafkaErrors.isHealedByNewClients(
                new ProducerUnusableException("cannot abort", new UnsupportedVersionException("old broker"))));
        assertFalse(KafkaErrors.isHealedByNewClients(
                new ProducerUnusableException("cannot abort", new SaslAuthenticationException("bad password"))));
        // a bug of ours is no unusable producer
        assertFalse(KafkaErrors.isHealedByNewClients(new IllegalStateException("broken")));
    }

    @Test
    void fencedMeansAnotherInstanceHasOurIdentity() {
        assertTrue(KafkaErrors.isFenced(new ProducerFencedException("fenced")));
        assertTrue(KafkaErrors.isFenced(new FencedInstanceIdException("static member fenced")));
        assertTrue(
                KafkaErrors.isFenced(
                        new ProducerUnusableException("cannot abort", new ProducerFencedException("fenced"))),
                "an abort that failed because we were fenced");
        assertFalse(KafkaErrors.isFenced(new TopicAuthorizationException("no write")), "fatal, but not fenced");
        assertFalse(KafkaErrors.isFenced(new IllegalStateException("broken")));
        assertFalse(KafkaErrors.isFenced(new TimeoutException("slow")));
    }

    @Test
    void aCommitOfAGenerationTheGroupLeftBehindMeansRejoinNotFatal() {
        // what an agent woken from SIGSTOP gets: its session expired, the group moved on
        Exception woken = new KafkaException(
                "commit failed",
                new CommitFailedException("Transaction offset Commit failed due to consumer group metadata mismatch: "
                        + "The coordinator is not aware of this member."));
        for (Exception e : new Exception[] {woken, new RebalanceInProgressException("rebalancing")}) {
            assertTrue(KafkaErrors.isGroupMembershipLost(e), e.toString());
            assertFalse(KafkaErrors.isFatal(e), "retried: " + e);
        }
        // Kafka calls these application-recoverable, which the agents treat as fatal (isFatal)
        assertTrue(KafkaErrors.isGroupMembershipLost(new IllegalGenerationException("old generation")));
        assertTrue(KafkaErrors.isGroupMembershipLost(new UnknownMemberIdException("unknown member")));
        assertFalse(KafkaErrors.isGroupMembershipLost(new TimeoutException("slow")));
        assertFalse(KafkaErrors.isGroupMembershipLost(new FencedInstanceIdException("another agent has our id")));
        assertFalse(KafkaErrors.isGroupMembershipLost(new IllegalStateException("broken")));
    }

    @Test
    void onlyAFencedOrRefusedProducerMayNotBeAskedToAbort() {
        for (Exception e : new Exception[] {
            new ProducerFencedException("a newer producer"),
            new InvalidProducerEpochException("an old epoch"),
            new org.apache.kafka.common.errors.TransactionalIdAuthorizationException("id refused"),
            new org.apache.kafka.common.errors.ClusterAuthorizationException("cluster refused"),
            new KafkaException("commit failed", new ProducerFencedException("wrapped"))
        }) {
            assertTrue(KafkaErrors.forbidsAbort(e), e.toString());
        }
        // abortable in Kafka: the transaction is aborted, whether the part then stops or retries
        for (Exception e : new Exception[] {
            new TopicAuthorizationException("topic refused"),
            new OutOfOrderSequenceException("sequence"),
            new TimeoutException("slow"),
            new IllegalArgumentException("a bug of ours")
        }) {
            assertFalse(KafkaErrors.forbidsAbort(e), e.toString());
        }
    }
}
