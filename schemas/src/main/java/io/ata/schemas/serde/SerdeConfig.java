package io.ata.schemas.serde;

import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.schemas.registry.RestSchemaRegistryClient;
import io.ata.schemas.registry.SchemaRegistryClient;
import java.time.Duration;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The client properties our serdes read when Kafka creates them by class name and calls
 * {@code configure(configs, isKey)}, e.g. in a properties file:
 * <pre>
 *   value.deserializer=io.ata.schemas.serde.AvroDeserializer
 *   schema.registry.url=http://localhost:8081
 *   ata.avro.record.class=io.ata.schemas.TaskTiming
 * </pre>
 * Names shared with Confluent's serdes ({@code schema.registry.url}, {@code basic.auth.*},
 * {@code auto.register.schemas}) mean the same; ours start with {@code ata.}.
 */
public final class SerdeConfig {

    /**
     * Where the registry is: {@code http(s)://host:port} for a real one, or
     * {@code embedded://NAME} for an {@link EmbeddedSchemaRegistry} bound to NAME in this JVM.
     */
    public static final String SCHEMA_REGISTRY_URL = "schema.registry.url";

    /** URL prefix selecting an {@link EmbeddedSchemaRegistry#bind(String) bound} embedded registry. */
    public static final String EMBEDDED_URL_PREFIX = "embedded://";

    /** Generated class of the values, e.g. {@code io.ata.schemas.TaskTiming}. */
    public static final String RECORD_CLASS = "ata.avro.record.class";

    /** Generated class of the keys, for the rare Avro key (ours are Strings). */
    public static final String KEY_RECORD_CLASS = "ata.avro.key.record.class";

    /** Basic auth credentials {@code user:password} for a secured registry. */
    public static final String BASIC_AUTH_USER_INFO = "basic.auth.user.info";

    /** Same as {@link #BASIC_AUTH_USER_INFO}, the spelling some Confluent tools use. */
    public static final String SCHEMA_REGISTRY_BASIC_AUTH_USER_INFO = "schema.registry.basic.auth.user.info";

    /** Where credentials come from; only {@code USER_INFO} (the default) is supported. */
    public static final String BASIC_AUTH_CREDENTIALS_SOURCE = "basic.auth.credentials.source";

    /** Milliseconds to connect to the registry (default 10000). */
    public static final String CONNECT_TIMEOUT_MS = "ata.schema.registry.connect.timeout.ms";

    /** Milliseconds to wait for each registry answer (default 30000). */
    public static final String REQUEST_TIMEOUT_MS = "ata.schema.registry.request.timeout.ms";

    /**
     * {@code true} (default): the serializer registers its schema. {@code false}: it only looks it
     * up, for registries where producers have read-only credentials.
     */
    public static final String AUTO_REGISTER_SCHEMAS = "auto.register.schemas";

    private SerdeConfig() {}

    /** {@code given}, the registry a serde was built with, or else the one {@code configs} describe. */
    static SchemaRegistryClient registryClient(SchemaRegistryClient given, Map<String, ?> configs) {
        return given != null ? given : registryClient(configs);
    }

