package io.ata.workeragent;

import io.ata.ml.net.ParameterLayout;
import io.ata.ml.net.ParameterShape;
import io.ata.schemas.TaskSpec;

/**
 * A TaskSpec's parameter list (the Avro records) as {@code ata-ml}'s {@link ParameterLayout}: the
 * agent's one conversion, so the model's checks and the network's build compare the same thing.
 */
final class TaskSpecLayout {
    private TaskSpecLayout() {}

    /**
     * The parameters {@code task} describes, in order.
     *
     * @throws IllegalArgumentException if a name repeats or a shape is empty or not positive
     */
    static ParameterLayout of(TaskSpec task) {
        return ParameterLayout.of(task.getParameters().stream()
                .map(p -> new ParameterShape(p.getName(), p.getShape()))
                .toList());
    }
}
