package io.ata.ml.data;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.IntStream;

/**
 * Turns the command line's {@code --data} value into a train/test split. Nothing is ever
 * downloaded.
 *
 * <ul>
 *   <li>{@code fashion-mnist}: the four IDX files of Fashion-MNIST ({@code train-images-idx3-ubyte},
 *       {@code train-labels-idx1-ubyte}, {@code t10k-images-idx3-ubyte}, {@code
 *       t10k-labels-idx1-ubyte}, each plain or {@code .gz}) from the first of these directories
 *       that has them: {@code /usr/share/datasets/fashion-mnist} (Debian package {@code
 *       dataset-fashion-mnist}), {@code $ATA_DATA_DIR/fashion-mnist}, {@code
 *       ~/.ata/datasets/fashion-mnist}.
 *   <li>{@code synthetic} or {@code synthetic:SEED}: {@link SyntheticDataset#split(long)} (seed 0
 *       by default).
 *   <li>{@code DIR}: a directory holding those four IDX files (MNIST works too).
 *   <li>{@code FILE.csv}: see {@link CsvFiles}. The test set is the file named like it with {@code
 *       train} replaced by {@code test} (e.g. {@code fashion-mnist_train.csv} and {@code
 *       fashion-mnist_test.csv}) when there is one; otherwise every tenth row (rows 10, 20, ...) is
 *       held out for testing and the others are the training set.
 * </ul>
 *
 * Both splits get the larger of their two class counts. Errors are {@link DatasetException}s of one
 * line that say what was tried and what to do.
 */
public final class DatasetResolver {
    public static final String FASHION_MNIST = "fashion-mnist";
    public static final String SYNTHETIC = "synthetic";

    private static final IdxSplit TRAIN = new IdxSplit("train", "train");
    private static final IdxSplit TEST = new IdxSplit("test", "t10k");

    /**
     * One split's two IDX files, named as Fashion-MNIST names them: {@code PREFIX-images-idx3-ubyte}
     * and {@code PREFIX-labels-idx1-ubyte}.
     */
    private record IdxSplit(String split, String prefix) {
        List<String> fileNames() {
            return List.of(prefix + "-images-idx3-ubyte", prefix + "-labels-idx1-ubyte");
        }

        InMemoryDataset load(String name, Path dir) {
            List<String> files = fileNames();
            return IdxFiles.load(name + "/" + split, idxFile(dir, files.get(0)), idxFile(dir, files.get(1)));
        }
    }

    /** A directory where Fashion-MNIST may be, and how to name it in a message. */
    public record Place(String description, Path directory) {}

    private final List<Place> fashionMnistPlaces;

    public DatasetResolver(List<Place> fashionMnistPlaces) {
        this.fashionMnistPlaces = List.copyOf(fashionMnistPlaces);
    }

    /** The standard places, from the environment ({@code ATA_DATA_DIR}) and the home directory. */
    public static DatasetResolver standard() {
        List<Place> places = new ArrayList<>();
        places.add(new Place("/usr/share/datasets/fashion-mnist", Path.of("/usr/share/datasets/fashion-mnist")));
        String dataDir = System.getenv("ATA_DATA_DIR");
        places.add(
                dataDir == null || dataDir.isBlank()
                        ? new Place("$ATA_DATA_DIR/fashion-mnist (ATA_DATA_DIR not set)", null)
                        : new Place(
                                "$ATA_DATA_DIR/fashion-mnist = " + Path.of(dataDir, FASHION_MNIST),
                                Path.of(dataDir, FASHION_MNIST)));
        Path home = Path.of(System.getProperty("user.home"), ".ata", "datasets", FASHION_MNIST);
        places.add(new Place(home.toString(), home));
        return new DatasetResolver(places);
    }

