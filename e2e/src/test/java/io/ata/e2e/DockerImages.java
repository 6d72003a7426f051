package io.ata.e2e;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.BuildImageResultCallback;
import com.github.dockerjava.api.command.CreateContainerResponse;
import com.github.dockerjava.api.command.PullImageResultCallback;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.BuildResponseItem;
import com.github.dockerjava.api.model.HostConfig;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.testcontainers.DockerClientFactory;

/**
 * The images of the container tests, found or built once per JVM, or why they cannot be. Without an
 * image registry, {@code deploy/docker/engine.sh base} builds the base image from Debian packages
 * ({@value #LOCAL_BASE}); with one, the Dockerfile's default is pulled. The ata image is built from
 * the jar of this build on whichever base is there. Kafka is the Apache image where it is there or
 * can be pulled, else {@code ata kafka} in the ata image. Every container runs on the host's
 * network ({@code dockerd --bridge=none} has no other), reached on 127.0.0.1.
 *
 * <p>System properties: {@code ata.jar} (the jar, relative to the repository's root, default
 * {@value #DEFAULT_JAR}), {@code ata.base.image} (the base image), {@code ata.kafka.image}
 * ({@code apache} or {@code ata}: which Kafka, else the first that is there).
 */
final class DockerImages {
    static final String DEFAULT_JAR = "cli/target/ata.jar";
    static final String IMAGE = "ata:e2e";
    static final String LOCAL_BASE = "ata-base:bookworm";
    static final String REGISTRY_BASE = "eclipse-temurin:17-jre";
    static final String APACHE_KAFKA = "apache/kafka:4.3.1";
    /** The label of {@link #IMAGE} that names what it was built of. */
    static final String SOURCE_LABEL = "io.ata.e2e.source";

    private static final Duration PULL_TIMEOUT = Duration.ofSeconds(90);
    /**
     * Where {@code deploy/docker/engine.sh base} keeps its pid while it builds {@value #LOCAL_BASE}
     * ({@code .ci/run} runs it beside Maven), and how long the test waits for that build at most.
     */
    private static final Path BASE_BUILDING = Path.of("/run/ata-base.building");

    private static final Duration BASE_BUILD_WAIT = Duration.ofMinutes(20);
    /** The repository's root: the tests run in deploy/. */
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    /** The images found or built: the ata image, its base, and the Kafka image the test runs. */
    record Images(String image, String base, String kafka, Duration build, long bytes) {
        boolean apacheKafka() {
            return kafka.equals(APACHE_KAFKA);
        }

        String describe() {
            return String.format(
                    Locale.ROOT,
                    "image %s (FROM %s) %s, %d MB; Kafka: %s",
                    image,
                    base,
                    build.isZero()
                            ? "up to date (built before of the same files)"
                            : String.format(Locale.ROOT, "built in %.1f s", build.toMillis() / 1000.0),
                    bytes / 1_000_000,
                    apacheKafka() ? APACHE_KAFKA : "ata kafka in " + image);
        }
    }

