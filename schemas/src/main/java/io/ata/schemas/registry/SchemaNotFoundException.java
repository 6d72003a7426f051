package io.ata.schemas.registry;

/**
 * The registry answered that a subject, a version of it, or a schema id does not exist
 * ({@code error_code} 40401, 40402 or 40403). The message says which.
 *
 * <p>A separate type because callers react differently: the deserializer turns an unknown id
 * into a bad-record error, and tools treat an unknown subject as "nothing registered yet".
 */
public class SchemaNotFoundException extends SchemaRegistryException {

    private static final long serialVersionUID = 1L;

    public SchemaNotFoundException(String message, int errorCode) {
        super(message, 404, errorCode);
    }
}