    /** The registry client {@code configs} describe. */
    public static SchemaRegistryClient registryClient(Map<String, ?> configs) {
        String configured = string(configs, SCHEMA_REGISTRY_URL);
        if (configured == null || configured.isBlank()) {
            throw new ConfigException(
                    SCHEMA_REGISTRY_URL + " is required: http://host:port or " + EMBEDDED_URL_PREFIX + "NAME");
        }
        String url = configured.strip();
        if (url.startsWith(EMBEDDED_URL_PREFIX)) {
            String name = url.substring(EMBEDDED_URL_PREFIX.length());
            return EmbeddedSchemaRegistry.bound(name)
                    .orElseThrow(() -> new ConfigException(
                            SCHEMA_REGISTRY_URL,
                            url,
                            "no EmbeddedSchemaRegistry is bound to the name '" + name
                                    + "' in this JVM; call EmbeddedSchemaRegistry.bind(\"" + name + "\") first"));
        }
        String source = string(configs, BASIC_AUTH_CREDENTIALS_SOURCE);
        if (source != null && !source.isBlank() && !source.strip().equals("USER_INFO")) {
            throw new ConfigException(
                    BASIC_AUTH_CREDENTIALS_SOURCE,
                    source,
                    "only USER_INFO is supported: give credentials in " + BASIC_AUTH_USER_INFO);
        }
        String userInfo = string(configs, BASIC_AUTH_USER_INFO);
        if (userInfo == null) {
            userInfo = string(configs, SCHEMA_REGISTRY_BASIC_AUTH_USER_INFO);
        }
        try {
            RestSchemaRegistryClient.Builder builder = RestSchemaRegistryClient.builder(url)
                    .basicAuth(userInfo == null || userInfo.isBlank() ? null : userInfo);
            Long connectMs = millis(configs, CONNECT_TIMEOUT_MS);
            if (connectMs != null) {
                builder.connectTimeout(Duration.ofMillis(connectMs));
            }
            Long requestMs = millis(configs, REQUEST_TIMEOUT_MS);
            if (requestMs != null) {
                builder.requestTimeout(Duration.ofMillis(requestMs));
            }
            return builder.build();
        } catch (IllegalArgumentException e) {
            // not the value itself: it may hold credentials
            throw new ConfigException("invalid Schema Registry settings: " + e.getMessage());
        }
    }

    /**
     * The generated record class named by {@link #RECORD_CLASS} (or {@link #KEY_RECORD_CLASS} for
     * a key serde); the value may be a class name or a {@code Class}.
     */
    public static <T extends SpecificRecord> Class<T> recordClass(Map<String, ?> configs, boolean isKey) {
        String key = isKey ? KEY_RECORD_CLASS : RECORD_CLASS;
        Object value = configs.get(key);
        if (value == null) {
            throw new ConfigException(
                    key + " is required: the generated Avro class, e.g. " + "io.ata.schemas.TaskTiming");
        }
        Class<?> type;
        if (value instanceof Class<?> given) {
            type = given;
        } else {
            String name = value.toString().strip();
            try {
                type = Class.forName(name, true, classLoader());
            } catch (ClassNotFoundException e) {
                throw new ConfigException(key, name, "class not found");
            }
        }
        if (!SpecificRecord.class.isAssignableFrom(type)) {
            throw new ConfigException(
                    key, type.getName(), "not a generated Avro record class (does not implement SpecificRecord)");
        }
        @SuppressWarnings("unchecked") // checked just above
        Class<T> recordClass = (Class<T>) type;
        return recordClass;
    }

    /** {@link #AUTO_REGISTER_SCHEMAS}, default {@code true}. */
    public static boolean autoRegister(Map<String, ?> configs) {
        Object value = configs.get(AUTO_REGISTER_SCHEMAS);
        if (value == null) {
            return true;
        }
        String text = value.toString().strip();
        if (text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(text);
        }
        throw new ConfigException(AUTO_REGISTER_SCHEMAS, value, "expected true or false");
    }

    private static String string(Map<String, ?> configs, String key) {
        Object value = configs.get(key);
        if (value == null) {
            return null;
        }
        return value instanceof Password password ? password.value() : value.toString();
    }

    private static Long millis(Map<String, ?> configs, String key) {
        Object value = configs.get(key);
        if (value == null) {
            return null;
        }
        try {
            long ms = value instanceof Number number
                    ? number.longValue()
                    : Long.parseLong(value.toString().strip());
            if (ms <= 0) {
                throw new ConfigException(key, value, "must be a positive number of milliseconds");
            }
            return ms;
        } catch (NumberFormatException e) {
            throw new ConfigException(key, value, "must be a number of milliseconds");
        }
    }

    private static ClassLoader classLoader() {
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        return context != null ? context : SerdeConfig.class.getClassLoader();
    }
}
