package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.extensions.ExtensionRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Aggregators and optimizers are found by name, as policies are: built-ins, then providers' rules. */
class RuleRegistriesTest {

    @Test
    void theBuiltInAggregatorsComeFirstThenTheProvidersOnTheClassPath() {
        ExtensionRegistry<AggregatorDefinition> registry = TrainerRules.aggregators();
        assertEquals(List.of("mean", "trimmed-mean", "first-only"), registry.names());
        assertSame(MeanAggregator.INSTANCE, registry.find("MEAN").create(AggregatorSettings.DEFAULTS));
        TrimmedMeanAggregator trimmed = assertInstanceOf(
                TrimmedMeanAggregator.class, registry.find("trimmed-mean").create(new AggregatorSettings(0.25)));
        assertEquals(0.25, trimmed.trim());

        // a provider's rule (META-INF/services in the test resources) works like a built-in one
        Aggregator.Aggregate firstOnly =
                registry.find("first-only").create(AggregatorSettings.DEFAULTS).open(2);
        firstOnly.add(new double[] {1, 2});
        firstOnly.add(new double[] {5, 6});
        assertEquals(List.of(1.0, 2.0), List.of(firstOnly.result()[0], firstOnly.result()[1]));
    }

    @Test
    void anUnknownNameListsTheKnownOnesAndANameIsDefinedOnce() {
        IllegalArgumentException unknown = assertThrows(
                IllegalArgumentException.class, () -> TrainerRules.aggregators().find("median"));
        assertEquals("unknown aggregator 'median'; known: mean, trimmed-mean, first-only", unknown.getMessage());

        IllegalArgumentException twice = assertThrows(
                IllegalArgumentException.class,
                () -> ExtensionRegistry.of(
                        "aggregator",
                        List.of(new BuiltInRules(), new FirstOnlyAggregatorProvider()),
                        p -> List.of(MeanAggregator.DEFINITION),
                        AggregatorDefinition::name));
        assertEquals(
                "aggregator 'mean' is defined twice: by io.ata.trainer.BuiltInRules and by "
                        + FirstOnlyAggregatorProvider.class.getName(),
                twice.getMessage());
        assertThrows(
                IllegalArgumentException.class,
                () -> TrainerRules.aggregators().find("trimmed-mean").create(new AggregatorSettings(0.5)),
                "the rule still checks its settings");
    }

    @Test
    void optimizersTakeTheirDefaultsAndRefuseSettingsOfAnotherRule() {
        ExtensionRegistry<OptimizerDefinition> registry = TrainerRules.optimizers();
        assertEquals(List.of("sgd", "adam"), registry.names());
        assertEquals(
                new SgdOptimizer(SgdOptimizer.DEFAULT_LEARNING_RATE_QUADRATIC, 0, 0),
                registry.find("sgd").create(OptimizerSettings.defaults(false)));
        assertEquals(
                new SgdOptimizer(SgdOptimizer.DEFAULT_LEARNING_RATE_NETWORK, 0, 0),
                registry.find("sgd").create(OptimizerSettings.defaults(true)));
        assertEquals(
                new AdamOptimizer(0.5, 0.8, AdamOptimizer.DEFAULT_BETA2, AdamOptimizer.DEFAULT_EPSILON, 0.01),
                registry.find("adam").create(new OptimizerSettings(0.5, null, 0.01, 0.8, null, null, true)));

        IllegalArgumentException momentum = assertThrows(
                IllegalArgumentException.class,
                () -> registry.find("adam").create(new OptimizerSettings(null, 0.9, null, null, null, null, true)));
        assertTrue(momentum.getMessage().contains("momentum applies to the sgd optimizer only"), momentum.getMessage());
        IllegalArgumentException beta = assertThrows(
                IllegalArgumentException.class,
                () -> registry.find("sgd").create(new OptimizerSettings(null, null, null, 0.8, null, null, true)));
        assertTrue(beta.getMessage().contains("apply to the adam optimizer only"), beta.getMessage());
        IllegalArgumentException unknown = assertThrows(
                IllegalArgumentException.class, () -> registry.find("lion").create(OptimizerSettings.defaults(true)));
        assertEquals("unknown optimizer 'lion'; known: sgd, adam", unknown.getMessage());
    }
}
