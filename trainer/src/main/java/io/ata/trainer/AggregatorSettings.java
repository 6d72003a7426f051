package io.ata.trainer;

/**
 * The settings an aggregator may read ({@code ata trainer}'s options); a rule reads those it needs.
 *
 * @param trimFraction the trimmed mean's fraction cut from each end ({@code --trim-fraction})
 */
public record AggregatorSettings(double trimFraction) {
    /** The defaults of the command line. */
    public static final AggregatorSettings DEFAULTS = new AggregatorSettings(0.1);
}
