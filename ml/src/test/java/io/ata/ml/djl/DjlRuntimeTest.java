package io.ata.ml.djl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.engine.Engine;
import ai.djl.pytorch.jni.JniUtils;
import ai.djl.util.Utils;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DjlRuntimeTest {

    @Test
    void startsPyTorchOfflineWithTheGivenThreads() {
        Engine engine = DjlRuntime.start(1);
        assertEquals("PyTorch", engine.getEngineName());
        assertEquals(DjlRuntime.PYTORCH_VERSION, engine.getVersion());
        assertEquals(DjlRuntime.DJL_VERSION, Engine.getDjlVersion());
        assertTrue(Utils.isOfflineMode());
        assertEquals(1, JniUtils.getNumThreads());
        assertEquals(1, JniUtils.getNumInteropThreads());
        assertFalse(
                Utils.getEngineCacheDir().toString().contains("/target/"),
                Utils.getEngineCacheDir().toString());
        assertEquals(engine, DjlRuntime.engine());
        assertEquals(engine, DjlRuntime.start(1));
    }

    @Test
    void threadsMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> DjlRuntime.start(0));
    }

    @Test
    void theMessageNamesTheArtifacts() {
        String message = DjlRuntime.unavailableMessage(new IllegalStateException(
                "Failed to download PyTorch native library", new IOException("Offline mode is enabled.")));
        assertTrue(
                message.startsWith("cannot load DJL's PyTorch engine (Failed to download PyTorch native library:"
                        + " Offline mode is enabled.). "),
                message);
        assertTrue(message.contains("ai.djl.pytorch:pytorch-native-cpu:2.7.1 (classifier linux-x86_64"), message);
        assertTrue(message.contains("ai.djl.pytorch:pytorch-jni:2.7.1-0.35.1"), message);
    }

    /**
     * The real failure: a JVM whose classpath lacks the libtorch jar, with an empty DJL cache, so
     * DJL would have to download. It must fail with our one message instead.
     */
    @Test
    void aMissingNativeJarGivesOneClearMessage(@TempDir Path cache) throws Exception {
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> entries = Arrays.stream(classpath.split(File.pathSeparator))
                .filter(entry -> !entry.contains("pytorch-native-cpu"))
                .toList();
        assertTrue(entries.size() > 3, classpath);
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path output = cache.resolve("java-output.txt"); // what the JVM printed, merged
        Process process = new ProcessBuilder(
                        java.toString(),
                        "-DDJL_CACHE_DIR=" + cache,
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=off",
                        "-cp",
                        String.join(File.pathSeparator, entries),
                        StartEngineMain.class.getName())
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        String printed = Files.readString(output);
        assertEquals(3, process.exitValue(), printed);
        String message = Arrays.stream(printed.split("\n"))
                .filter(line -> line.startsWith("cannot load"))
                .collect(Collectors.joining("\n"));
        assertTrue(message.contains("Offline mode is enabled"), printed);
        assertTrue(message.contains("DJL runs offline, so its native libraries must be on the classpath"), printed);
        assertTrue(message.contains(DjlRuntime.NATIVE_ARTIFACT), printed);
        assertTrue(message.contains(DjlRuntime.JNI_ARTIFACT), printed);
    }
}
