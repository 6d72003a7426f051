package io.ata.allocation.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.allocation.WorkerStats;
import java.util.List;
import org.junit.jupiter.api.Test;

class PolicyRegistryTest {
    /** The names and order of the policy list before the registry: help texts must not change (but grow). */
    private static final List<String> BUILT_IN = List.of(
            "fta",
            "uta",
            "gta",
            "ata",
            "ata-empirical",
            "ata-auto",
            "ata-auto-no-drift", // added with drift handling, as the ablation
            "ata-auto-no-backup", // added with backup tasks, as the ablation
            "ata-auto-overhead", // added with overhead-aware allocation, opt-in
            "ata-auto-subtractive",
            "ata-ert",
            "ata-hedge:R",
            "proportional",
            "adaptive-proportional");

    private static final PolicyContext CONTEXT =
            new PolicyContext(5, 3, new double[] {1, 2, 3, 4, 5}, ConstantConvention.PAPER, 10, 0.8, "user");

    private final PolicyRegistry builtIn = PolicyRegistry.of(List.of(new BuiltInPolicies()));

    @Test
    void theBuiltInPoliciesKeepTheirNamesAndOrder() {
        assertEquals(BUILT_IN, builtIn.labels());
        for (PolicyDefinition definition : builtIn.definitions()) {
            assertFalse(definition.description().isBlank(), definition.label());
        }
        assertEquals(
                "ata-auto refined to minimise the expected round time",
                builtIn.find("ata-ert").description());
    }

    @Test
    void everyBuiltInNameBuildsThePolicyOfThatName() {
        for (String name : builtIn.parseList(String.join(",", BUILT_IN).replace("ata-hedge:R", "ata-hedge:2"))) {
            AllocationPolicy policy = builtIn.create(name, CONTEXT, 1, new WorkerStats(5));
            assertEquals(name, policy.name());
        }
        assertInstanceOf(ExpectedTimePolicy.class, builtIn.create("ata-ert", CONTEXT, 1, new WorkerStats(5)));
        assertInstanceOf(FixedAllocationPolicy.class, builtIn.create("proportional", CONTEXT, 1, new WorkerStats(5)));
    }

