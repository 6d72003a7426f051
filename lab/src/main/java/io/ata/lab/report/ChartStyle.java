package io.ata.lab.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.Locale;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.title.LegendTitle;
import org.jfree.chart.ui.RectangleEdge;

/**
 * The look shared by every chart: white background, light grid, readable fonts, legend below, and
 * axes that are either linear or base-10 logarithmic. Kept in one place so all charts match.
 */
final class ChartStyle {
    static final Font TITLE = new Font(Font.SANS_SERIF, Font.BOLD, 15);
    static final Font LABEL = new Font(Font.SANS_SERIF, Font.PLAIN, 13);
    static final Font TICK = new Font(Font.SANS_SERIF, Font.PLAIN, 11);
    static final Font LEGEND = new Font(Font.SANS_SERIF, Font.PLAIN, 12);

    private ChartStyle() {}

    /**
     * A linear or log axis; a log axis says so in its label, and every tick label has the one
     * {@link CompactNumberFormat} (500M, not 500,000,000 on one axis and 5E8 on the next).
     */
    static ValueAxis axis(String label, boolean log) {
        ValueAxis axis;
        if (log) {
            axis = new LogScaleAxis(
                    label.endsWith(")")
                            ? label.substring(0, label.length() - 1) + ", log scale)"
                            : label + " (log scale)");
        } else {
            NumberAxis number = new NumberAxis(label);
            number.setAutoRangeIncludesZero(false);
            number.setNumberFormatOverride(new CompactNumberFormat());
            axis = number;
        }
        axis.setLabelFont(LABEL);
        axis.setTickLabelFont(TICK);
        return axis;
    }

    /**
     * Whether values from {@code min} to {@code max} are worth a log axis: only if they span a
     * factor of three or more, so that the axis has labelled ticks (at 1, 2 and 5 x 10^k) and the
     * log scale shows something a linear one would not.
     */
    static boolean worthLog(double min, double max) {
        return min > 0 && max >= 3 * min;
    }

    static void apply(JFreeChart chart) {
        chart.setBackgroundPaint(Color.WHITE);
        chart.getTitle().setFont(TITLE);
        XYPlot plot = chart.getXYPlot();
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(new Color(220, 220, 220));
        plot.setRangeGridlinePaint(new Color(220, 220, 220));
        plot.setDomainGridlineStroke(new BasicStroke(0.8f));
        plot.setRangeGridlineStroke(new BasicStroke(0.8f));
        plot.setOutlinePaint(Color.GRAY);
        LegendTitle legend = chart.getLegend();
        if (legend != null) {
            legend.setItemFont(LEGEND);
            legend.setPosition(RectangleEdge.BOTTOM);
            legend.setFrame(org.jfree.chart.block.BlockBorder.NONE);
        }
    }

    /**
     * One format for every tick label of every chart: up to three significant decimals, with an SI
     * suffix from a thousand on (500, 1k, 2.5k, 10k, 1M, 1.5G) and plain decimals below (0.5,
     * 0.01); only values below 0.001 are written in scientific notation (1e-4), which no axis of
     * ours mixes with suffixed ones. Short labels, and the same spelling on every axis.
     */
    static final class CompactNumberFormat extends java.text.NumberFormat {
        private static final long serialVersionUID = 1L;
        private static final DecimalFormatSymbols ROOT = DecimalFormatSymbols.getInstance(Locale.ROOT);
        private static final String[] SUFFIXES = {"", "k", "M", "G", "T", "P", "E"};
        private final DecimalFormat mantissa = new DecimalFormat("0.##", ROOT);
        private final DecimalFormat small = new DecimalFormat("0.###", ROOT);
        private final DecimalFormat scientific = new DecimalFormat("0.##E0", ROOT);

        @Override
        public StringBuffer format(double number, StringBuffer to, java.text.FieldPosition pos) {
            double abs = Math.abs(number);
            if (abs > 0 && abs < 1e-3) {
                return to.append(scientific.format(number).replace('E', 'e'));
            }
            if (abs < 1000 || !Double.isFinite(number)) {
                return small.format(number, to, pos);
            }
            int group = Math.min((int) Math.floor(Math.log10(abs) / 3 + 1e-12), SUFFIXES.length - 1);
            double scaled = number / Math.pow(1000, group);
            if (Math.abs(Double.parseDouble(mantissa.format(scaled))) >= 1000 && group + 1 < SUFFIXES.length) {
                group++; // 999,999 rounds to 1000k: write 1M
                scaled = number / Math.pow(1000, group);
            }
            return mantissa.format(scaled, to, pos).append(SUFFIXES[group]);
        }

        @Override
        public StringBuffer format(long number, StringBuffer to, java.text.FieldPosition pos) {
            return format((double) number, to, pos);
        }

        @Override
        public Number parse(String source, java.text.ParsePosition pos) {
            return small.parse(source, pos);
        }
    }
}
