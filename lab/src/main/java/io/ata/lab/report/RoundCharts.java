package io.ata.lab.report;

import io.ata.lab.timinglog.TimingRecord;
import java.awt.Color;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.SymbolAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.LookupPaintScale;
import org.jfree.chart.renderer.xy.XYBlockRenderer;
import org.jfree.chart.title.PaintScaleLegend;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.data.xy.DefaultXYZDataset;

/**
 * The live demo's round charts, one policy beside the other on the same fleet:
 * <ul>
 *   <li>{@code rounds.png}: round time over rounds (a moving mean, as single rounds are noisy) and
 *       the worker time spent by each round (cumulative), one line per policy;</li>
 *   <li>{@code allocation.png}: for each policy, how many tasks each worker ran in each round, a
 *       workers x rounds picture (workers from fastest to slowest of the time model, top down):
 *       ATA learning to load the fast workers, UTA's even spread and GTA's everyone-always.</li>
 * </ul>
 */
public final class RoundCharts {
    public static final String ROUNDS_FILE = "rounds.png";
    public static final String ALLOCATION_FILE = "allocation.png";
    private static final int WIDTH = 1400;
    private static final int HEIGHT = 560;
    private static final int ALLOCATION_ROW_HEIGHT = 300;
    /** Points of the moving mean: about this many windows over the run. */
    private static final int WINDOWS = 60;

    private RoundCharts() {}

    /** Writes {@code rounds.png}; {@code header} is the line above both panels (the run's setting). */
    public static void writeRounds(Path file, List<LiveRounds> jobs, String header) {
        PolicyColors colors =
                new PolicyColors(jobs.stream().map(LiveRounds::policy).toList());
        int window =
                Math.max(1, jobs.stream().mapToInt(LiveRounds::rounds).max().orElse(0) / WINDOWS);
        List<LineChart.Curve> roundTimes = new ArrayList<>();
        List<LineChart.Curve> workerTimes = new ArrayList<>();
        for (LiveRounds job : jobs) {
            roundTimes.add(movingMean(job.policy(), job.roundTimesMs(), window));
            workerTimes.add(cumulativeWorkerSeconds(job));
        }
        LineChart.Axis round = new LineChart.Axis("round", false);
        List<JFreeChart> panels = List.of(
                LineChart.create(
                        "Round time",
                        round,
                        new LineChart.Axis(
                                window == 1 ? "round time (ms)" : "round time (ms, mean of " + window + " rounds)",
                                false),
                        roundTimes,
                        colors),
                LineChart.create(
                        "Worker time spent",
                        round,
                        new LineChart.Axis("worker time: compute time of every task run, cumulative (s)", false),
                        workerTimes,
                        colors));
        ChartFiles.grid(panels, 2, header, file, WIDTH, HEIGHT);
    }

    /** Writes {@code allocation.png}: one workers x rounds picture per policy, stacked. */
    public static void writeAllocation(Path file, List<LiveRounds> jobs, String header) {
        List<String> workers = workersInOrder(jobs);
        int most = 1;
        List<double[][]> counts = new ArrayList<>();
        for (LiveRounds job : jobs) {
            double[][] c = tasksPerWorkerAndRound(job, workers);
            counts.add(c);
            for (double n : c[2]) {
                most = Math.max(most, (int) n);
            }
        }
        List<JFreeChart> panels = new ArrayList<>();
        for (int i = 0; i < jobs.size(); i++) {
            panels.add(allocationPanel(jobs.get(i).policy(), counts.get(i), workers, most));
        }
        ChartFiles.grid(panels, 1, header, file, WIDTH, Math.max(1, jobs.size()) * ALLOCATION_ROW_HEIGHT);
    }

    /** The mean of each run of {@code window} rounds, plotted at the window's last round. */
    static LineChart.Curve movingMean(String policy, double[] values, int window) {
        int points = values.length / window;
        double[] x = new double[points];
        double[] y = new double[points];
        for (int p = 0; p < points; p++) {
            double sum = 0;
            for (int k = p * window; k < (p + 1) * window; k++) {
                sum += values[k];
            }
            x[p] = (p + 1) * window;
            y[p] = sum / window;
        }
        return new LineChart.Curve(policy, x, y);
    }

    /** Worker time (s) spent on rounds 1..k, at each round k: every task run, cancelled ones too. */
    static LineChart.Curve cumulativeWorkerSeconds(LiveRounds job) {
        double[] perRound = new double[job.rounds() + 1];
        for (TimingRecord r : job.timings()) {
            if (r.round() != null && r.round() >= 1 && r.round() <= job.rounds()) {
                perRound[r.round().intValue()] += r.duration();
            }
        }
        double[] x = new double[job.rounds()];
        double[] y = new double[job.rounds()];
        double total = 0;
        for (int k = 1; k <= job.rounds(); k++) {
            total += perRound[k];
            x[k - 1] = k;
            y[k - 1] = total / 1e3;
        }
        return new LineChart.Curve(job.policy(), x, y);
    }

