package io.ata.ml.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CsvFilesTest {
    @TempDir
    Path dir;

    private Path write(String name, String content) throws IOException {
        Path file = dir.resolve(name);
        Files.writeString(file, content);
        return file;
    }

    private static float[] features(Dataset data, int index) {
        float[] f = new float[data.featureCount()];
        data.copyFeatures(index, f, 0);
        return f;
    }

    @Test
    void floatFeaturesAreReadAsTheyAre() throws IOException {
        Path file = write("a.csv", "1, 0.5, -2.25, 3\n0,1,2,3.5\n\n2,0,0,0\n");
        InMemoryDataset data = CsvFiles.load("a", file);
        assertEquals(3, data.size());
        assertEquals(List.of(3), data.featureShape());
        assertEquals(3, data.classes());
        assertEquals(1, data.label(0));
        assertArrayEquals(new float[] {0.5f, -2.25f, 3f}, features(data, 0));
        assertArrayEquals(new float[] {1f, 2f, 3.5f}, features(data, 1));
    }

    @Test
    void aHeaderIsSkippedAndPixelsAreScaled() throws IOException {
        Path file = write("p.csv", "label,pixel1,pixel2\n3,0,255\n1,51,102\n");
        InMemoryDataset data = CsvFiles.load("p", file);
        assertEquals(2, data.size());
        assertEquals(4, data.classes());
        assertArrayEquals(new float[] {0f, 1f}, features(data, 0));
        assertArrayEquals(new float[] {51 / 255f, 102 / 255f}, features(data, 1));
    }

    @Test
    void zeroOneDataIsNotScaled() throws IOException {
        InMemoryDataset data = CsvFiles.load("b", write("b.csv", "0,0,1\n1,1,0\n"));
        assertArrayEquals(new float[] {0f, 1f}, features(data, 0));
    }

    @Test
    void aShortRowIsNamedWithItsLine() throws IOException {
        Path file = write("s.csv", "label,x,y\n0,1,2\n1,2\n");
        DatasetException e = assertThrows(DatasetException.class, () -> CsvFiles.load("s", file));
        assertEquals(file + " line 3: 2 columns, expected 3 (label + 2 features)", e.getMessage());
    }

    @Test
    void badLabelsAndFeaturesAreNamed() throws IOException {
        Path labels = write("l.csv", "0,1\n\n-1,2"); // an empty line, no newline at the end
        assertEquals(
                labels + " line 3: label '-1' is not a class number (0, 1, ...)",
                assertThrows(DatasetException.class, () -> CsvFiles.load("l", labels))
                        .getMessage());
        Path features = write("f.csv", "0,1,abc\n");
        assertEquals(
                features + " line 1 column 3: 'abc' is not a finite number",
                assertThrows(DatasetException.class, () -> CsvFiles.load("f", features))
                        .getMessage());
        Path empty = write("e.csv", "label,x\n");
        assertEquals(
                empty + ": no data rows",
                assertThrows(DatasetException.class, () -> CsvFiles.load("e", empty))
                        .getMessage());
    }
}
