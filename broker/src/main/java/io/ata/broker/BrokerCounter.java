package io.ata.broker;

/**
 * The broker's plain counters, each declared once: its meter name (Prometheus turns the dots into
 * underscores and adds {@code _total}), its key in the JSON of {@code GET /metrics}, and what it
 * counts. A new counter is one constant here and a {@link BrokerMetrics#count} where it happens;
 * registering, the JSON snapshot and removal follow from the list.
 */
public enum BrokerCounter {
    DUPLICATES_IGNORED(
            "ata.broker.duplicates.ignored", "duplicate-closes", "CLOSED events of a round already folded, ignored"),
    STALE_OPENS_IGNORED(
            "ata.broker.stale.opens.ignored",
            "stale-opens",
            "OPENED events older than the job's last opened round, ignored"),
    ROUNDS_REOPENED(
            "ata.broker.rounds.reopened", "re-opened-rounds", "OPENED events of the open round, allocated again"),
    ROUNDS_DEFERRED(
            "ata.broker.rounds.deferred",
            "deferred-rounds",
            "rounds opened while no worker was live, allocated once one is"),
    ROUNDS_PLANNED_AHEAD(
            "ata.broker.rounds.planned.ahead",
            "rounds-planned-ahead",
            "rounds planned and sent when the round before them opened (pipelined allocation)"),
    BACKUP_TASKS("ata.broker.backup.tasks", "backup-tasks", "backup copies of overdue tasks sent to other workers"),
    TIMINGS_LEFT_OUT(
            "ata.broker.timings.left.out",
            "timings-left-out",
            "timings of CLOSED events left out alone (named in the event's one dead letter), the others folded"),
    HEARTBEATS_UNCHANGED(
            "ata.broker.heartbeats.unchanged",
            "heartbeats-unchanged",
            "heartbeats that told nothing new, not forwarded to the membership"),
    ASSIGNMENTS_MISSING_PARTITION(
            "ata.broker.assignments.missing.partition",
            "assignments-to-missing-partition",
            "assignments for a task partition that does not exist, sent to another"),
    JOBS_RETIRED(
            "ata.broker.jobs.retired",
            "jobs-retired",
            "jobs without a round event for the job retention, deleted from the jobs store"),
    LEARNED_STATES_DISCARDED(
            "ata.broker.learned.states.discarded",
            "learned-states-discarded",
            "stored learned states a job's policy refused (corrupt, or a version this build cannot read): "
                    + "it learns afresh over its statistics"),
    STORED_STATES_DISCARDED(
            "ata.broker.stored.states.discarded",
            "stored-states-discarded",
            "jobs whose stored state could not be read (bytes that do not decode, or parts that do not fit "
                    + "together): deleted, the job starts afresh at its next OPENED event");

    private final String meterName;
    private final String jsonKey;
    private final String description;

    BrokerCounter(String meterName, String jsonKey, String description) {
        this.meterName = meterName;
        this.jsonKey = jsonKey;
        this.description = description;
    }

    /** The Micrometer name, e.g. {@code ata.broker.backup.tasks}. */
    public String meterName() {
        return meterName;
    }

    /** The key in {@code GET /metrics}, e.g. {@code backup-tasks}. */
    public String jsonKey() {
        return jsonKey;
    }

    /** What it counts: the meter's description. */
    public String description() {
        return description;
    }
}
