package io.ata.lab.report;

import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;

/** Saves charts as PNG files: one chart alone, or several in a grid under a common header. */
public final class ChartFiles {
    private static final int HEADER_HEIGHT = 34;

    private ChartFiles() {}

    public static void png(JFreeChart chart, Path file, int width, int height) {
        try {
            ChartUtils.saveChartAsPNG(file.toFile(), chart, width, height);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Draws {@code charts} row by row into a {@code columns}-wide grid of a {@code width} x
     * {@code height} image, below a one-line {@code header}.
     */
    public static void grid(List<JFreeChart> charts, int columns, String header, Path file, int width, int height) {
        int rows = (charts.size() + columns - 1) / columns;
        double cellWidth = (double) width / columns;
        double cellHeight = (double) (height - HEADER_HEIGHT) / rows;
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, width, height);
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
            FontMetrics fm = g.getFontMetrics();
            g.drawString(
                    header, Math.max(8, (width - fm.stringWidth(header)) / 2), (HEADER_HEIGHT + fm.getAscent()) / 2);
            for (int i = 0; i < charts.size(); i++) {
                Rectangle2D cell = new Rectangle2D.Double(
                        (i % columns) * cellWidth, HEADER_HEIGHT + (i / columns) * cellHeight, cellWidth, cellHeight);
                charts.get(i).draw(g, cell);
            }
        } finally {
            g.dispose();
        }
        try {
            ImageIO.write(image, "png", file.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }
}
