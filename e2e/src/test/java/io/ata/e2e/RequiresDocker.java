package io.ata.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a test class only where Docker can serve it ({@code @ExtendWith(RequiresDocker.class)}): an
 * engine answers, the images are there or can be built, and a container on the host's network
 * reaches 127.0.0.1 ({@link DockerImages}). Elsewhere the class is skipped and says why, in one
 * line on the console; any failure of the probe, an exception included, is such a reason, never an
 * error of the build. The one exception: a step of the image's own Dockerfile that fails is the
 * project's fault, so the class runs and its tests fail with the build's output.
 *
 * <p>Testcontainers writes the Docker strategy it found to {@code ~/.testcontainers.properties}; the
 * file is put back as it was (absent, or its old content) once the class is done or skipped.
 */
final class RequiresDocker implements ExecutionCondition, AfterAllCallback {
    private static final Path USER_CONFIG = Path.of(System.getProperty("user.home"), ".testcontainers.properties");
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(RequiresDocker.class);

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        UserConfig before = UserConfig.read();
        String reason;
        try {
            DockerImages.Images images = DockerImages.get();
            context.getStore(NAMESPACE).put(UserConfig.class, before);
            System.out.println(context.getDisplayName() + " runs: " + images.describe());
            return ConditionEvaluationResult.enabled("Docker serves the container tests: " + images.describe());
        } catch (DockerImages.BuildFailed e) {
            context.getStore(NAMESPACE).put(UserConfig.class, before);
            // DockerImages.get() throws it again in each test, which fails with it
            return ConditionEvaluationResult.enabled("the image failed to build: its tests fail with it");
        } catch (DockerImages.Unavailable e) {
            reason = e.getMessage();
        } catch (Throwable e) { // whatever the probe threw: the class is skipped, not failed
            reason = "probing Docker failed: " + DockerImages.firstLine(e.toString());
        }
        before.restore();
        // Surefire and Failsafe keep a skip's reason in their XML reports only: the console gets it here.
        System.out.println(context.getDisplayName() + " skipped: " + reason);
        return ConditionEvaluationResult.disabled(reason);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        UserConfig before = context.getStore(NAMESPACE).remove(UserConfig.class, UserConfig.class);
        if (before != null) {
            before.restore();
        }
    }

    /** The content of ~/.testcontainers.properties, null where there was none; unknown if unreadable. */
    private record UserConfig(byte[] content, boolean known) {
        static UserConfig read() {
            try {
                return new UserConfig(Files.isRegularFile(USER_CONFIG) ? Files.readAllBytes(USER_CONFIG) : null, true);
            } catch (IOException e) {
                return new UserConfig(null, false); // left as it is
            }
        }

        void restore() {
            if (!known) {
                return;
            }
            try {
                if (content == null) {
                    Files.deleteIfExists(USER_CONFIG);
                } else {
                    Files.write(USER_CONFIG, content);
                }
            } catch (IOException e) {
                System.out.println("RequiresDocker: could not put back " + USER_CONFIG + ": " + e);
            }
        }
    }
}
