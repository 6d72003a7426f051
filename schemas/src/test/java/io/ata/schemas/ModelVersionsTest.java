package io.ata.schemas;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ModelVersionsTest {

    @Test
    void roundKComputesOnVersionKMinusOneAndPublishesVersionK() {
        assertEquals(0, ModelVersions.computedOnBy(1), "round 1 computes on the start, version 0");
        assertEquals(1, ModelVersions.publishedBy(1));
        assertEquals(1, ModelVersions.roundOn(0));
        for (long round = 1; round < 1000; round += 37) {
            assertEquals(round, ModelVersions.roundOn(ModelVersions.computedOnBy(round)));
            assertEquals(
                    ModelVersions.roundOn(ModelVersions.computedOnBy(round)) + 1,
                    ModelVersions.roundOn(ModelVersions.publishedBy(round)),
                    "the next round computes on what this one published");
        }
    }
}