    /** Resolves a {@code --data} value (see the class comment). */
    public DataSplit resolve(String value) {
        String data = value == null ? "" : value.trim();
        if (data.isEmpty()) {
            throw new DatasetException("--data is empty; " + choices());
        }
        if (data.equalsIgnoreCase(FASHION_MNIST)) {
            return fashionMnist();
        }
        if (data.equalsIgnoreCase(SYNTHETIC) || data.toLowerCase(Locale.ROOT).startsWith(SYNTHETIC + ":")) {
            return SyntheticDataset.split(syntheticSeed(data));
        }
        Path path = Path.of(data);
        if (Files.isDirectory(path)) {
            List<String> missing = missingIdxFiles(path);
            if (!missing.isEmpty()) {
                throw new DatasetException("--data " + data + ": the directory lacks " + String.join(", ", missing)
                        + " (plain or .gz); " + choices());
            }
            return idx(path.getFileName() == null ? data : path.getFileName().toString(), path);
        }
        if (Files.isRegularFile(path) && data.toLowerCase(Locale.ROOT).endsWith(".csv")) {
            return csv(path);
        }
        throw new DatasetException("--data " + data + ": "
                + (Files.exists(path) ? "not a directory or a .csv file" : "no such file or directory") + "; "
                + choices());
    }

    private static String choices() {
        return "expected fashion-mnist, synthetic[:SEED], a directory of IDX files or a .csv file";
    }

    private static long syntheticSeed(String data) {
        if (data.length() == SYNTHETIC.length()) {
            return 0;
        }
        String seed = data.substring(SYNTHETIC.length() + 1);
        try {
            return Long.parseLong(seed);
        } catch (NumberFormatException e) {
            throw new DatasetException("--data " + data + ": the seed '" + seed + "' is not a whole number");
        }
    }

    private DataSplit fashionMnist() {
        List<String> looked = new ArrayList<>();
        for (Place place : fashionMnistPlaces) {
            if (place.directory() == null) {
                looked.add(place.description());
                continue;
            }
            if (!Files.isDirectory(place.directory())) {
                looked.add(place.description());
                continue;
            }
            List<String> missing = missingIdxFiles(place.directory());
            if (missing.isEmpty()) {
                return idx(FASHION_MNIST, place.directory());
            }
            looked.add(place.description() + " (lacks " + String.join(", ", missing) + ")");
        }
        throw new DatasetException("Fashion-MNIST not found; looked in " + String.join(", ", looked)
                + ". Install the Debian package dataset-fashion-mnist, put its four IDX files in one of those"
                + " directories, pass --data DIR, or use --data synthetic");
    }

    private static List<String> missingIdxFiles(Path dir) {
        List<String> missing = new ArrayList<>();
        for (IdxSplit split : List.of(TRAIN, TEST)) {
            for (String name : split.fileNames()) {
                if (idxFile(dir, name) == null) {
                    missing.add(name);
                }
            }
        }
        return missing;
    }

    /** {@code dir/name} if it exists, else {@code dir/name.gz} if that does, else null. */
    private static Path idxFile(Path dir, String name) {
        for (Path candidate : List.of(dir.resolve(name), dir.resolve(name + ".gz"))) {
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    private static DataSplit idx(String name, Path dir) {
        return sameClasses(TRAIN.load(name, dir), TEST.load(name, dir));
    }

    private static DataSplit csv(Path file) {
        String fileName = file.getFileName().toString();
        String base = fileName.substring(0, fileName.length() - ".csv".length());
        if (fileName.contains("train")) {
            Path testFile = file.resolveSibling(fileName.replace("train", "test"));
            if (Files.isRegularFile(testFile)) {
                return sameClasses(
                        CsvFiles.load(base, file),
                        CsvFiles.load(testFile.getFileName().toString(), testFile));
            }
        }
        InMemoryDataset all = CsvFiles.load(base, file);
        int[] test = IntStream.range(0, all.size()).filter(i -> i % 10 == 9).toArray();
        int[] train = IntStream.range(0, all.size()).filter(i -> i % 10 != 9).toArray();
        if (test.length == 0) {
            throw new DatasetException(file + ": " + all.size()
                    + " rows are too few to hold out every tenth for testing (at least 10 needed)");
        }
        return new DataSplit(all.subset(base + "/train", train), all.subset(base + "/test", test));
    }

    private static DataSplit sameClasses(InMemoryDataset train, InMemoryDataset test) {
        int classes = Math.max(train.classes(), test.classes());
        return new DataSplit(train.withClasses(classes), test.withClasses(classes));
    }
}
