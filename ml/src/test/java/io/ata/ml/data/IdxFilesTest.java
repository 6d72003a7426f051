package io.ata.ml.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IdxFilesTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void readsPlainAndGzippedFiles(boolean gzip) throws IOException {
        Path images = dir.resolve("images");
        Path labels = dir.resolve("labels");
        IdxWriter.write(images, labels, 5, 3, 4, 3, gzip);

        InMemoryDataset data = IdxFiles.load("tiny", images, labels);

        assertEquals(5, data.size());
        assertEquals(List.of(1, 3, 4), data.featureShape());
        assertEquals(12, data.featureCount());
        assertEquals(3, data.classes()); // labels 0, 1, 2, 0, 1
        assertEquals(2, data.label(2));
        float[] features = new float[14];
        data.copyFeatures(4, features, 2);
        for (int p = 0; p < 12; p++) {
            assertEquals(((4 * 7 + p) % 256) / 255f, features[2 + p], "pixel " + p);
        }
        assertEquals(0f, features[0]);
    }

    @Test
    void pixelsAreScaledToZeroOne() throws IOException {
        Path images = dir.resolve("images");
        Path labels = dir.resolve("labels");
        IdxWriter.write(images, labels, 40, 2, 4, 10, false); // values reach 255
        InMemoryDataset data = IdxFiles.load("tiny", images, labels);
        float[] all = new float[8];
        float max = 0;
        for (int i = 0; i < data.size(); i++) {
            data.copyFeatures(i, all, 0);
            for (float v : all) {
                max = Math.max(max, v);
            }
        }
        assertEquals(1f, max);
    }

    @Test
    void swappedFilesAreNamed() throws IOException {
        Path images = dir.resolve("images");
        Path labels = dir.resolve("labels");
        IdxWriter.write(images, labels, 2, 2, 2, 2, true);
        DatasetException e = assertThrows(DatasetException.class, () -> IdxFiles.load("x", labels, images));
        assertEquals(
                images + ": not an IDX labels file (magic number 2051, expected 2049; this is an images file)",
                e.getMessage());
    }

    @Test
    void differentCountsAreAnError() throws IOException {
        IdxWriter.write(dir.resolve("i5"), dir.resolve("l5"), 5, 2, 2, 2, false);
        IdxWriter.write(dir.resolve("i4"), dir.resolve("l4"), 4, 2, 2, 2, false);
        DatasetException e =
                assertThrows(DatasetException.class, () -> IdxFiles.load("x", dir.resolve("i5"), dir.resolve("l4")));
        assertEquals(dir.resolve("i5") + " has 5 images but " + dir.resolve("l4") + " has 4 labels", e.getMessage());
    }

    @Test
    void truncatedAndMissingFilesAreNamed() throws IOException {
        Path images = dir.resolve("images");
        Path labels = dir.resolve("labels");
        IdxWriter.write(images, labels, 3, 2, 2, 2, false);
        byte[] bytes = Files.readAllBytes(images);
        Files.write(images, Arrays.copyOf(bytes, bytes.length - 1));
        assertEquals(
                images + ": truncated: the header announces 12 pixels, found 11",
                assertThrows(DatasetException.class, () -> IdxFiles.load("x", images, labels))
                        .getMessage());
        Path none = dir.resolve("none");
        assertEquals(
                none + ": no such file",
                assertThrows(DatasetException.class, () -> IdxFiles.load("x", images, none))
                        .getMessage());
    }

    @Test
    void notIdxAtAllIsNamed() throws IOException {
        Path images = dir.resolve("images");
        Path labels = dir.resolve("labels");
        IdxWriter.write(images, labels, 3, 2, 2, 2, false);
        Path text = dir.resolve("readme.txt");
        try (DataOutputStream out = new DataOutputStream(Files.newOutputStream(text))) {
            out.writeBytes("hello, world");
        }
        DatasetException e = assertThrows(DatasetException.class, () -> IdxFiles.load("x", text, labels));
        assertEquals(
                text + ": not an IDX images file (magic number " + 0x68656c6c + ", expected 2051)", e.getMessage());
    }
}
