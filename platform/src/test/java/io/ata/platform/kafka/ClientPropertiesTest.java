package io.ata.platform.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The user's client properties: reading, collecting, and merging them with a client's fixed settings. */
class ClientPropertiesTest {

    @TempDir
    Path dir;

    @Test
    void loadsAPropertiesFileWithStrippedValuesInUtf8() throws IOException {
        Path file = dir.resolve("client.properties");
        Files.writeString(
                file,
                String.join(
                        "\n",
                        "# a comment",
                        "security.protocol = SASL_SSL   ",
                        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
                                + "username=\"u\" password=\"pässword\";",
                        "schema.registry.url=http://registry:8081",
                        ""),
                StandardCharsets.UTF_8);

        ClientProperties p = ClientProperties.load(file);

        assertEquals(
                Map.of(
                        "security.protocol", "SASL_SSL",
                        "sasl.jaas.config",
                                "org.apache.kafka.common.security.plain.PlainLoginModule required "
                                        + "username=\"u\" password=\"pässword\";",
                        "schema.registry.url", "http://registry:8081"),
                p.asMap());
    }

    @Test
    void loadingAMissingFileFailsWithTheIoError() {
        assertThrows(NoSuchFileException.class, () -> ClientProperties.load(dir.resolve("missing.properties")));
    }

    @Test
    void aLineWithoutANameIsRefusedNamingTheFile() throws IOException {
        Path file = dir.resolve("bad.properties");
        Files.writeString(file, "=SASL_SSL\n", StandardCharsets.UTF_8);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClientProperties.load(file));
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
    }

    @Test
    void aLaterValueReplacesAnEarlierOneAndTheOrderIsKept() {
        Properties fromFile = new Properties();
        fromFile.setProperty("request.timeout.ms", "5000");
        ClientProperties p = ClientProperties.builder()
                .put("security.protocol", "SSL")
                .put("request.timeout.ms", 1000)
                .putAll(fromFile)
                .putAll(Map.of("security.protocol", "SASL_SSL"))
                .build();

        assertEquals(
                List.of("security.protocol", "request.timeout.ms"),
                List.copyOf(p.asMap().keySet()));
        assertEquals("SASL_SSL", p.asMap().get("security.protocol"));
        assertEquals("5000", p.asMap().get("request.timeout.ms"));
    }

    @Test
    void namesMustBeGivenAndValuesPresent() {
        ClientProperties.Builder b = ClientProperties.builder();
        assertThrows(IllegalArgumentException.class, () -> b.put(" ", "x"));
        assertThrows(IllegalArgumentException.class, () -> b.put(null, "x"));
        NullPointerException e = assertThrows(NullPointerException.class, () -> b.put("ssl.keystore.location", null));
        assertTrue(e.getMessage().contains("ssl.keystore.location"), e.getMessage());
        Map<String, Object> withNull = new LinkedHashMap<>();
        withNull.put("acks", null);
        assertThrows(NullPointerException.class, () -> ClientProperties.of(withNull));
    }

    @Test
    void isImmutable() {
        Map<String, Object> source = new LinkedHashMap<>(Map.of("security.protocol", "SSL"));
        ClientProperties p = ClientProperties.of(source);
        source.put("security.protocol", "PLAINTEXT");

        assertEquals("SSL", p.asMap().get("security.protocol"));
        assertThrows(UnsupportedOperationException.class, () -> p.asMap().put("acks", "0"));
    }

    @Test
    void theClientsConfigurationIsTheUsersPropertiesThenBootstrapServersThenTheFixedSettings() {
        ClientProperties user = ClientProperties.of(Map.of(
                "security.protocol", "SASL_SSL",
                "bootstrap.servers", "ignored:9092",
                "isolation.level", "read_uncommitted",
                "max.poll.records", 500));

        Map<String, Object> config =
                user.forClient("kafka:9092", Map.of("isolation.level", "read_committed", "enable.auto.commit", false));

        assertEquals(
                Map.of(
                        "security.protocol", "SASL_SSL",
                        "bootstrap.servers", "kafka:9092",
                        "isolation.level", "read_committed",
                        "enable.auto.commit", false,
                        "max.poll.records", 500),
                config);
        config.remove("max.poll.records"); // the caller's own copy ...
        assertEquals(500, user.asMap().get("max.poll.records")); // ... not the user's properties
    }

    @Test
    void aClientNeedsBootstrapServers() {
        assertThrows(
                IllegalArgumentException.class, () -> ClientProperties.none().forClient(" "));
        assertEquals(
                Map.of("bootstrap.servers", "kafka:9092"),
                ClientProperties.none().forClient("kafka:9092"));
    }

    @Test
    void theRegistrysSettingsAreNotForKafkasClients() {
        ClientProperties p = ClientProperties.of(Map.of(
                "security.protocol", "SASL_SSL",
                "schema.registry.url", "http://registry:8081",
                "schema.registry.basic.auth.user.info", "u:p",
                "basic.auth.user.info", "u:p",
                "basic.auth.credentials.source", "USER_INFO",
                "ata.schema.registry.request.timeout.ms", "1000",
                "auto.register.schemas", "false"));

        assertEquals(
                Map.of("security.protocol", "SASL_SSL"),
                p.withoutRegistrySettings().asMap());
        ClientProperties kafkaOnly = ClientProperties.of(Map.of("security.protocol", "SASL_SSL"));
        assertSame(kafkaOnly, kafkaOnly.withoutRegistrySettings());
    }

    @Test
    void toStringShowsTheNamesButNoValue() {
        String text = ClientProperties.of(Map.of("sasl.jaas.config", "password=\"secret\""))
                .toString();
        assertTrue(text.contains("sasl.jaas.config"), text);
        assertFalse(text.contains("secret"), text);
    }
}
