package io.ata.lab.report;

import io.ata.lab.timinglog.TimingRecord;
import java.awt.Color;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
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
 *   <li>{@code rounds.png}: round time over rounds (a rolling median, as single rounds are noisy:
 *       one slow task or a busy moment of the machine makes a spike) and the worker time spent by
 *       each round (cumulative), one line per policy;</li>
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
    /** The rolling median's window: this share of the run's rounds (15 of 150), at least one. */
    private static final int MEDIAN_WINDOWS = 10;

    private RoundCharts() {}

    /** Writes {@code rounds.png}; {@code header} is the line above both panels (the run's setting). */
    public static void writeRounds(Path file, List<LiveRounds> jobs, String header) {
        ChartFiles.grid(roundsPanels(jobs), 2, header, file, WIDTH, HEIGHT);
    }

    /** The two panels of {@code rounds.png}: the round time's rolling median, the worker time spent. */
    static List<JFreeChart> roundsPanels(List<LiveRounds> jobs) {
        PolicyColors colors =
                new PolicyColors(jobs.stream().map(LiveRounds::policy).toList());
        int window = medianWindow(jobs);
        List<LineChart.Curve> roundTimes = new ArrayList<>();
        List<LineChart.Curve> workerTimes = new ArrayList<>();
        for (LiveRounds job : jobs) {
            roundTimes.add(rollingMedian(job.policy(), job.roundTimesMs(), window));
            workerTimes.add(cumulativeWorkerSeconds(job));
        }
        LineChart.Axis round = new LineChart.Axis("round", false);
        JFreeChart roundTime = LineChart.create(
                "Round time",
                round,
                new LineChart.Axis(
                        window == 1 ? "round time (ms)" : "round time (ms), median of the last " + window + " rounds",
                        false),
                roundTimes,
                colors);
        // from zero, so that the policies' round times compare as ratios at a glance
        ((NumberAxis) roundTime.getXYPlot().getRangeAxis()).setAutoRangeIncludesZero(true);
        ((NumberAxis) roundTime.getXYPlot().getDomainAxis()).setAutoRangeIncludesZero(true);
        return List.of(
                roundTime,
                LineChart.create(
                        "Worker time spent",
                        round,
                        new LineChart.Axis("worker time: compute time of every task run, cumulative (s)", false),
                        workerTimes,
                        colors));
    }

    /** The rolling median's window for these jobs: a tenth of the longest one's rounds. */
    static int medianWindow(List<LiveRounds> jobs) {
        return Math.max(1, jobs.stream().mapToInt(LiveRounds::rounds).max().orElse(0) / MEDIAN_WINDOWS);
    }

    /**
     * The median of the last {@code window} rounds at every round from {@code window} on: a round
     * that one slow task or a busy moment stretched moves it little, a lasting change shows.
     */
    static LineChart.Curve rollingMedian(String policy, double[] values, int window) {
        int points = Math.max(0, values.length - window + 1);
        double[] x = new double[points];
        double[] y = new double[points];
        for (int p = 0; p < points; p++) {
            double[] last = Arrays.copyOfRange(values, p, p + window);
            Arrays.sort(last);
            x[p] = p + window;
            y[p] = window % 2 == 1 ? last[window / 2] : 0.5 * (last[window / 2 - 1] + last[window / 2]);
        }
        return new LineChart.Curve(policy, x, y);
    }

    /** Writes {@code allocation.png}: one workers x rounds picture per policy, stacked. */
    public static void writeAllocation(Path file, List<LiveRounds> jobs, String header) {
        ChartFiles.grid(
                allocationPanels(jobs), 1, header, file, WIDTH, Math.max(1, jobs.size()) * ALLOCATION_ROW_HEIGHT);
    }

    /** One workers x rounds panel per job, on one colour scale: the most tasks any cell holds. */
    static List<JFreeChart> allocationPanels(List<LiveRounds> jobs) {
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
        int rounds = jobs.stream().mapToInt(LiveRounds::rounds).max().orElse(0);
        List<JFreeChart> panels = new ArrayList<>();
        for (int i = 0; i < jobs.size(); i++) {
            panels.add(allocationPanel(jobs.get(i).policy(), counts.get(i), workers, rounds, most));
        }
        return panels;
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

    /** A job's picture; its round axis runs from the first to the {@code rounds}-th round's cell. */
    private static JFreeChart allocationPanel(
            String policy, double[][] xyz, List<String> workers, int rounds, int most) {
        DefaultXYZDataset data = new DefaultXYZDataset();
        data.addSeries(policy, xyz);
        String[] rows = new String[workers.size()];
        for (int i = 0; i < workers.size(); i++) {
            rows[workers.size() - 1 - i] = workers.get(i);
        }
        NumberAxis roundAxis = new NumberAxis("round");
        roundAxis.setNumberFormatOverride(new ChartStyle.CompactNumberFormat());
        roundAxis.setLabelFont(ChartStyle.LABEL);
        roundAxis.setTickLabelFont(ChartStyle.TICK);
        roundAxis.setRange(0.5, Math.max(1, rounds) + 0.5); // each cell is centred on its round
        SymbolAxis rowAxis = new SymbolAxis("worker", rows);
        rowAxis.setTickLabelFont(ChartStyle.TICK);
        rowAxis.setLabelFont(ChartStyle.LABEL);
        rowAxis.setGridBandsVisible(false);
        XYBlockRenderer renderer = new XYBlockRenderer();
        LookupPaintScale scale = tasksScale(most);
        renderer.setPaintScale(scale);
        XYPlot plot = new XYPlot(data, roundAxis, rowAxis, renderer);
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

    /** The colour of a single task, and of the most tasks in a cell. */
    static final Color ONE_TASK = new Color(120, 175, 220);

    static final Color MOST_TASKS = new Color(8, 48, 107);

    /**
     * White for no task, then from a mid blue for one task, which stands out against white on any
     * screen or print, to a dark blue for {@code most}, in steps of the task count's logarithm: the
     * counts a learning policy gives (1 to 3) differ more than GTA's 8 and 9 do.
     */
    static LookupPaintScale tasksScale(int most) {
        LookupPaintScale scale = new LookupPaintScale(0, most + 1, Color.WHITE);
        scale.add(0, Color.WHITE);
        for (int n = 1; n <= most; n++) {
            double t = most == 1 ? 0.5 : Math.log(n) / Math.log(most);
            scale.add(n, blend(ONE_TASK, MOST_TASKS, t));
        }
        return scale;
    }

    private static Color blend(Color from, Color to, double t) {
        return new Color(
                (int) Math.round(from.getRed() + t * (to.getRed() - from.getRed())),
                (int) Math.round(from.getGreen() + t * (to.getGreen() - from.getGreen())),
                (int) Math.round(from.getBlue() + t * (to.getBlue() - from.getBlue())));
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
