package io.ata.workeragent;

import io.ata.ml.net.NetworkSpec;
import io.ata.ml.net.ParameterLayout;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.TaskSpec;
import io.ata.schemas.tensor.TensorCodec;

/**
 * What a model version must be before an agent keeps it as its job's newest (see
 * {@code docs/streaming.md}, "What the trainer and the agents refuse"). A version that breaks a
 * rule would be applied by every agent of the fleet: NaN parameters make every gradient NaN, a
 * version 2^60 makes every assignment of the job look stale. Checked on the whole version (its
 * slices put together), so a rule sees every parameter.
 */
final class ModelRules {
    /**
     * The highest model version: the broker's bound on rounds (2^31 - 1), as version {@code k}
     * closes round {@code k}.
     */
    static final long MAX_VERSION = Integer.MAX_VALUE;

    private ModelRules() {}

    /** Why the version number itself is refused (checked on every slice), or null. */
    static String versionProblem(ModelVersion model) {
        if (model.getVersion() < 0 || model.getVersion() > MAX_VERSION) {
            return "job " + model.getJob() + ": model version " + model.getVersion() + " is out of range (0 to "
                    + MAX_VERSION + ")";
        }
        return null;
    }

    /**
     * Why a whole model version is refused, or null: parameters that are not a whole number of
     * values or not all finite, or a task description whose network does not parse, whose
     * parameter list differs from the network's layout, or whose parameter count differs from the
     * version's.
     */
    static String wholeProblem(ModelVersion model) {
        String what = "model of job " + model.getJob() + " version " + model.getVersion() + ": ";
        int count = TensorCodec.length(model.getParameters(), model.getEncoding());
        if (count < 0) {
            return what + model.getParameters().remaining() + " parameter bytes are not a whole number of "
                    + model.getEncoding() + " values";
        }
        int nonFinite = TensorCodec.firstNonFinite(model.getParameters(), model.getEncoding());
        if (nonFinite >= 0) {
            return what + "parameter " + nonFinite + " is not finite";
        }
        TaskSpec task = model.getTask();
        if (task == null) {
            return null; // the quadratic problem: no network to match
        }
        NetworkSpec network;
        try {
            network = NetworkSpec.parse(task.getNetwork());
        } catch (IllegalArgumentException e) {
            return what + "its network '" + task.getNetwork() + "' does not parse: " + e.getMessage();
        }
        ParameterLayout described;
        try {
            described = TaskSpecLayout.of(task);
            described.requireSame(network.layout(), "the network " + network);
        } catch (IllegalArgumentException e) {
            return what + "its parameter list does not match its network: " + e.getMessage();
        }
        if (described.totalSize() != count) {
            return what + "it has " + count + " parameters, its network " + network + " has " + described.totalSize();
        }
        return null;
    }
}
