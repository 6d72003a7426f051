package io.ata.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The disk used under a directory (the embedded Kafka's log directory), sampled now and then: the
 * last and the largest. Used means allocated, as {@code du} counts it: Kafka preallocates each
 * active segment's indexes (10 MB, sparse), so the files' sizes would overstate it many times. Where
 * {@code du} cannot be run, the files' sizes are summed instead.
 */
public final class DiskUsage {
    private final Path dir;
    private long last;
    private long max;

    public DiskUsage(Path dir) {
        this.dir = dir;
    }

    /** Measures now; returns the bytes. */
    public synchronized long sample() {
        long bytes = allocated().orElseGet(this::fileSizes);
        last = bytes;
        max = Math.max(max, bytes);
        return bytes;
    }

    /** What {@code du -sk} says, in bytes; empty if it cannot tell. */
    private OptionalLong allocated() {
        try {
            Process du = new ProcessBuilder("du", "-sk", dir.toString())
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            String out;
            try (InputStream in = du.getInputStream()) {
                out = new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim();
            }
            if (!du.waitFor(30, TimeUnit.SECONDS)) {
                du.destroyForcibly();
                return OptionalLong.empty();
            }
            // du exits 1 when a file vanished while it walked (a segment deleted): its sum stands
            String kib = out.split("\\s+")[0];
            return OptionalLong.of(Long.parseLong(kib) * 1024);
        } catch (IOException | NumberFormatException e) {
            return OptionalLong.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return OptionalLong.empty();
        }
    }

    private long fileSizes() {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.mapToLong(DiskUsage::size).sum();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot measure " + dir, e);
        } catch (UncheckedIOException e) {
            if (!(e.getCause() instanceof NoSuchFileException)) {
                throw e;
            }
            return last; // a segment deleted while walking: try again next time
        }
    }

    private static long size(Path p) {
        try {
            BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
            return a.isRegularFile() ? a.size() : 0;
        } catch (NoSuchFileException e) {
            return 0; // deleted meanwhile (a segment retention removed)
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public synchronized long last() {
        return last;
    }

    public synchronized long max() {
        return max;
    }

    public Path dir() {
        return dir;
    }
}
