package io.ata.lab.report;

import io.ata.allocation.policy.ConstantConvention;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How a run was set up, as the reports need it: {@code run.txt} prints all of it so that a result
 * can be reproduced and judged later; the charts use the title; {@code summary.csv} uses the
 * convention and the oracle note.
 *
 * @param commandLine    the command as typed, e.g. {@code ata simulate --rounds 1000}
 * @param title          one line saying what was run, used as the chart header
 * @param settings       every setting by name, in display order
 * @param convention     the constants convention ATA and ATA-Empirical used
 * @param trueMeansNote  where the "true" means given to the oracle policies came from when that is
 *                       worth flagging in their description (a replay's hindsight means), or null
 * @param notes          remarks worth reading next to the results (e.g. skipped log lines)
 * @param fleet          one line per worker: its name and time distribution or recorded durations
 * @param timeUnit       the unit of every time in the outputs, as the charts' axis labels and the
 *                       console name it: the scenario's or log's (e.g. {@code ms}), else
 *                       {@link #ABSTRACT_TIME_UNIT}
 */
public record RunInfo(
        String commandLine,
        String title,
        Map<String, String> settings,
        ConstantConvention convention,
        String trueMeansNote,
        List<String> notes,
        List<String> fleet,
        String timeUnit) {

    /** The unit of the paper's time models, which have none. */
    public static final String ABSTRACT_TIME_UNIT = "time units";

    /** Policies that are handed the true means (oracles), so their description carries the note. */
    public static final List<String> ORACLE_POLICIES = List.of("fta", "proportional");

    public RunInfo {
        settings = Collections.unmodifiableMap(new LinkedHashMap<>(settings));
        notes = List.copyOf(notes);
        fleet = List.copyOf(fleet);
        timeUnit = timeUnit == null || timeUnit.isBlank() ? ABSTRACT_TIME_UNIT : timeUnit.strip();
    }

    /** A number as run.txt shows it: six significant digits, no trailing zeros (0.0001, 386.256). */
    public static String number(double v) {
        if (!Double.isFinite(v)) {
            return Double.toString(v);
        }
        return new BigDecimal(v).round(new MathContext(6)).stripTrailingZeros().toPlainString();
    }

    /** The policy's own description, plus the oracle note for oracle policies. */
    public String describe(String policy, String description) {
        if (trueMeansNote != null && ORACLE_POLICIES.contains(policy)) {
            return description + "; true means: " + trueMeansNote;
        }
        return description;
    }

    /** The constants convention for ATA's two policies that use it, "-" for the others. */
    public String constantsOf(String policy) {
        // a run of the policy under a label (ata@stale: planned from one-round-old statistics) has its constants
        int at = policy.indexOf('@');
        String name = at < 0 ? policy : policy.substring(0, at);
        return name.equals("ata") || name.equals("ata-empirical") ? convention.label() : "-";
    }
}
