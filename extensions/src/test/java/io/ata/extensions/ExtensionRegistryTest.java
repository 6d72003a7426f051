package io.ata.extensions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Rules found by name: the built-in ones first, then the providers' on the class path, a name defined once. */
class ExtensionRegistryTest {
    /** A definition: a name and what it makes. */
    record Greeting(String name, String text) {}

    /** The kind of provider a module declares. */
    public interface GreetingProvider {
        List<Greeting> greetings();
    }

    static final Greeting HELLO = new Greeting("hello", "Hello!");
    static final Greeting HI = new Greeting("Hi", "Hi!");

    static final class BuiltIn implements GreetingProvider {
        @Override
        public List<Greeting> greetings() {
            return List.of(HELLO, HI);
        }
    }

    /** Listed in META-INF/services of the test resources, as another jar would list it. */
    public static final class Another implements GreetingProvider {
        @Override
        public List<Greeting> greetings() {
            return List.of(new Greeting("howdy", "Howdy!"));
        }
    }

    private static ExtensionRegistry<Greeting> standard() {
        return ExtensionRegistry.load(
                "greeting", new BuiltIn(), GreetingProvider.class, GreetingProvider::greetings, Greeting::name);
    }

    @Test
    void theBuiltInOnesComeFirstThenEveryProviderOnTheClassPath() {
        ExtensionRegistry<Greeting> registry = standard();
        assertEquals(List.of("hello", "hi", "howdy"), registry.names());
        assertEquals("Howdy!", registry.definitions().get(2).text());
        assertEquals("greeting", registry.kind());
    }

    @Test
    void aNameIsFoundInAnyCaseAndAnUnknownOneListsTheKnown() {
        ExtensionRegistry<Greeting> registry = standard();
        assertSame(HI, registry.find("hi"));
        assertSame(HELLO, registry.find(" HELLO "));
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> registry.find("bye"));
        assertEquals("unknown greeting 'bye'; known: hello, hi, howdy", unknown.getMessage());
    }

    @Test
    void aNameIsDefinedOnceInAnyCaseAndEveryDefinitionHasOne() {
        GreetingProvider shouting = () -> List.of(new Greeting("HELLO", "HELLO!"));
        IllegalArgumentException twice = assertThrows(
                IllegalArgumentException.class,
                () -> ExtensionRegistry.of(
                        "greeting", List.of(new BuiltIn(), shouting), GreetingProvider::greetings, Greeting::name));
        assertEquals(
                "greeting 'hello' is defined twice: by " + BuiltIn.class.getName() + " and by "
                        + shouting.getClass().getName(),
                twice.getMessage());

        GreetingProvider nameless = () -> List.of(new Greeting(" ", "..."));
        IllegalArgumentException noName = assertThrows(
                IllegalArgumentException.class,
                () -> ExtensionRegistry.of("greeting", List.of(nameless), GreetingProvider::greetings, Greeting::name));
        assertEquals("a greeting of " + nameless.getClass().getName() + " has no name", noName.getMessage());
    }
}
