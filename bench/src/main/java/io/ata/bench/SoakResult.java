package io.ata.bench;

import io.ata.schemas.Topics;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a soak saw, raw; {@link SoakReport} turns it into figures and goals.
 *
 * @param startMs          when the disturbances began (wall clock)
 * @param endMs            when they ended
 * @param closes           every round closed, in order
 * @param letters          every dead letter written meanwhile
 * @param closedAtMs       when each round's close was decided, by round (its CLOSED event's timestamp)
 * @param probes           every probe of the broker's {@code /health}
 * @param sent             every record the soak wrote
 * @param events           what the soak did, in order
 * @param roundsStalled    the trainers' count of stalled rounds re-driven ({@code ata.trainer.rounds.stalled})
 * @param clipped          results clipped to the norm bound, over every trainer
 * @param outliers         outlier gradients the agents computed
 * @param trainersStarted  trainers started (the first and one per restart)
 * @param diskBytes        the embedded Kafka's log directory at the end
 * @param diskMaxBytes     its largest size sampled
 * @param slowClients      what the slow HTTP clients did
 * @param trainerDown      why the trainer was not running at the end, if it was not
 * @param agentsDown       the agents not running at the end
 * @param undecodableLetters letters that could not be decoded
 */
public record SoakResult(
        Soak.Settings settings,
        long startMs,
        long endMs,
        List<RoundCloses.Close> closes,
        List<SoakWatch.Letter> letters,
        Map<Long, Long> closedAtMs,
        List<HealthProbe.Probe> probes,
        List<SentRecords.Sent> sent,
        List<SoakEvents.Event> events,
        Topics topics,
        long roundsStalled,
        long clipped,
        long outliers,
        int trainersStarted,
        long diskBytes,
        long diskMaxBytes,
        SlowHttpClients.Stats slowClients,
        Optional<String> trainerDown,
        List<String> agentsDown,
        long undecodableLetters) {}
