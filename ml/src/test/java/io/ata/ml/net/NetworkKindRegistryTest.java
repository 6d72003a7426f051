package io.ata.ml.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class NetworkKindRegistryTest {

    /** A kind named {@code name} that is otherwise test-tanh. */
    private static NetworkKind named(String name) {
        return new Delegate(TanhKind.INSTANCE) {
            @Override
            public String name() {
                return name;
            }
        };
    }

    @Test
    void theStandardRegistryHasTheBuiltInKindsThenTheProviders() {
        NetworkKindRegistry standard = NetworkKindRegistry.standard();
        // test-tanh: META-INF/services of the tests
        assertEquals(List.of("mlp", "cnn", "test-tanh"), standard.names());
        assertSame(NetworkSpec.mlp().kind(), standard.find("mlp"));
        assertSame(NetworkSpec.cnn().kind(), standard.find("CNN"));
        assertSame(TanhKind.INSTANCE, standard.find("test-tanh"));
        assertSame(TanhKind.INSTANCE, NetworkSpec.parse("test-tanh:4").kind());
    }

    @Test
    void anUnknownNameIsAnErrorListingTheKnownOnes() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> NetworkKindRegistry.standard().find("rnn"));
        assertEquals("unknown network kind 'rnn'; known: mlp, cnn, test-tanh", e.getMessage());

        e = assertThrows(IllegalArgumentException.class, () -> NetworkSpec.parse("rnn:64,in=28x28"));
        assertEquals(
                "network 'rnn:64,in=28x28': unknown network kind 'rnn'; known: mlp, cnn, test-tanh"
                        + " (expected mlp|cnn|test-tanh[:N,...][,in=DxD...][,classes=N], e.g. mlp:4096,2048)",
                e.getMessage());

        // without the provider, its kind is unknown: an agent without the jar refuses the text
        NetworkKindRegistry builtIn = NetworkKindRegistry.of(List.of(new BuiltInNetworkKinds()));
        e = assertThrows(IllegalArgumentException.class, () -> builtIn.parse("test-tanh:4", List.of(6), 3));
        assertTrue(
                e.getMessage()
                        .startsWith("network 'test-tanh:4': unknown network kind 'test-tanh'; known: mlp, cnn"
                                + " (expected mlp|cnn[:N,...]"),
                e.getMessage());
    }

    @Test
    void aNameDefinedTwiceIsRefused() {
        NetworkKindProvider anotherMlp = () -> List.of(named("mlp"));
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> NetworkKindRegistry.of(List.of(new BuiltInNetworkKinds(), anotherMlp)));
        assertTrue(
                e.getMessage()
                        .startsWith(
                                "network kind 'mlp' is defined twice: by io.ata.ml.net.BuiltInNetworkKinds and by "),
                e.getMessage());

        e = assertThrows(
                IllegalArgumentException.class,
                () -> NetworkKindRegistry.of(List.of(new ThirdPartyNetworkKinds(), new ThirdPartyNetworkKinds())));
        assertEquals(
                "network kind 'test-tanh' is defined twice: by io.ata.ml.net.ThirdPartyNetworkKinds and by"
                        + " io.ata.ml.net.ThirdPartyNetworkKinds",
                e.getMessage());

        NetworkKindProvider twiceInOne = () -> List.of(named("x"), named("x"));
        assertThrows(IllegalArgumentException.class, () -> NetworkKindRegistry.of(List.of(twiceInOne)));
    }

    @Test
    void namesMustFitTheTextForm() {
        for (String bad : Arrays.asList("Mlp", "a:b", "a,b", "a b", "", "-a", "1a", null)) {
            NetworkKindProvider provider = () -> List.of(named(bad));
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class,
                    () -> NetworkKindRegistry.of(List.of(provider)),
                    "name '" + bad + "'");
            assertTrue(e.getMessage().startsWith("network kind name '" + bad + "' of "), e.getMessage());
        }
    }

    @Test
    void aKindsInitialValuesMustFitItsLayout() {
        NetworkKind short1 = new Delegate(TanhKind.INSTANCE) {
            @Override
            public float[] initialParameters(ParameterLayout layout, long seed) {
                return new float[layout.totalSize() - 1];
            }
        };
        NetworkSpec spec = new NetworkSpec(short1, List.of(2), List.of(3), 2, NetworkSpec.FLOAT32);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> spec.initialParameters(1));
        assertEquals("the network kind 'test-tanh' made 16 initial values for 17 parameters", e.getMessage());
    }

    /** Another kind's behaviour, for variations of it. */
    private static class Delegate implements NetworkKind {
        private final NetworkKind inner;

        Delegate(NetworkKind inner) {
            this.inner = inner;
        }

        @Override
        public String name() {
            return inner.name();
        }

        @Override
        public String description() {
            return inner.description();
        }

        @Override
        public List<Integer> presetHidden() {
            return inner.presetHidden();
        }

        @Override
        public void check(NetworkSpec spec) {
            inner.check(spec);
        }

        @Override
        public List<Layer> layers(NetworkSpec spec) {
            return inner.layers(spec);
        }
    }
}
