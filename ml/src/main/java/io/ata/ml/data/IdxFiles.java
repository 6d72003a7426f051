package io.ata.ml.data;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPInputStream;

/**
 * Reads the IDX format of MNIST and Fashion-MNIST: an images file ({@code idx3-ubyte}, magic number
 * 2051, then the image count, rows and columns as big-endian ints, then one unsigned byte per
 * pixel) and a labels file ({@code idx1-ubyte}, magic number 2049, then the count, then one byte
 * per label). Either file may be gzipped (recognised by its content, not its name). Images become
 * samples of shape {@code [1, rows, cols]} with pixels scaled to [0, 1] ({@code byte / 255}); the
 * number of classes is one more than the largest label.
 */
public final class IdxFiles {
    static final int IMAGES_MAGIC = 2051;
    static final int LABELS_MAGIC = 2049;

    private IdxFiles() {}

    /**
     * Loads one split from its images and labels files.
     *
     * @throws DatasetException naming the file when one is missing, not IDX, truncated, or when the
     *     two files hold different numbers of samples
     */
    public static InMemoryDataset load(String name, Path images, Path labels) {
        int[] labelValues = readLabels(labels);
        try (DataInputStream in = open(images)) {
            readMagic(in, images, IMAGE_FILE);
            int count = in.readInt();
            int rows = in.readInt();
            int cols = in.readInt();
            if (count < 0 || rows < 1 || cols < 1) {
                throw new DatasetException(images + ": bad header (" + count + " images of " + rows + "x" + cols + ")");
            }
            if (count != labelValues.length) {
                throw new DatasetException(
                        images + " has " + count + " images but " + labels + " has " + labelValues.length + " labels");
            }
            long size = (long) count * rows * cols;
            if (size > Integer.MAX_VALUE - 8) {
                throw new DatasetException(images + ": " + size + " pixels do not fit in memory as one array");
            }
            byte[] pixels = new byte[(int) size];
            readFully(in, pixels, images, "pixels");
            return InMemoryDataset.ofPixels(
                    name, List.of(1, rows, cols), InMemoryDataset.classesOf(labelValues), pixels, labelValues);
        } catch (EOFException e) {
            throw new DatasetException(images + ": truncated (" + e.getMessage() + ")");
        } catch (IOException e) {
            throw cannotRead(images, e);
        }
    }

    /** A kind of IDX file, told apart from the other by the magic number that opens it. */
    private record Kind(int magic, String noun, String described) {}

    private static final Kind IMAGE_FILE = new Kind(IMAGES_MAGIC, "images", "an images file");
    private static final Kind LABEL_FILE = new Kind(LABELS_MAGIC, "labels", "a labels file");

    /** Reads the magic number that opens {@code file}, which must be {@code expected}'s. */
    private static void readMagic(DataInputStream in, Path file, Kind expected) throws IOException {
        int magic = in.readInt();
        if (magic != expected.magic()) {
            Kind other = expected == IMAGE_FILE ? LABEL_FILE : IMAGE_FILE;
            throw new DatasetException(file + ": not an IDX " + expected.noun() + " file (magic number " + magic
                    + ", expected " + expected.magic()
                    + (magic == other.magic() ? "; this is " + other.described() : "")
                    + ")");
        }
    }

    private static int[] readLabels(Path labels) {
        try (DataInputStream in = open(labels)) {
            readMagic(in, labels, LABEL_FILE);
            int count = in.readInt();
            if (count < 0) {
                throw new DatasetException(labels + ": bad header (" + count + " labels)");
            }
            byte[] bytes = new byte[count];
            readFully(in, bytes, labels, "labels");
            int[] values = new int[count];
            for (int i = 0; i < count; i++) {
                values[i] = bytes[i] & 0xff;
            }
            return values;
        } catch (EOFException e) {
            throw new DatasetException(labels + ": truncated (" + e.getMessage() + ")");
        } catch (IOException e) {
            throw cannotRead(labels, e);
        }
    }

    private static void readFully(DataInputStream in, byte[] target, Path file, String what) throws IOException {
        int done = 0;
        while (done < target.length) {
            int n = in.read(target, done, target.length - done);
            if (n < 0) {
                throw new DatasetException(
                        file + ": truncated: the header announces " + target.length + " " + what + ", found " + done);
            }
            done += n;
        }
    }

    /** Opens a file, unzipping it when it starts with the gzip magic bytes 1f 8b. */
    private static DataInputStream open(Path file) throws IOException {
        InputStream raw = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
        raw.mark(2);
        int b0 = raw.read();
        int b1 = raw.read();
        raw.reset();
        InputStream in = b0 == 0x1f && b1 == 0x8b ? new BufferedInputStream(new GZIPInputStream(raw, 1 << 16)) : raw;
        return new DataInputStream(in);
    }

    static DatasetException cannotRead(Path file, IOException e) {
        if (e instanceof NoSuchFileException) {
            return new DatasetException(file + ": no such file");
        }
        return new DatasetException(file + ": cannot read: " + e, e);
    }
}
