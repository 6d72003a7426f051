package io.ata.ml.data;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;

/** Writes small IDX files for tests (the format of MNIST), gzipped or not. */
final class IdxWriter {

    private IdxWriter() {}

    /** Image {@code i}, pixel {@code p} is {@code (i * 7 + p) % 256}; label {@code i} is {@code i % classes}. */
    static void write(Path images, Path labels, int count, int rows, int cols, int classes, boolean gzip)
            throws IOException {
        try (DataOutputStream out = open(images, gzip)) {
            out.writeInt(IdxFiles.IMAGES_MAGIC);
            out.writeInt(count);
            out.writeInt(rows);
            out.writeInt(cols);
            for (int i = 0; i < count; i++) {
                for (int p = 0; p < rows * cols; p++) {
                    out.writeByte((i * 7 + p) % 256);
                }
            }
        }
        try (DataOutputStream out = open(labels, gzip)) {
            out.writeInt(IdxFiles.LABELS_MAGIC);
            out.writeInt(count);
            for (int i = 0; i < count; i++) {
                out.writeByte(i % classes);
            }
        }
    }

    private static DataOutputStream open(Path file, boolean gzip) throws IOException {
        OutputStream out = Files.newOutputStream(file);
        return new DataOutputStream(gzip ? new GZIPOutputStream(out) : out);
    }
}