    /**
     * Every worker that ran a task in any job, in natural order of their names (agent-2 before
     * agent-10): the demo numbers its agents from the time model's fastest to its slowest.
     */
    static List<String> workersInOrder(List<LiveRounds> jobs) {
        TreeSet<String> names = new TreeSet<>(RoundCharts::naturalOrder);
        jobs.forEach(j -> j.timings().forEach(r -> names.add(r.worker())));
        return List.copyOf(names);
    }

    /** {x = round, y = worker row, z = tasks run} for every (round, worker) of the job, zeros included. */
    static double[][] tasksPerWorkerAndRound(LiveRounds job, List<String> workers) {
        int rounds = job.rounds();
        double[][] grid = new double[workers.size()][rounds + 1];
        for (TimingRecord r : job.timings()) {
            int row = workers.indexOf(r.worker());
            if (row >= 0 && r.round() != null && r.round() >= 1 && r.round() <= rounds) {
                grid[row][r.round().intValue()]++;
            }
        }
        int cells = workers.size() * rounds;
        double[][] xyz = new double[3][cells];
        int i = 0;
        for (int row = 0; row < workers.size(); row++) {
            for (int k = 1; k <= rounds; k++) {
                xyz[0][i] = k;
                xyz[1][i] = workers.size() - 1 - row; // the first worker on top
                xyz[2][i] = grid[row][k];
                i++;
            }
        }
        return xyz;
    }

    private static JFreeChart allocationPanel(String policy, double[][] xyz, List<String> workers, int most) {
        DefaultXYZDataset data = new DefaultXYZDataset();
        data.addSeries(policy, xyz);
        String[] rows = new String[workers.size()];
        for (int i = 0; i < workers.size(); i++) {
            rows[workers.size() - 1 - i] = workers.get(i);
        }
        NumberAxis rounds = new NumberAxis("round");
        rounds.setNumberFormatOverride(new ChartStyle.CompactNumberFormat());
        rounds.setLabelFont(ChartStyle.LABEL);
        rounds.setTickLabelFont(ChartStyle.TICK);
        SymbolAxis rowAxis = new SymbolAxis("worker", rows);
        rowAxis.setTickLabelFont(ChartStyle.TICK);
        rowAxis.setLabelFont(ChartStyle.LABEL);
        rowAxis.setGridBandsVisible(false);
        XYBlockRenderer renderer = new XYBlockRenderer();
        LookupPaintScale scale = tasksScale(most);
        renderer.setPaintScale(scale);
        XYPlot plot = new XYPlot(data, rounds, rowAxis, renderer);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinesVisible(false);
        plot.setRangeGridlinesVisible(false);
        JFreeChart chart = new JFreeChart(policy + ": tasks per worker and round", ChartStyle.TITLE, plot, false);
        chart.setBackgroundPaint(Color.WHITE);
        NumberAxis legendAxis = new NumberAxis("tasks");
        legendAxis.setRange(0, most + 1);
        legendAxis.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
        legendAxis.setTickLabelFont(ChartStyle.TICK);
        PaintScaleLegend legend = new PaintScaleLegend(scale, legendAxis);
        legend.setPosition(RectangleEdge.RIGHT);
        legend.setMargin(4, 8, 4, 4);
        chart.addSubtitle(legend);
        return chart;
    }

    /** White for no task, then darker blue for each task more, up to {@code most}. */
    private static LookupPaintScale tasksScale(int most) {
        LookupPaintScale scale = new LookupPaintScale(0, most + 1, Color.WHITE);
        scale.add(0, Color.WHITE);
        for (int n = 1; n <= most; n++) {
            float shade = most == 1 ? 1f : 0.25f + 0.75f * (n - 1) / (most - 1);
            scale.add(n, new Color(1 - shade * 0.88f, 1 - shade * 0.55f, 1 - shade * 0.1f));
        }
        return scale;
    }

    /** Names compared with their digit runs as numbers: agent-2 before agent-10. */
    static int naturalOrder(String a, String b) {
        String[] pa = a.split("(?<=\\D)(?=\\d)|(?<=\\d)(?=\\D)");
        String[] pb = b.split("(?<=\\D)(?=\\d)|(?<=\\d)(?=\\D)");
        for (int i = 0; i < Math.min(pa.length, pb.length); i++) {
            int c = pa[i].chars().allMatch(Character::isDigit) && pb[i].chars().allMatch(Character::isDigit)
                    ? new java.math.BigInteger(pa[i]).compareTo(new java.math.BigInteger(pb[i]))
                    : pa[i].compareTo(pb[i]);
            if (c != 0) {
                return c;
            }
        }
        return pa.length != pb.length ? Integer.compare(pa.length, pb.length) : a.compareTo(b);
    }
}
