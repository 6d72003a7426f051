package io.ata.cli;

import io.ata.allocation.policy.ConstantConvention;
import io.ata.allocation.policy.PolicyRegistry;
import io.ata.lab.replay.ExhaustionMode;
import io.ata.lab.timinglog.TimingLogFormat;
import io.ata.schemas.DeviceKind;
import io.ata.workloads.time.TimeModels;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Turns option text into broker values with the broker's own parsers, so a bad value is a usage
 * error whose message is the broker's ("unknown time model 'x'; known: ..."), and lists the known
 * values for the help text straight from the broker, so the help never goes stale.
 */
final class OptionValues {
    private OptionValues() {}

    /** Passes an option's value on when the user gave it; an option without a default is null otherwise. */
    static <T> void ifGiven(T value, Consumer<? super T> setter) {
        if (value != null) {
            setter.accept(value);
        }
    }

    /**
     * A converter by a parser of the project's: its IllegalArgumentException becomes picocli's usage
     * error with the same message. Picocli makes converters by their no-argument constructor, so each
     * option type is a subclass that names its parser.
     */
    abstract static class ParsedBy<T> implements ITypeConverter<T> {
        private final Function<String, T> parser;

        ParsedBy(Function<String, T> parser) {
            this.parser = parser;
        }

        @Override
        public final T convert(String text) {
            try {
                return parser.apply(text);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** {@code --constants paper|experiments}. */
    static final class Convention extends ParsedBy<ConstantConvention> {
        Convention() {
            super(ConstantConvention::parse);
        }
    }

    /** {@code --when-exhausted cycle|bootstrap|stop}. */
    static final class Exhaustion extends ParsedBy<ExhaustionMode> {
        Exhaustion() {
            super(ExhaustionMode::parse);
        }
    }

    /** {@code --log-format csv|jsonl}. */
    static final class LogFormat extends ParsedBy<TimingLogFormat> {
        LogFormat() {
            super(TimingLogFormat::parse);
        }
    }

    /** {@code --time-model NAME}: checked against {@link TimeModels#NAMES}, returned in lower case. */
    static final class TimeModel implements ITypeConverter<String> {
        @Override
        public String convert(String text) {
            String name = text.trim().toLowerCase(Locale.ROOT);
            if (!Arrays.asList(TimeModels.NAMES).contains(name)) {
                throw new TypeConversionException(
                        "unknown time model '" + text + "'; known: " + String.join(", ", TimeModels.NAMES));
            }
            return name;
        }
    }

    /** The time model names, for {@code ${COMPLETION-CANDIDATES}} in the help. */
    static final class TimeModelNames implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return List.of(TimeModels.NAMES).iterator();
        }
    }

    /** The policy names, for {@code ${COMPLETION-CANDIDATES}} in the help. */
    static final class PolicyNames implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return PolicyRegistry.standard().labels().iterator();
        }
    }

    /**
     * A length of time: a number with a unit ({@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h}),
     * or ISO-8601 ({@code PT10S}). Must be positive.
     */
    static final class TimeSpan implements ITypeConverter<Duration> {
        private static final Pattern WITH_UNIT = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h)");

        @Override
        public Duration convert(String text) {
            String t = text.trim().toLowerCase(Locale.ROOT);
            Duration d;
            Matcher m = WITH_UNIT.matcher(t);
            if (m.matches()) {
                double millis = Double.parseDouble(m.group(1))
                        * switch (m.group(2)) {
                            case "ms" -> 1;
                            case "s" -> 1_000;
                            case "m" -> 60_000;
                            default -> 3_600_000;
                        };
                d = Duration.ofNanos(Math.round(millis * 1e6));
            } else {
                try {
                    d = Duration.parse(text.trim().toUpperCase(Locale.ROOT));
                } catch (DateTimeParseException e) {
                    throw new TypeConversionException(
                            "'" + text + "' is not a length of time: write e.g. 500ms, 10s, 2m or 1h");
                }
            }
            if (d.isNegative() || d.isZero()) {
                throw new TypeConversionException("'" + text + "' must be a positive length of time");
            }
            return d;
        }
    }

    /** {@code --device cpu|gpu|other}, in any case. */
    static final class Device implements ITypeConverter<DeviceKind> {
        @Override
        public DeviceKind convert(String text) {
            try {
                return DeviceKind.valueOf(text.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("unknown device '" + text + "'; known: cpu, gpu, other");
            }
        }
    }
}
