package io.ata.allocation.policy;

import java.util.Locale;

/**
 * The two ways ATA's confidence constants have been set (spec section 2). Both exist so that the
 * published figures can be reproduced ({@link #EXPERIMENTS}) and the method's real potential shown
 * ({@link #PAPER}); every report says which one a run used.
 */
public enum ConstantConvention {
    /** Camera-ready text: ATA width {@code c = 2 alpha}, ATA-Empirical {@code c_rel = 2 eta}, user constants. */
    PAPER,
    /**
     * The authors' experiment runs: {@code c = 4 e alpha} with {@code alpha = 2 max_i mu_i} taken
     * from the true means, and {@code c_rel = 4 e * 2}.
     */
    EXPERIMENTS;

    public static ConstantConvention parse(String text) {
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "unknown constants convention '" + text + "'; use paper or experiments", e);
        }
    }

    /** ATA's absolute width {@code c}. */
    public double ataWidth(double alpha, double maxTrueMean) {
        return switch (this) {
            case PAPER -> 2 * alpha;
            case EXPERIMENTS -> 4 * Math.E * 2 * maxTrueMean;
        };
    }

    /** ATA-Empirical's relative width {@code c_rel}. */
    public double empiricalWidth(double eta) {
        return switch (this) {
            case PAPER -> 2 * eta;
            case EXPERIMENTS -> 4 * Math.E * 2;
        };
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
