package io.ata.platform.kafka;

import io.ata.schemas.serde.SerdeConfig;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeSet;
import org.apache.kafka.clients.CommonClientConfigs;

/**
 * The Kafka client properties a user gives a part of the system (security settings such as
 * {@code security.protocol}, {@code sasl.*}, {@code ssl.*}; timeouts), and how one of the part's
 * clients gets its configuration from them: the user's properties first, then
 * {@code bootstrap.servers}, then the settings the client's correctness rests on, which the user
 * cannot override ({@link #forClient}).
 *
 * <p>Immutable. Every name is non-blank and every value non-null; names keep the order they were
 * given in. {@link #toString()} shows the names only, since values may be secrets.
 */
public final class ClientProperties {
    private static final ClientProperties NONE = new ClientProperties(new LinkedHashMap<>());

    private final Map<String, Object> values;

    private ClientProperties(LinkedHashMap<String, Object> values) {
        this.values = Collections.unmodifiableMap(values);
    }

    /** No properties. */
    public static ClientProperties none() {
        return NONE;
    }

    /**
     * The properties of {@code properties}.
     *
     * @throws IllegalArgumentException if a name is blank
     * @throws NullPointerException if a name or value is null
     */
    public static ClientProperties of(Map<String, ?> properties) {
        return builder().putAll(properties).build();
    }

    /**
     * Reads a client properties file, as Kafka's tools read {@code --command-config}: the Java
     * properties format in UTF-8, each value without surrounding white space. The file may also
     * hold the Schema Registry's settings ({@link #withoutRegistrySettings()}).
     *
     * @throws IOException if the file cannot be read
     * @throws IllegalArgumentException if a line sets a property without a name
     */
    public static ClientProperties load(Path file) throws IOException {
        Properties loaded = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            loaded.load(r);
        }
        Builder b = builder();
        for (String name : new TreeSet<>(loaded.stringPropertyNames())) {
            if (name.isBlank()) {
                throw new IllegalArgumentException(file + ": a line sets a property without a name");
            }
            b.put(name, loaded.getProperty(name).strip());
        }
        return b.build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The properties, unmodifiable, in the order they were given. */
    public Map<String, Object> asMap() {
        return values;
    }

    /**
     * The properties meant for Kafka's clients: all but the Schema Registry's
     * ({@code schema.registry.*}, {@code basic.auth.*}, {@code ata.schema.registry.*},
     * {@code auto.register.schemas}; see {@link SerdeConfig}), which Kafka's clients would only
     * warn about.
     */
    public ClientProperties withoutRegistrySettings() {
        LinkedHashMap<String, Object> kept = new LinkedHashMap<>(values);
        kept.keySet().removeIf(ClientProperties::isRegistrySetting);
        return kept.size() == values.size() ? this : new ClientProperties(kept);
    }

    private static boolean isRegistrySetting(String name) {
        return name.startsWith("schema.registry.")
                || name.startsWith("basic.auth.")
                || name.startsWith("ata.schema.registry.")
                || name.equals(SerdeConfig.AUTO_REGISTER_SCHEMAS);
    }

    /** The configuration of a client of the cluster at {@code bootstrapServers}, with nothing fixed. */
    public Map<String, Object> forClient(String bootstrapServers) {
        return forClient(bootstrapServers, Map.of());
    }

    /**
     * The configuration of one client: these properties, then {@code bootstrap.servers}, then
     * {@code fixed}, which override both. A new, modifiable map, for settings that depend on others
     * (e.g. one only set when the user did not choose another).
     *
     * @throws IllegalArgumentException if {@code bootstrapServers} is blank
     */
    public Map<String, Object> forClient(String bootstrapServers, Map<String, ?> fixed) {
        if (bootstrapServers == null || bootstrapServers.isBlank()) {
            throw new IllegalArgumentException("bootstrap servers must not be blank");
        }
        Map<String, Object> config = new HashMap<>(values);
        config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.putAll(fixed);
        return config;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ClientProperties other && values.equals(other.values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    /** The names only: values such as {@code sasl.jaas.config} hold passwords. */
    @Override
    public String toString() {
        return "ClientProperties" + values.keySet();
    }

    /** Collects properties; a later value of a name replaces the earlier one. */
    public static final class Builder {
        private final LinkedHashMap<String, Object> values = new LinkedHashMap<>();

        private Builder() {}

        /**
         * Sets one property.
         *
         * @throws IllegalArgumentException if {@code name} is null or blank
         * @throws NullPointerException if {@code value} is null
         */
        public Builder put(String name, Object value) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("client property name must not be blank");
            }
            values.put(name, Objects.requireNonNull(value, () -> "client property " + name + " has no value"));
            return this;
        }

        /** Sets every property of {@code properties}, as {@link #put} does. */
        public Builder putAll(Map<String, ?> properties) {
            properties.forEach(this::put);
            return this;
        }

        /** Sets every property of {@code properties} (with its defaults), as {@link #put} does. */
        public Builder putAll(Properties properties) {
            properties.stringPropertyNames().forEach(name -> put(name, properties.getProperty(name)));
            return this;
        }

        public ClientProperties build() {
            return values.isEmpty() ? NONE : new ClientProperties(new LinkedHashMap<>(values));
        }
    }
}
