package io.ata.platform.kafka;

import io.ata.schemas.registry.SchemaRegistryException;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ApplicationRecoverableException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.IllegalGenerationException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/**
 * The one rule, for the trainer and the agents, of which errors end a part and which it survives
 * by retrying (aborting its transaction and reading its input again).
 *
 * <p>Clients wrap errors (a failed commit in a {@code KafkaException}, a failed abort in an
 * {@code IllegalStateException}), so both questions look at the whole cause chain.
 */
public final class KafkaErrors {
    private KafkaErrors() {}

    /**
     * Whether a part must stop after {@code error} rather than retry:
     * <ul>
     *   <li>anywhere in the cause chain, an error retrying cannot heal: the producer was fenced by a
     *       newer one with the same {@code transactional.id} (reported as {@code ProducerFencedException}
     *       or, with transactions v2, as an old producer epoch), the static group member was fenced,
     *       or another error Kafka says needs the application to start over
     *       ({@link ApplicationRecoverableException}); a broken sequence
     *       ({@link OutOfOrderSequenceException}); no permission (authentication, authorization);
     *       a broker too old ({@link UnsupportedVersionException});</li>
     *   <li>an error that is neither Kafka's nor the Schema Registry's, e.g. an
     *       {@link IllegalStateException} (how a producer in a broken state answers, and how a part
     *       reports a transaction it cannot settle) or a bug, which retrying will not heal either.</li>
     * </ul>
     * Any other {@link KafkaException} (a timeout, a coordinator that moved, a network error, an
     * interrupt) and a {@link SchemaRegistryException} (the registry unreachable) are transient.
     */
    public static boolean isFatal(Throwable error) {
        return inCauseChain(
                        error,
                        ApplicationRecoverableException.class,
                        OutOfOrderSequenceException.class,
                        AuthenticationException.class,
                        AuthorizationException.class,
                        UnsupportedVersionException.class)
                || !(error instanceof KafkaException || error instanceof SchemaRegistryException);
    }

    /**
     * Whether a transactional producer that failed with {@code error} may not be asked to abort,
     * because Kafka put it in a fatal state: fenced by a newer producer of its transactional id
     * ({@link ApplicationRecoverableException}: a {@link ProducerFencedException} or an old
     * epoch), refused its transactional id or the cluster ({@link TransactionalIdAuthorizationException},
     * {@link ClusterAuthorizationException}), not authenticated, or a broker too old. Looks at the
     * whole cause chain. Every other error leaves the transaction abortable (a topic or group
     * refused, a bug of ours), and it should be aborted, so that {@code read_committed} readers are
     * not held up until it times out. (A commit that timed out or was interrupted is neither: only
     * the same commit may be tried again.)
     */
    public static boolean forbidsAbort(Throwable error) {
        return inCauseChain(
                error,
                ApplicationRecoverableException.class,
                TransactionalIdAuthorizationException.class,
                ClusterAuthorizationException.class,
                AuthenticationException.class,
                UnsupportedVersionException.class);
    }

    /**
     * Whether {@code error} says that this consumer's group membership moved on without it: its
     * commit belonged to a generation the group left behind ({@link CommitFailedException}, an
     * {@link IllegalGenerationException}, an {@link UnknownMemberIdException}) or the group is
     * rebalancing ({@link RebalanceInProgressException}). The cure is the consumer's next poll,
     * which rejoins the group: a part should poll again at once, since every other member waits
     * for it to rejoin before the rebalance can finish. Looks at the whole cause chain.
     */
    public static boolean isGroupMembershipLost(Throwable error) {
        return inCauseChain(
                error,
                CommitFailedException.class,
                IllegalGenerationException.class,
                UnknownMemberIdException.class,
                RebalanceInProgressException.class);
    }

    /**
     * Whether {@code error} says that another instance took over this one's identity: a producer
     * with the same {@code transactional.id}, or a consumer with the same {@code group.instance.id},
     * runs elsewhere. Such a part must not speak for the other one any more (e.g. an agent must not
     * announce that it leaves). Looks at the whole cause chain.
     */
    public static boolean isFenced(Throwable error) {
        return inCauseChain(error, ProducerFencedException.class, FencedInstanceIdException.class);
    }

    /**
     * Whether new clients under the same ids heal the transactional producer that failed with
     * {@code error}, so a part may start over on it rather than stop for good:
     * <ul>
     *   <li>its epoch is gone: its transaction was aborted while the process was paused past {@code
     *       transaction.timeout.ms} (with transactions v2 that reads as an old epoch or a fence, or,
     *       when the coordinator aborted it before the process woke, as an {@link
     *       InvalidTxnStateException} from the next commit), or its transactional id expired. A
     *       newer producer of the same id (another instance) reads the same; new clients would
     *       fence that one in turn, so a part that starts over on this bounds how often it does;</li>
     *   <li>Kafka left it unusable for a reason it does not name ({@link ProducerUnusableException}:
     *       e.g. a fence that landed during a commit, which the coordinator answered with an
     *       unknown server error, so neither the commit nor the abort after it went through).</li>
     * </ul>
     * Never when the cause chain holds what new clients cannot change: a fenced static group member
     * ({@code FencedInstanceIdException}: another instance with the same id for sure), no
     * permission (authentication, authorization), a broker too old.
     */
    public static boolean isHealedByNewClients(Throwable error) {
        return inCauseChain(
                        error,
                        ApplicationRecoverableException.class,
                        InvalidTxnStateException.class,
                        ProducerUnusableException.class)
                && !inCauseChain(
                        error,
                        FencedInstanceIdException.class,
                        AuthenticationException.class,
                        AuthorizationException.class,
                        UnsupportedVersionException.class);
    }

    /** Whether {@code error} or any of its causes is an instance of one of {@code types}. */
    @SafeVarargs
    private static boolean inCauseChain(Throwable error, Class<? extends Throwable>... types) {
        for (Throwable e = error; e != null; e = e.getCause()) {
            for (Class<? extends Throwable> type : types) {
                if (type.isInstance(e)) {
                    return true;
                }
            }
        }
        return false;
    }
}
