package io.ata.ml.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DatasetResolverTest {
    @TempDir
    Path dir;

    private static void writeIdxSplit(Path dir, boolean gzip) throws IOException {
        Files.createDirectories(dir);
        String gz = gzip ? ".gz" : "";
        IdxWriter.write(
                dir.resolve("train-images-idx3-ubyte" + gz),
                dir.resolve("train-labels-idx1-ubyte" + gz),
                30,
                4,
                4,
                10,
                gzip);
        // the test split has no sample of class 9: both splits still get 10 classes
        IdxWriter.write(
                dir.resolve("t10k-images-idx3-ubyte" + gz),
                dir.resolve("t10k-labels-idx1-ubyte" + gz),
                6,
                4,
                4,
                10,
                gzip);
    }

    private DatasetResolver resolverLookingIn(Path... places) {
        return new DatasetResolver(java.util.Arrays.stream(places)
                .map(p -> new DatasetResolver.Place(p.toString(), p))
                .toList());
    }

    @Test
    void fashionMnistComesFromTheFirstPlaceThatHasIt() throws IOException {
        Path empty = dir.resolve("empty");
        Files.createDirectories(empty);
        Path second = dir.resolve("second");
        writeIdxSplit(second, true);
        Path third = dir.resolve("third");
        writeIdxSplit(third, false);

        DataSplit split =
                resolverLookingIn(dir.resolve("missing"), empty, second, third).resolve("fashion-mnist");

        assertEquals("fashion-mnist/train", split.train().name());
        assertEquals(30, split.train().size());
        assertEquals(6, split.test().size());
        assertEquals(10, split.test().classes());
        assertEquals(List.of(1, 4, 4), split.test().featureShape());
    }

    @Test
    void missingFashionMnistSaysWhereItLookedAndWhatToDo() throws IOException {
        Path partial = dir.resolve("partial");
        Files.createDirectories(partial);
        IdxWriter.write(
                partial.resolve("train-images-idx3-ubyte.gz"),
                partial.resolve("train-labels-idx1-ubyte.gz"),
                3,
                2,
                2,
                2,
                true);
        DatasetResolver resolver = new DatasetResolver(List.of(
                new DatasetResolver.Place("/nowhere/fashion-mnist", Path.of("/nowhere/fashion-mnist")),
                new DatasetResolver.Place("$ATA_DATA_DIR/fashion-mnist (ATA_DATA_DIR not set)", null),
                new DatasetResolver.Place(partial.toString(), partial)));

        DatasetException e = assertThrows(DatasetException.class, () -> resolver.resolve("fashion-mnist"));

        assertEquals(
                "Fashion-MNIST not found; looked in /nowhere/fashion-mnist, $ATA_DATA_DIR/fashion-mnist"
                        + " (ATA_DATA_DIR not set), " + partial + " (lacks t10k-images-idx3-ubyte,"
                        + " t10k-labels-idx1-ubyte). Install the Debian package dataset-fashion-mnist, put its four"
                        + " IDX files in one of those directories, pass --data DIR, or use --data synthetic",
                e.getMessage());
        assertTrue(!e.getMessage().contains("\n"));
    }

    @Test
    void standardPlacesIncludeTheDebianPackageAndTheHomeDirectory() {
        DatasetException e =
                assertThrows(DatasetException.class, () -> new DatasetResolver(List.of()).resolve("fashion-mnist"));
        assertTrue(e.getMessage().startsWith("Fashion-MNIST not found; looked in ."), e.getMessage());
        // the standard list, whatever this machine has installed
        DatasetResolver standard = DatasetResolver.standard();
        try {
            DataSplit split = standard.resolve("fashion-mnist");
            assertEquals(60_000, split.train().size());
        } catch (DatasetException notInstalled) {
            assertTrue(notInstalled.getMessage().contains("/usr/share/datasets/fashion-mnist"));
            assertTrue(notInstalled
                    .getMessage()
                    .contains(Path.of(System.getProperty("user.home"), ".ata", "datasets", "fashion-mnist")
                            .toString()));
        }
    }

    @Test
    void aDirectoryOfIdxFiles() throws IOException {
        Path mnist = dir.resolve("mnist");
        writeIdxSplit(mnist, false);
        DataSplit split = resolverLookingIn().resolve(mnist.toString());
        assertEquals("mnist/train", split.train().name());
        assertEquals(30, split.train().size());

        Path partial = dir.resolve("partial");
        Files.createDirectories(partial);
        DatasetException e =
                assertThrows(DatasetException.class, () -> resolverLookingIn().resolve(partial.toString()));
        assertTrue(
                e.getMessage().startsWith("--data " + partial + ": the directory lacks train-images-idx3-ubyte,"),
                e.getMessage());
    }

    @Test
    void synthetic() {
        assertEquals(
                "synthetic/train",
                resolverLookingIn().resolve("synthetic").train().name());
        assertEquals(
                "synthetic:42/test",
                resolverLookingIn().resolve("synthetic:42").test().name());
        DatasetException e =
                assertThrows(DatasetException.class, () -> resolverLookingIn().resolve("synthetic:x"));
        assertEquals("--data synthetic:x: the seed 'x' is not a whole number", e.getMessage());
    }

    @Test
    void aCsvFileWithItsTestSibling() throws IOException {
        Files.writeString(dir.resolve("iris_train.csv"), "label,a,b\n0,1.5,2\n1,3,4\n2,5,6\n");
        Files.writeString(dir.resolve("iris_test.csv"), "label,a,b\n1,1,1\n");
        DataSplit split =
                resolverLookingIn().resolve(dir.resolve("iris_train.csv").toString());
        assertEquals(3, split.train().size());
        assertEquals(1, split.test().size());
        assertEquals(3, split.test().classes());
    }

    @Test
    void aLoneCsvFileHoldsOutEveryTenthRow() throws IOException {
        StringBuilder csv = new StringBuilder();
        for (int i = 0; i < 25; i++) {
            csv.append(i % 2).append(',').append(i).append(".5\n");
        }
        Files.writeString(dir.resolve("rows.csv"), csv);
        DataSplit split = resolverLookingIn().resolve(dir.resolve("rows.csv").toString());
        assertEquals(23, split.train().size());
        assertEquals(2, split.test().size());
        float[] f = new float[1];
        split.test().copyFeatures(0, f, 0);
        assertEquals(9.5f, f[0]);
        split.test().copyFeatures(1, f, 0);
        assertEquals(19.5f, f[0]);
        split.train().copyFeatures(9, f, 0);
        assertEquals(10.5f, f[0]);
    }

    @Test
    void anythingElseSaysWhatIsExpected() throws IOException {
        DatasetException e =
                assertThrows(DatasetException.class, () -> resolverLookingIn().resolve("mnist-digits"));
        assertEquals(
                "--data mnist-digits: no such file or directory; expected fashion-mnist, synthetic[:SEED], a directory"
                        + " of IDX files or a .csv file",
                e.getMessage());
        Path text = dir.resolve("notes.txt");
        Files.writeString(text, "x");
        assertTrue(
                assertThrows(DatasetException.class, () -> resolverLookingIn().resolve(text.toString()))
                        .getMessage()
                        .contains("not a directory or a .csv file"));
    }
}