    /** A step of the image's Dockerfile failed: the project's fault, which fails the tests. */
    static final class BuildFailed extends RuntimeException {
        BuildFailed(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Why the container tests cannot run, in one line. */
    static final class Unavailable extends Exception {
        Unavailable(String reason) {
            super(reason);
        }
    }

    private static Images images;
    private static Unavailable unavailable;
    /** The image's own build failed: every container test fails with it, none is skipped. */
    private static BuildFailed failed;

    private DockerImages() {}

    /** The images, probed and built at the first call; the same answer after. */
    static synchronized Images get() throws Unavailable {
        if (images == null && unavailable == null && failed == null) {
            try {
                images = probe();
            } catch (Unavailable e) {
                unavailable = e;
            } catch (BuildFailed e) {
                failed = e;
            }
        }
        if (failed != null) {
            throw failed;
        }
        if (unavailable != null) {
            throw unavailable;
        }
        return images;
    }

    /** The distribution jar's path relative to the repository's root: {@code -Data.jar}, or {@value #DEFAULT_JAR}. */
    static String relativeJar() {
        return System.getProperty("ata.jar", DEFAULT_JAR);
    }

    /** The distribution jar, which the package phase of {@code cli/} builds. */
    static Path distributionJar() {
        return ROOT.resolve(relativeJar());
    }

    private static Images probe() throws Unavailable {
        if (!DockerClientFactory.instance().isDockerAvailable()) {
            throw new Unavailable("no Docker engine answers (on Debian: deploy/docker/engine.sh start)");
        }
        DockerClient docker = DockerClientFactory.instance().client();
        String relativeJar = relativeJar();
        Path jar = distributionJar();
        if (!Files.isRegularFile(jar)) {
            throw new Unavailable("no " + relativeJar + " to put in the image: run the package phase first");
        }
        String base = base(docker);
        Duration build = build(docker, base, relativeJar, jar);
        long bytes = docker.inspectImageCmd(IMAGE).exec().getSize();
        hostNetworkReachesLoopback(docker);
        return new Images(IMAGE, base, kafka(docker), build, bytes);
    }

    /**
     * Builds {@link #IMAGE} from the Dockerfile, the launcher, the class-data archive's script and
     * the jar, sent uncompressed (the jar is most of it and compresses little); the time it took,
     * zero where the image was built from the same files on the same base before (its {@value
     * #SOURCE_LABEL} label says so). A step of the Dockerfile that fails (the class-data archive
     * runs a job of the parts) is this build's failure, with the build's last lines, not a reason to
     * skip.
     */
    private static Duration build(DockerClient docker, String base, String relativeJar, Path jar) throws Unavailable {
        Path dockerfile = ROOT.resolve("deploy/docker/Dockerfile");
        Path launcher = ROOT.resolve("deploy/docker/ata");
        Path archiveScript = ROOT.resolve("deploy/docker/class-data-archive.sh");
        long started = System.nanoTime();
        Path context = null;
        try {
            String source = sourceKey(docker, base, jar, dockerfile, launcher, archiveScript);
            if (present(docker, IMAGE)) {
                Map<String, String> labels =
                        docker.inspectImageCmd(IMAGE).exec().getConfig().getLabels();
                if (labels != null && source.equals(labels.get(SOURCE_LABEL))) {
                    return Duration.ZERO;
                }
            }
            context = Files.createTempFile("ata-e2e-context", ".tar");
            try (TarArchiveOutputStream tar = new TarArchiveOutputStream(Files.newOutputStream(context))) {
                tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
                tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
                add(tar, "deploy/docker/Dockerfile", dockerfile, 0644);
                add(tar, "deploy/docker/ata", launcher, 0755);
                add(tar, "deploy/docker/class-data-archive.sh", archiveScript, 0755);
                add(tar, relativeJar, jar, 0644);
            }
            List<String> output = new CopyOnWriteArrayList<>();
            BuildImageResultCallback callback = new BuildImageResultCallback() {
                @Override
                public void onNext(BuildResponseItem item) {
                    if (item.getStream() != null) {
                        output.add(item.getStream().stripTrailing());
                    }
                    super.onNext(item);
                }
            };
            try (InputStream in = Files.newInputStream(context)) {
                docker.buildImageCmd(in)
                        .withDockerfilePath("deploy/docker/Dockerfile")
                        .withTags(Set.of(IMAGE))
                        .withBuildArg("BASE_IMAGE", base)
                        .withBuildArg("ATA_JAR", relativeJar)
                        .withLabels(Map.of(SOURCE_LABEL, source))
                        .exec(callback)
                        .awaitImageId(10, TimeUnit.MINUTES);
            } catch (RuntimeException e) {
                if (String.valueOf(e.getMessage()).contains("returned a non-zero code")) {
                    throw new BuildFailed(
                            "the image " + IMAGE + " failed to build: " + firstLine(e.toString()) + "\n"
                                    + String.join("\n", output.subList(Math.max(0, output.size() - 60), output.size())),
                            e);
                }
                throw e;
            }
            return Duration.ofNanos(System.nanoTime() - started);
        } catch (IOException | RuntimeException e) {
            if (e instanceof BuildFailed failure) {
                throw failure;
            }
            throw new Unavailable(
                    "the image " + IMAGE + " could not be built FROM " + base + ": " + firstLine(e.toString()));
        } finally {
            if (context != null) {
                context.toFile().delete();
            }
        }
    }

    /** What the image is built of: the base image, the jar (size, time) and {@code files} (Dockerfile, scripts). */
    private static String sourceKey(DockerClient docker, String base, Path jar, Path... files) throws IOException {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (Path file : files) {
                sha.update(Files.readAllBytes(file));
            }
            sha.update((Files.size(jar) + "/" + Files.getLastModifiedTime(jar).toMillis() + "/"
                            + docker.inspectImageCmd(base).exec().getId())
                    .getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void add(TarArchiveOutputStream tar, String name, Path file, int mode) throws IOException {
        TarArchiveEntry entry = new TarArchiveEntry(name);
        entry.setSize(Files.size(file));
        entry.setMode(TarArchiveEntry.DEFAULT_FILE_MODE & ~0777 | mode);
        tar.putArchiveEntry(entry);
        Files.copy(file, tar);
        tar.closeArchiveEntry();
    }

    /** The base image: the one asked for, else the local build from Debian packages, else the Dockerfile's. */
    private static String base(DockerClient docker) throws Unavailable {
        String asked = System.getProperty("ata.base.image", "");
        List<String> candidates = asked.isBlank() ? List.of(LOCAL_BASE, REGISTRY_BASE) : List.of(asked);
        if (candidates.contains(LOCAL_BASE) && !present(docker, LOCAL_BASE)) {
            awaitBaseBuild();
        }
        for (String image : candidates) {
            if (present(docker, image)) {
                return image;
            }
        }
        // the local build is on no registry: only the other can be pulled
        String pullable = candidates.get(candidates.size() - 1);
        String failure = pull(docker, pullable);
        if (failure == null) {
            return pullable;
        }
        throw new Unavailable("no base image: " + String.join(" nor ", candidates)
                + " is there (without a registry: deploy/docker/engine.sh base), and pulling " + pullable
                + " failed: " + failure);
    }

    /**
     * Waits while {@code deploy/docker/engine.sh base} builds the local base image, as its pid in
     * {@link #BASE_BUILDING} says; returns at once where no build is under way.
     */
    private static void awaitBaseBuild() throws Unavailable {
        Optional<ProcessHandle> builder;
        try {
            long pid = Long.parseLong(Files.readString(BASE_BUILDING).strip());
            builder = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
        } catch (IOException | NumberFormatException e) {
            return; // no build under way (or a file no build wrote)
        }
        if (builder.isEmpty()) {
            return;
        }
        System.out.println("DockerKafkaEndToEndTest: waiting for deploy/docker/engine.sh base (pid "
                + builder.get().pid() + ") to finish building " + LOCAL_BASE);
        try {
            builder.get().onExit().get(BASE_BUILD_WAIT.toMinutes(), TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unavailable("interrupted while waiting for the base image's build");
        } catch (ExecutionException | TimeoutException e) {
            throw new Unavailable("the base image's build (deploy/docker/engine.sh base, pid "
                    + builder.get().pid() + ") did not finish in " + BASE_BUILD_WAIT.toMinutes() + " min");
        }
    }

    /** The Apache Kafka image where it is there or can be pulled, else the ata image (ata kafka). */
    private static String kafka(DockerClient docker) {
        String asked = System.getProperty("ata.kafka.image", "");
        if (asked.equals("ata")) {
            return IMAGE;
        }
        if (present(docker, APACHE_KAFKA)) {
            return APACHE_KAFKA;
        }
        String failure = pull(docker, APACHE_KAFKA);
        if (failure == null) {
            return APACHE_KAFKA;
        }
        System.out.println("DockerKafkaEndToEndTest: " + APACHE_KAFKA + " cannot be pulled (" + failure
                + "): Kafka runs as 'ata kafka' in " + IMAGE);
        return IMAGE;
    }

    private static boolean present(DockerClient docker, String image) {
        try {
            docker.inspectImageCmd(image).exec();
            return true;
        } catch (NotFoundException e) {
            return false;
        }
    }

    /**
     * Null once {@code image} is pulled, else why not. Without a registry the pull fails, and the
     * caller says in one line which image it uses instead: the failure is kept for that line, not
     * logged with its stack trace as docker-java's callback does.
     */
    private static String pull(DockerClient docker, String image) {
        QuietPull pull = new QuietPull();
        try {
            boolean done =
                    docker.pullImageCmd(image).exec(pull).awaitCompletion(PULL_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            if (pull.error != null) {
                // kept by QuietPull: awaitCompletion does not throw it
                return firstLine(pull.error.getMessage());
            }
            return done ? null : "no answer in " + PULL_TIMEOUT.toSeconds() + " s";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        } catch (RuntimeException e) {
            return firstLine(pull.error != null ? pull.error.getMessage() : e.getMessage());
        }
    }

    /**
     * A pull's callback that keeps its error for {@link #pull} instead of logging it at ERROR with a
     * stack trace, as {@code ResultCallbackTemplate.onError} does; it then ends the pull as that
     * does. The caller reads {@link #error}: {@code awaitCompletion} no longer throws it.
     */
    private static final class QuietPull extends PullImageResultCallback {
        private volatile Throwable error;

        @Override
        public void onError(Throwable throwable) {
            error = throwable;
            try {
                close();
            } catch (IOException e) {
                throwable.addSuppressed(e);
            }
        }
    }

    /**
     * A container on the host's network connects to a port this JVM listens on at 127.0.0.1: the
     * parts in containers and the test reach each other there. Not so with a remote engine, or one
     * that refuses the host's network.
     */
    private static void hostNetworkReachesLoopback(DockerClient docker) throws Unavailable {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            server.setSoTimeout(60_000);
            CreateContainerResponse c = docker.createContainerCmd(IMAGE)
                    .withEntrypoint("bash")
                    .withCmd("-c", "echo host-network >/dev/tcp/127.0.0.1/" + server.getLocalPort())
                    .withLabels(DockerClientFactory.DEFAULT_LABELS)
                    .withHostConfig(HostConfig.newHostConfig().withNetworkMode("host"))
                    .exec();
            try {
                docker.startContainerCmd(c.getId()).exec();
                try (Socket s = server.accept()) {
                    s.setSoTimeout(60_000); // a container that connects and says nothing fails too, not hangs
                    String said = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                    if (!said.strip().equals("host-network")) {
                        throw new Unavailable("a container on the host network sent " + said);
                    }
                }
            } finally {
                docker.removeContainerCmd(c.getId()).withForce(true).exec();
            }
        } catch (SocketTimeoutException e) {
            throw new Unavailable("a container on the host network did not reach 127.0.0.1 in 60 s "
                    + "(a remote engine, or none with host networking)");
        } catch (IOException | RuntimeException e) {
            throw new Unavailable("a container on the host network could not be run: " + firstLine(e.toString()));
        }
    }

    static String firstLine(String s) {
        if (s == null) {
            return "no message";
        }
        int newline = s.indexOf('\n');
        return (newline < 0 ? s : s.substring(0, newline)).strip();
    }
}