    @Test
    void anUnknownNameIsRejectedWithTheKnownOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> builtIn.parseList("ata,bogus"));
        assertEquals(
                "unknown policy 'bogus'; known: fta, uta, gta, ata, ata-empirical, ata-auto, ata-auto-no-drift,"
                        + " ata-auto-no-backup, ata-auto-overhead, ata-auto-subtractive,"
                        + " ata-ert, ata-hedge:R, proportional, adaptive-proportional",
                e.getMessage());
        e = assertThrows(
                IllegalArgumentException.class, () -> builtIn.create("ata-hedge", CONTEXT, 1, new WorkerStats(5)));
        assertTrue(e.getMessage().startsWith("unknown policy 'ata-hedge'; known: fta,"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> builtIn.parseList(" , "));
        assertTrue(e.getMessage().startsWith("no policy given; known: fta, uta,"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> builtIn.parseList("gta,GTA"));
        assertEquals("policy 'gta' listed twice", e.getMessage());
    }

    @Test
    void parseListTrimsLowerCasesAndKeepsTheOrder() {
        assertEquals(List.of("gta", "ata-hedge:3", "fta"), builtIn.parseList(" GTA, ata-hedge:3,,fta "));
    }

    @Test
    void theHedgeParameterIsCheckedBeforeAnythingIsBuilt() {
        AllocationPolicy hedged = builtIn.create("ata-hedge:4", CONTEXT, 1, new WorkerStats(5));
        assertEquals(3 + 4, hedged.plan(1).queuedTasks(), "B + R tasks queued");
        assertEquals(3, hedged.plan(1).quota(), "first B kept");
        assertEquals(
                3,
                builtIn.create("ata-hedge:0", CONTEXT, 1, new WorkerStats(5))
                        .plan(1)
                        .queuedTasks());
        for (String bad : List.of("ata-hedge:-1", "ata-hedge:x", "ata-hedge:", "ata-hedge:r")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> builtIn.parseList(bad));
            assertEquals("'" + bad + "': the number of extra tasks must be an integer >= 0", e.getMessage());
        }
    }

    @Test
    void eachPolicyGetsItsOwnSeedDerivedFromTheRunsSeedAndItsName() {
        long seed = 17;
        WorkerStats stats = new WorkerStats(10);
        AllocationPolicy uta = builtIn.create("uta", CONTEXT, seed, stats);
        UniformPolicy expected = new UniformPolicy(stats, 3, seed * 0x9E3779B97F4A7C15L + "uta".hashCode());
        for (long round = 1; round <= 20; round++) {
            assertArrayEquals(expected.plan(round).toArray(10), uta.plan(round).toArray(10), "round " + round);
        }
        ThirdPartyPolicies.Rotating rotating =
                (ThirdPartyPolicies.Rotating) PolicyRegistry.standard().create("test-rotating", CONTEXT, seed, stats);
        assertEquals(seed * 0x9E3779B97F4A7C15L + "test-rotating".hashCode(), rotating.seed(), "same for a provider's");
    }

    @Test
    void theStandardRegistryFindsProvidersOnTheClassPath() {
        PolicyRegistry standard = PolicyRegistry.standard();
        List<String> expected = new java.util.ArrayList<>(BUILT_IN);
        expected.addAll(List.of("test-rotating", "test-all-on:W")); // META-INF/services of the tests
        assertEquals(expected, standard.labels());
        assertEquals(List.of("test-all-on:2", "ata-auto"), PolicyFactory.parseList("test-all-on:2,ata-auto"));
        AllocationPolicy allOn = PolicyFactory.create("test-all-on:2", CONTEXT, 1, new WorkerStats(5));
        assertArrayEquals(new int[] {0, 0, 3, 0, 0}, allOn.plan(1).toArray(5));
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> PolicyFactory.parseList("test-all-on:two"));
        assertEquals("'test-all-on:two': W must be a worker index", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> PolicyFactory.parseList("nope"));
        assertTrue(e.getMessage().endsWith("adaptive-proportional, test-rotating, test-all-on:W"), e.getMessage());
    }

    @Test
    void aNameDefinedTwiceIsRejected() {
        PolicyProvider another = () -> List.of(PolicyDefinition.named(
                "ata-auto", "a second ata-auto", (name, context, seed, stats) -> new GreedyPolicy(stats, 1)));
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> PolicyRegistry.of(List.of(new BuiltInPolicies(), another)));
        assertTrue(
                e.getMessage()
                        .startsWith(
                                "policy 'ata-auto' is defined twice: by io.ata.allocation.policy.BuiltInPolicies and by "),
                e.getMessage());

        PolicyProvider plainHedge = () -> List.of(PolicyDefinition.named(
                "ata-hedge", "a plain name that a parameterised one already uses", (n, c, s, w) -> null));
        e = assertThrows(
                IllegalArgumentException.class, () -> PolicyRegistry.of(List.of(new BuiltInPolicies(), plainHedge)));
        assertTrue(e.getMessage().startsWith("policy 'ata-hedge' is defined twice"), e.getMessage());

        PolicyProvider twiceInOne = () -> List.of(
                PolicyDefinition.named("x", "one", (n, c, s, w) -> null),
                PolicyDefinition.named("x", "two", (n, c, s, w) -> null));
        assertThrows(IllegalArgumentException.class, () -> PolicyRegistry.of(List.of(twiceInOne)));
    }

    @Test
    void definitionsNeedListableNamesAndOneLineDescriptions() {
        PolicyDefinition.Factory any = (n, c, s, w) -> null;
        for (String bad : List.of("Ata", "a:b", "a,b", "a b", "", "-a")) {
            assertThrows(
                    IllegalArgumentException.class, () -> PolicyDefinition.named(bad, "d", any), "name '" + bad + "'");
        }
        assertThrows(IllegalArgumentException.class, () -> PolicyDefinition.named("a", " ", any));
        assertThrows(IllegalArgumentException.class, () -> PolicyDefinition.named("a", "two\nlines", any));
        assertThrows(
                IllegalArgumentException.class,
                () -> PolicyDefinition.withParameter("a", "R,S", "d", (name, argument) -> {}, any));
    }

    @Test
    void aPolicyMustCarryTheNameItWasAskedFor() {
        PolicyRegistry misnamed = PolicyRegistry.of(List.of(() -> List.of(PolicyDefinition.named(
                "my-greedy", "gta under another name", (name, context, seed, stats) -> new GreedyPolicy(stats, 1)))));
        IllegalStateException e = assertThrows(
                IllegalStateException.class, () -> misnamed.create("my-greedy", CONTEXT, 1, new WorkerStats(5)));
        assertEquals("the definition of 'my-greedy' built a policy named 'gta'", e.getMessage());
    }
}
