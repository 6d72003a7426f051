package io.ata.schemas.chunk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.Topics;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.junit.jupiter.api.Test;

class ChunksTest {

    @Test
    void countsSlices() {
        assertEquals(1, Chunks.count(0, 10));
        assertEquals(1, Chunks.count(10, 10));
        assertEquals(2, Chunks.count(11, 10));
        assertEquals(45, Chunks.count(40_000_000, Chunks.DEFAULT_CHUNK_BYTES));
        assertThrows(IllegalArgumentException.class, () -> Chunks.count(Integer.MAX_VALUE, 100));
    }

    @Test
    void bytesOfTakesAWrappedArrayAsItIsAndCopiesAView() {
        byte[] whole = {1, 2, 3, 4};
        ByteBuffer wrapped = ByteBuffer.wrap(whole);
        assertSame(whole, Chunks.bytesOf(wrapped), "a buffer over all of an array is not copied");

        ByteBuffer view = ByteBuffer.wrap(whole, 1, 2);
        byte[] part = Chunks.bytesOf(view);
        assertArrayEquals(new byte[] {2, 3}, part);
        assertNotSame(whole, part);
        assertEquals(1, view.position(), "the buffer's position is left as it is");
    }

    @Test
    void keysAndPartitions() {
        assertEquals("j1", Chunks.key("j1", 0, 1));
        assertEquals("j1#3", Chunks.key("j1", 3, 5));
        for (String job : List.of("j1", "demo-ata-auto", "ü")) {
            // the partition Kafka's own partitioner gives the key job
            int kafka = BuiltInPartitioner.partitionForKey(job.getBytes(StandardCharsets.UTF_8), 7);
            assertEquals(kafka, Topics.partitionOfJob(job, 7), job);
        }
    }

    @Test
    void slicesOfABufferAreViewsOfItsRemainingBytes() {
        byte[] bytes = new byte[1_250];
        new Random(7).nextBytes(bytes);
        ByteBuffer payload = ByteBuffer.wrap(bytes, 50, 1_200).slice(); // offset in its array
        payload.position(200); // 1,000 bytes remain: slices of 300, 300, 300, 100
        byte[] remaining = java.util.Arrays.copyOfRange(bytes, 250, 1_250);
        ChunkAssembler<String> assembler = new ChunkAssembler<>(10_000, 1);
        ChunkAssembler.Offer last = null;
        for (int i = 0; i < 4; i++) {
            ByteBuffer slice = Chunks.slice(payload, i, 300);
            assertEquals(i < 3 ? 300 : 100, slice.remaining());
            assertEquals(remaining[i * 300], slice.get(slice.position()), "starts at slice " + i + "'s byte");
            last = assembler.offer("p", i, 4, slice);
        }
        assertEquals(200, payload.position(), "the payload's position is left alone");
        assertArrayEquals(
                remaining, assertInstanceOf(ChunkAssembler.Complete.class, last).payload());
        bytes[250] = 0; // a view, not a copy
        assertEquals(0, Chunks.slice(payload, 0, 300).get(0));
        assertThrows(IndexOutOfBoundsException.class, () -> Chunks.slice(payload, 4, 300));
    }

    @Test
    void slicesReassembleInAnyOrderAndInterleaved() {
        Random random = new Random(4);
        byte[] a = new byte[2_345];
        byte[] b = new byte[1_000];
        random.nextBytes(a);
        random.nextBytes(b);
        record Slice(String key, int chunk, int chunks, ByteBuffer bytes) {}
        List<Slice> slices = new ArrayList<>();
        for (int i = 0; i < Chunks.count(a.length, 500); i++) {
            slices.add(new Slice("a", i, Chunks.count(a.length, 500), Chunks.slice(a, i, 500)));
        }
        for (int i = 0; i < Chunks.count(b.length, 500); i++) {
            slices.add(new Slice("b", i, Chunks.count(b.length, 500), Chunks.slice(b, i, 500)));
        }
        Collections.shuffle(slices, random);
        ChunkAssembler<String> assembler = new ChunkAssembler<>(10_000, 4);
        int complete = 0;
        for (Slice s : slices) {
            ChunkAssembler.Offer offer = assembler.offer(s.key(), s.chunk(), s.chunks(), s.bytes());
            if (offer instanceof ChunkAssembler.Complete whole) {
                assertArrayEquals(s.key().equals("a") ? a : b, whole.payload());
                complete++;
            } else {
                assertInstanceOf(ChunkAssembler.Incomplete.class, offer);
            }
        }
        assertEquals(2, complete);
        assertEquals(0, assembler.incomplete());
    }

    @Test
    void refusesWhatContradictsOrOverflows() {
        ChunkAssembler<String> assembler = new ChunkAssembler<>(100, 1);
        ByteBuffer ten = ByteBuffer.wrap(new byte[10]);
        assertInstanceOf(ChunkAssembler.Refused.class, assembler.offer("x", 2, 2, ten));
        assertInstanceOf(ChunkAssembler.Refused.class, assembler.offer("x", 0, 0, ten));
        assertInstanceOf(ChunkAssembler.Refused.class, assembler.offer("x", 0, 1, ByteBuffer.wrap(new byte[101])));
        assertInstanceOf(ChunkAssembler.Incomplete.class, assembler.offer("x", 0, 3, ten));
        // a second open payload is one too many
        assertInstanceOf(ChunkAssembler.Refused.class, assembler.offer("y", 0, 2, ten));
        ChunkAssembler.Refused twice = assertInstanceOf(ChunkAssembler.Refused.class, assembler.offer("x", 0, 3, ten));
        assertTrue(twice.reason().contains("twice"), twice.reason());
        assertEquals(0, assembler.incomplete()); // the contradicted payload was dropped
        assertInstanceOf(ChunkAssembler.Incomplete.class, assembler.offer("x", 0, 3, ten));
        assertInstanceOf(ChunkAssembler.Refused.class, assembler.offer("x", 1, 4, ten));
        assertInstanceOf(ChunkAssembler.Incomplete.class, assembler.offer("z", 0, 2, ByteBuffer.wrap(new byte[60])));
        ChunkAssembler.Refused big = assertInstanceOf(
                ChunkAssembler.Refused.class, assembler.offer("z", 1, 2, ByteBuffer.wrap(new byte[60])));
        assertTrue(big.reason().contains("larger than the 100 allowed"), big.reason());
    }

    @Test
    void discardsIncompletePayloads() {
        ChunkAssembler<String> assembler = new ChunkAssembler<>(100, 10);
        assembler.offer("round-1/a", 0, 2, ByteBuffer.wrap(new byte[1]));
        assembler.offer("round-2/a", 0, 2, ByteBuffer.wrap(new byte[1]));
        assertEquals(1, assembler.discardIf(k -> k.startsWith("round-1/")));
        assertEquals(1, assembler.incomplete());
    }
}
