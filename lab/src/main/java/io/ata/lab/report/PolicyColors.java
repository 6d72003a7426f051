package io.ata.lab.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Stroke;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One colour per policy, the same in every chart of a run. The paper's policies keep a fixed colour
 * across runs too (ATA is always blue, FTA always black), so charts of different runs can be
 * compared side by side; other names (e.g. {@code ata-hedge:2}) take the spare colours in the order
 * they appear. The oracle FTA is drawn dashed: it is a reference, not a contender.
 */
public final class PolicyColors {
    private static final Map<String, Color> FIXED = Map.of(
            "fta", new Color(0, 0, 0),
            "uta", new Color(127, 127, 127),
            "gta", new Color(255, 127, 14),
            "ata", new Color(31, 119, 180),
            "ata-empirical", new Color(44, 160, 44),
            "ata-auto", new Color(214, 39, 40),
            "ata-auto-subtractive", new Color(140, 86, 75),
            "ata-ert", new Color(148, 103, 189),
            "proportional", new Color(188, 189, 34),
            "adaptive-proportional", new Color(23, 190, 207));

    private static final Color[] SPARE = {
        new Color(227, 119, 194), new Color(0, 90, 80), new Color(205, 160, 0), new Color(0, 0, 128),
        new Color(128, 0, 0), new Color(90, 160, 255), new Color(110, 110, 40), new Color(255, 80, 160)
    };

    private final Map<String, Color> colors = new HashMap<>();

    /** Colours for the policies of one run, in run order. */
    public PolicyColors(List<String> policies) {
        int spare = 0;
        for (String p : policies) {
            Color c = FIXED.get(p);
            if (c == null) {
                c = SPARE[spare++ % SPARE.length];
            }
            colors.put(p, c);
        }
    }

    public Color color(String policy) {
        return colors.getOrDefault(policy, Color.DARK_GRAY);
    }

    /** The policy's line {@code width} pixels wide: dashed for the oracle FTA, else solid. */
    public Stroke stroke(String policy, float width) {
        return policy.equals("fta")
                ? new BasicStroke(
                        width, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10.0f, new float[] {8.0f, 5.0f}, 0.0f)
                : new BasicStroke(width);
    }
}
