package io.ata.ml.djl;

import ai.djl.engine.Engine;
import ai.djl.pytorch.jni.JniUtils;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts DJL's PyTorch engine once per JVM, the way ATA runs it: offline and with a fixed number
 * of threads. Call {@link #start(int)} before anything else touches DJL (DJL reads these settings
 * when its {@code Engine} class loads):
 *
 * <ul>
 *   <li>{@code ai.djl.offline=true} unless the user set {@code ai.djl.offline} or {@code
 *       DJL_OFFLINE}: DJL never downloads; libtorch and DJL's JNI bridge come from the Maven jars
 *       {@value #NATIVE_ARTIFACT} and {@value #JNI_ARTIFACT} (extracted once into DJL's cache,
 *       {@code ~/.djl.ai} unless {@code DJL_CACHE_DIR} says otherwise).
 *   <li>{@code ai.djl.default_engine=PyTorch}.
 *   <li>{@code ai.djl.pytorch.num_threads} and {@code ai.djl.pytorch.num_interop_threads} = the
 *       {@code threads} argument (the command line's {@code --threads}). With one thread, gradients
 *       are bitwise reproducible.
 * </ul>
 *
 * A later call with another thread count changes the intra-op count (PyTorch allows it) but not
 * the inter-op count (PyTorch fixes it when the engine starts).
 */
public final class DjlRuntime {
    public static final String DJL_VERSION = "0.35.1";
    public static final String PYTORCH_VERSION = "2.7.1";
    public static final String NATIVE_ARTIFACT = "ai.djl.pytorch:pytorch-native-cpu:" + PYTORCH_VERSION;
    public static final String JNI_ARTIFACT = "ai.djl.pytorch:pytorch-jni:" + PYTORCH_VERSION + "-" + DJL_VERSION;

    private static final Logger log = LoggerFactory.getLogger(DjlRuntime.class);
    private static final String ENGINE = "PyTorch";

    private static Engine engine;

    private DjlRuntime() {}

    /**
     * Configures and loads the engine (once; later calls only adjust the thread count).
     *
     * @throws EngineUnavailableException when the engine cannot load, saying which artifacts to add
     */
    public static synchronized Engine start(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, got " + threads);
        }
        if (engine == null) {
            if (System.getProperty("ai.djl.offline") == null && System.getenv("DJL_OFFLINE") == null) {
                System.setProperty("ai.djl.offline", "true");
            }
            System.setProperty("ai.djl.default_engine", ENGINE);
            System.setProperty("ai.djl.pytorch.num_threads", Integer.toString(threads));
            System.setProperty("ai.djl.pytorch.num_interop_threads", Integer.toString(threads));
            engine = load();
        }
        if (JniUtils.getNumThreads() != threads) {
            JniUtils.setNumThreads(threads);
        }
        if (JniUtils.getNumInteropThreads() != threads) {
            log.warn(
                    "PyTorch keeps {} inter-op threads (fixed when the engine started); {} intra-op threads",
                    JniUtils.getNumInteropThreads(),
                    threads);
        }
        return engine;
    }

    /** The engine {@link #start(int)} loaded. */
    public static synchronized Engine engine() {
        if (engine == null) {
            throw new IllegalStateException("DJL is not started: call DjlRuntime.start(threads) first");
        }
        return engine;
    }

    private static Engine load() {
        Engine loaded;
        try {
            loaded = Engine.getEngine(ENGINE);
        } catch (RuntimeException | LinkageError e) {
            throw new EngineUnavailableException(unavailableMessage(e), e);
        }
        if (!ENGINE.equals(Engine.getDefaultEngineName())) {
            // NDManager.newBaseManager() and friends use the default engine
            throw new IllegalStateException("DJL's default engine is " + Engine.getDefaultEngineName()
                    + " (environment variable DJL_DEFAULT_ENGINE?), ATA needs " + ENGINE);
        }
        return loaded;
    }

    static String unavailableMessage(Throwable e) {
        StringBuilder causes = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (causes.length() > 0) {
                causes.append(": ");
            }
            causes.append(t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage());
        }
        boolean offline = Boolean.parseBoolean(System.getProperty("ai.djl.offline"))
                || Boolean.parseBoolean(System.getenv("DJL_OFFLINE"));
        return "cannot load DJL's PyTorch engine (" + causes + "). "
                + (offline ? "DJL runs offline, so its" : "Its") + " native libraries must be on the classpath:"
                + " the Maven artifacts " + NATIVE_ARTIFACT + " (classifier " + platformClassifier()
                + ", libtorch) and " + JNI_ARTIFACT + " (DJL's JNI bridge); ata-ml depends on both, so run"
                + " from the ata jar or with ata-ml's runtime classpath";
    }

    /** The classifier of the native jar for this machine, e.g. {@code linux-x86_64}. */
    static String platformClassifier() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        String osPart = os.startsWith("mac") ? "osx" : os.startsWith("win") ? "win" : "linux";
        String archPart = arch.equals("amd64") || arch.equals("x86_64") ? "x86_64" : arch;
        return osPart + "-" + archPart;
    }
}
