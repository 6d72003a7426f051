package io.ata.e2e;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.testcontainers.DockerClientFactory;

/**
 * Runs a test class only where a Docker engine answers ({@code @ExtendWith(RequiresDocker.class)});
 * elsewhere the class is skipped and says why, in one line on the console.
 */
final class RequiresDocker implements ExecutionCondition {
    static final String REASON = "Docker is not available: the Testcontainers test needs a Docker engine";

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (DockerClientFactory.instance().isDockerAvailable()) {
            return ConditionEvaluationResult.enabled("a Docker engine answers");
        }
        // Surefire and Failsafe keep a skip's reason in their XML reports only: the console gets it here.
        System.out.println(context.getDisplayName() + " skipped: " + REASON);
        return ConditionEvaluationResult.disabled(REASON);
    }
}
