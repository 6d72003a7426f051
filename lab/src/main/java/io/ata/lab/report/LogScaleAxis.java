package io.ata.lab.report;

import java.awt.Graphics2D;
import java.awt.geom.Rectangle2D;
import java.text.NumberFormat;
import java.util.ArrayList;
import java.util.List;
import org.jfree.chart.axis.LogarithmicAxis;
import org.jfree.chart.axis.NumberTick;
import org.jfree.chart.ui.RectangleEdge;

/**
 * A base-10 log axis with ticks at 1..9 x 10^k, labelled at the powers of ten and, when the axis
 * spans at most two and a half decades, at 2 and 5 x 10^k too. JFreeChart's
 * {@link LogarithmicAxis} labels only the powers of ten on a vertical axis (a range like
 * 400..5000 gets one label) and crowds a horizontal one (1 2 3 4 5 10 20 30 ...); this keeps
 * both readable. Labels are short: 1E6 rather than 1000000. Values at or below zero are never
 * drawn (callers drop them), so they cannot break the axis.
 */
final class LogScaleAxis extends LogarithmicAxis {
    private static final long serialVersionUID = 1L;
    private static final double MAX_DECADES_FOR_MORE_LABELS = 2.5;
    private final NumberFormat labels = new ChartStyle.CompactNumberFormat();

    LogScaleAxis(String label) {
        super(label);
        setStrictValuesFlag(false);
        setAutoRangeNextLogFlag(false);
    }

    @Override
    @SuppressWarnings("rawtypes") // JFreeChart's signature uses a raw List
    protected List refreshTicksVertical(Graphics2D g2, Rectangle2D dataArea, RectangleEdge edge) {
        return relabelled(super.refreshTicksVertical(g2, dataArea, edge));
    }

    @Override
    @SuppressWarnings("rawtypes")
    protected List refreshTicksHorizontal(Graphics2D g2, Rectangle2D dataArea, RectangleEdge edge) {
        return relabelled(super.refreshTicksHorizontal(g2, dataArea, edge));
    }

    /** The same ticks, labelled at 10^k (and 2 and 5 x 10^k on a short axis), unlabelled elsewhere. */
    private List<Object> relabelled(List<?> ticks) {
        boolean shortAxis = Math.log10(getUpperBound() / getLowerBound()) <= MAX_DECADES_FOR_MORE_LABELS;
        List<Object> result = new ArrayList<>(ticks.size());
        for (Object o : ticks) {
            if (!(o instanceof NumberTick t) || !(t.getValue() > 0)) {
                result.add(o);
                continue;
            }
            double v = t.getValue();
            long mantissa = Math.round(v / Math.pow(10, Math.floor(Math.log10(v) + 1e-9)));
            boolean labelled = mantissa == 1 || (shortAxis && (mantissa == 2 || mantissa == 5));
            result.add(new NumberTick(
                    t.getNumber(),
                    labelled ? labels.format(v) : "",
                    t.getTextAnchor(),
                    t.getRotationAnchor(),
                    t.getAngle()));
        }
        return result;
    }
}
