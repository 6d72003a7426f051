package io.ata.ml.data;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.RuntimeJsonMappingException;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Reads a classification data set from CSV: one sample per row, the class label (0, 1, ...)
 * first, then the features; all rows the same width. A header row is optional: a first row whose
 * first cell is not a whole number is taken as one and skipped. Empty lines are skipped, cells are
 * trimmed. Samples have shape {@code [features]}; the number of classes is one more than the
 * largest label.
 *
 * <p>Scaling: when every feature is a whole number in [0, 255] and some exceed 1 (8-bit pixels, as
 * in the CSV exports of MNIST), the features are divided by 255 into [0, 1] and kept as bytes;
 * otherwise they are used as they are.
 */
public final class CsvFiles {
    private static final CsvMapper MAPPER = CsvMapper.builder()
            .enable(CsvParser.Feature.WRAP_AS_ARRAY)
            .enable(CsvParser.Feature.SKIP_EMPTY_LINES)
            .enable(CsvParser.Feature.TRIM_SPACES)
            .build();

    private CsvFiles() {}

    /**
     * Loads all rows of {@code file}.
     *
     * @throws DatasetException naming the file and line of the first bad row
     */
    public static InMemoryDataset load(String name, Path file) {
        int featureCount = -1;
        float[] features = new float[1 << 16];
        int[] labels = new int[1 << 10];
        int rows = 0;
        boolean pixels = true;
        float max = 0;
        try (MappingIterator<String[]> it = MAPPER.readerFor(String[].class).readValues(file.toFile())) {
            boolean first = true;
            while (it.hasNext()) {
                String[] row = it.next();
                long line = lineOfRowJustRead(it);
                if (first) {
                    first = false;
                    if (row.length > 0 && !isWholeNumber(row[0])) {
                        continue; // header
                    }
                }
                if (featureCount < 0) {
                    featureCount = row.length - 1;
                    if (featureCount < 1) {
                        throw new DatasetException(file + " line " + line + ": a row needs a label and features");
                    }
                }
                if (row.length != featureCount + 1) {
                    throw new DatasetException(file + " line " + line + ": " + row.length + " columns, expected "
                            + (featureCount + 1) + " (label + " + featureCount + " features)");
                }
                if (rows == labels.length) {
                    labels = Arrays.copyOf(labels, labels.length * 2);
                }
                labels[rows] = parseLabel(row[0], file, line);
                long needed = (long) (rows + 1) * featureCount;
                if (needed > features.length) {
                    features = Arrays.copyOf(features, grow(features.length, needed));
                }
                int base = rows * featureCount;
                for (int j = 0; j < featureCount; j++) {
                    float value = parseFeature(row[j + 1], file, line, j + 1);
                    features[base + j] = value;
                    pixels &= value >= 0 && value <= 255 && value == Math.rint(value);
                    max = Math.max(max, value);
                }
                rows++;
            }
        } catch (RuntimeJsonMappingException e) {
            throw new DatasetException(file + ": not valid CSV: " + e.getMessage(), e);
        } catch (IOException e) {
            throw IdxFiles.cannotRead(file, e);
        }
        if (rows == 0) {
            throw new DatasetException(file + ": no data rows");
        }
        int[] labelValues = Arrays.copyOf(labels, rows);
        List<Integer> shape = List.of(featureCount);
        int classes = InMemoryDataset.classesOf(labelValues);
        int values = rows * featureCount;
        if (pixels && max > 1) {
            byte[] bytes = new byte[values];
            for (int i = 0; i < values; i++) {
                bytes[i] = (byte) (int) features[i];
            }
            return InMemoryDataset.ofPixels(name, shape, classes, bytes, labelValues);
        }
        return InMemoryDataset.ofFloats(name, shape, classes, Arrays.copyOf(features, values), labelValues);
    }

    /** After a row, the parser stands at the start of the next line, or at the end of the last. */
    private static long lineOfRowJustRead(MappingIterator<String[]> it) {
        JsonLocation after = it.getCurrentLocation();
        return after.getColumnNr() <= 1 ? after.getLineNr() - 1 : after.getLineNr();
    }

    private static int grow(int length, long needed) {
        long size = Math.max(needed, (long) length * 2);
        if (size > Integer.MAX_VALUE - 8) {
            if (needed > Integer.MAX_VALUE - 8) {
                throw new DatasetException("too many CSV values to hold in memory: " + needed);
            }
            size = Integer.MAX_VALUE - 8;
        }
        return (int) size;
    }

    private static boolean isWholeNumber(String cell) {
        try {
            Integer.parseInt(cell);
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static int parseLabel(String cell, Path file, long line) {
        try {
            int label = Integer.parseInt(cell);
            if (label >= 0) {
                return label;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw new DatasetException(file + " line " + line + ": label '" + cell + "' is not a class number (0, 1, ...)");
    }

    private static float parseFeature(String cell, Path file, long line, int column) {
        try {
            float value = Float.parseFloat(cell);
            if (Float.isFinite(value)) {
                return value;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw new DatasetException(
                file + " line " + line + " column " + (column + 1) + ": '" + cell + "' is not a finite number");
    }
}
