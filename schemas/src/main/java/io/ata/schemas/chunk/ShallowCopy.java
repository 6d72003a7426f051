package io.ata.schemas.chunk;

import java.util.function.Supplier;
import org.apache.avro.specific.SpecificRecordBase;

/**
 * A record with the same field values as another, the values themselves shared. Not Avro's
 * {@code newBuilder(record)}: the builder deep-copies every field, so a record carrying a payload
 * slice or a whole gradient (megabytes) is copied just to change its {@code chunk} fields; for a
 * 10M-parameter gradient's 45 slices that was 1.8 GB per task (bench-transport measured it).
 */
public final class ShallowCopy {

    private ShallowCopy() {}

    /**
     * @param record the record whose field values to take
     * @param empty a new, empty record of the same class (e.g. {@code TaskResult::new})
     * @return {@code empty}'s record holding {@code record}'s values, to be changed by its setters
     */
    public static <T extends SpecificRecordBase> T of(T record, Supplier<T> empty) {
        T copy = empty.get();
        int fields = record.getSchema().getFields().size();
        for (int i = 0; i < fields; i++) {
            copy.put(i, record.get(i));
        }
        return copy;
    }
}
