package io.ata.broker;

import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the broker's Kafka Streams instance meets errors outside its processors, so that no record
 * puts it into ERROR: an output record it cannot write is logged and skipped, and a stream thread
 * that fails (e.g. the Schema Registry was unreachable while a record was decoded) is replaced,
 * reading again from its last commit.
 */
final class StreamErrorHandlers {
    private static final Logger LOG = LoggerFactory.getLogger(StreamErrorHandlers.class);

    private StreamErrorHandlers() {}

    /**
     * Skips an output record too large to write: retrying would fail the same way, and failing
     * would stop the broker for one record. Everything the broker writes is bounded (dead letters
     * are cut, heartbeats and rounds checked), so this is a last line. Other errors (a record that
     * does not serialize because the Schema Registry is down, say) fail the thread as by default,
     * and it is replaced: the record is not lost.
     */
    public static final class SkipUnwritableRecords implements ProductionExceptionHandler {
        @Override
        public Response handleError(
                ErrorHandlerContext context, ProducerRecord<byte[], byte[]> record, Exception exception) {
            if (exception instanceof RecordTooLargeException) {
                LOG.error(
                        "skipped a record for {} of {} bytes, too large to write (input {}-{}@{})",
                        record.topic(),
                        record.value() == null ? 0 : record.value().length,
                        context.topic(),
                        context.partition(),
                        context.offset(),
                        exception);
                return Response.resume();
            }
            return Response.fail();
        }

        @Override
        public void configure(Map<String, ?> configs) {}
    }

    /** Replaces a failed stream thread; only a JVM error ({@link Error}) shuts the instance down. */
    static StreamsUncaughtExceptionHandler replaceThread() {
        return exception -> {
            if (exception instanceof Error || exception.getCause() instanceof Error) {
                LOG.error("stream thread failed with a JVM error: shutting down", exception);
                return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
            }
            LOG.warn("stream thread failed: replacing it", exception);
            return StreamThreadExceptionResponse.REPLACE_THREAD;
        };
    }
}
