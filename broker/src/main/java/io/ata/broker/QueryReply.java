package io.ata.broker;

/**
 * One answer of the HTTP queries, before it is sent: status, JSON body, and the instance that
 * produced it (relayed unchanged when the answer comes from another instance).
 *
 * @param status   HTTP status
 * @param body     JSON bytes
 * @param instance {@code host:port} of the instance that answered; null if it advertises none
 * @param retry    whether the client should retry shortly (503 with {@code Retry-After})
 */
record QueryReply(int status, byte[] body, String instance, boolean retry) {}
