package io.ata.schemas;

import java.nio.ByteBuffer;
import java.util.List;

/** One filled-in instance of every record type, for round-trip tests. */
public final class SampleRecords {

    private SampleRecords() {}

    public static WorkerHeartbeat heartbeat() {
        return WorkerHeartbeat.newBuilder()
                .setWorkerId("worker-7")
                .setHost("node-3")
                .setDevice(DeviceKind.GPU)
                .setCapacity(2)
                .setPartitions(List.of(0, 5))
                .setStatus(WorkerStatus.ALIVE)
                .setTimestampMs(1_700_000_000_000L)
                .build();
    }

    public static RoundEvent roundClosed() {
        return RoundEvent.newBuilder()
                .setJob("quadratic-1")
                .setRound(12)
                .setType(RoundEventType.CLOSED)
                .setModelVersion(11)
                .setBatch(4)
                .setPolicy("ata")
                .setSeed(42)
                .setTimings(List.of(
                        RoundTiming.newBuilder()
                                .setWorkerId("w1")
                                .setTaskId("quadratic-1/12/0")
                                .setComputeMs(3.25)
                                .setStatus(TimingStatus.COMPLETED)
                                .build(),
                        RoundTiming.newBuilder()
                                .setWorkerId("w2")
                                .setTaskId("quadratic-1/12/1")
                                .setComputeMs(9.5)
                                .setStatus(TimingStatus.CANCELLED)
                                .build()))
                .setRoundTimeMs(10.75)
                .setTimestampMs(1_700_000_000_123L)
                .build();
    }

    public static TaskAssignment assignment() {
        return TaskAssignment.newBuilder()
                .setJob("quadratic-1")
                .setRound(12)
                .setModelVersion(11)
                .setWorkerId("w1")
                .setPartition(3)
                .setTaskIds(List.of("quadratic-1/12/0", "quadratic-1/12/1"))
                .setBatch(4)
                .setPolicy("ata")
                .setCreatedMs(1_700_000_000_001L)
                .build();
    }

    public static TaskTiming timing() {
        return TaskTiming.newBuilder()
                .setJob("quadratic-1")
                .setRound(12)
                .setTaskId("quadratic-1/12/0")
                .setWorkerId("w1")
                .setModelVersion(11)
                .setComputeMs(3.25)
                .setStartMs(1_700_000_000_010L)
                .setEndMs(1_700_000_000_014L)
                .setStatus(TimingStatus.LATE)
                .build();
    }

    public static TaskResult result() {
        return TaskResult.newBuilder()
                .setJob("quadratic-1")
                .setRound(12)
                .setTaskId("quadratic-1/12/0")
                .setWorkerId("w1")
                .setModelVersion(11)
                .setGradient(ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}))
                .setEncoding(TensorEncoding.FLOAT32_LE)
                .setLoss(0.5)
                .setSamples(32)
                .setComputeMs(3.25)
                .build();
    }

    public static ModelVersion model() {
        return ModelVersion.newBuilder()
                .setJob("quadratic-1")
                .setVersion(12)
                .setParameters(ByteBuffer.wrap(new byte[] {9, 8, 7, 6, 5, 4, 3, 2}))
                .setEncoding(TensorEncoding.FLOAT64_LE)
                .setObjective(0.125)
                .setTimestampMs(1_700_000_000_200L)
                .build();
    }

    /** Chunk 0 of 3 of a neural network's model version, with its task description. */
    public static ModelVersion chunkedModel() {
        return ModelVersion.newBuilder()
                .setJob("mlp-1")
                .setVersion(3)
                .setParameters(ByteBuffer.wrap(new byte[] {1, 2, 3, 4}))
                .setEncoding(TensorEncoding.FLOAT32_LE)
                .setChunk(0)
                .setChunks(3)
                .setTask(TaskSpec.newBuilder()
                        .setNetwork("mlp:256,128,in=784,classes=10")
                        .setParameters(List.of(ParameterDescription.newBuilder()
                                .setName("01Linear_weight")
                                .setShape(List.of(256, 784))
                                .build()))
                        .setDataset("synthetic")
                        .setDatasetSize(60_000)
                        .setSamplesPerTask(32)
                        .setSampleSeed(7)
                        .build())
                .setTimestampMs(1_700_000_000_250L)
                .build();
    }

    public static OptimizerState optimizerState() {
        return OptimizerState.newBuilder()
                .setJob("mlp-1")
                .setVersion(3)
                .setOptimizer("adam(lr=0.001,beta1=0.9,beta2=0.999,eps=1e-08,wd=0)")
                .setStep(3)
                .setState(ByteBuffer.wrap(new byte[] {0, 0, (byte) 0x80, 0x3F}))
                .setEncoding(TensorEncoding.FLOAT32_LE)
                .setTimestampMs(1_700_000_000_260L)
                .build();
    }

    public static Evaluation evaluation() {
        return Evaluation.newBuilder()
                .setJob("mlp-1")
                .setModelVersion(25)
                .setTestLoss(0.52)
                .setTestAccuracy(0.81)
                .setSamples(10_000)
                .setDataset("fashion-mnist")
                .setModelTimestampMs(1_700_000_000_270L)
                .setTimestampMs(1_700_000_000_280L)
                .build();
    }

    public static DeadLetter deadLetter() {
        return DeadLetter.newBuilder()
                .setSourceTopic("ata.timings")
                .setPartition(2)
                .setOffset(1234)
                .setKey(ByteBuffer.wrap("w1".getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .setValue(ByteBuffer.wrap(new byte[] {0x7b, 0x7d}))
                .setReason("unknown magic byte 0x7b (not Schema Registry wire format)")
                .setErrorClass("io.ata.schemas.serde.SerializationFormatException")
                .setComponent("broker")
                .setTimestampMs(1_700_000_000_300L)
                .build();
    }

    public static JobState jobState() {
        return JobState.newBuilder()
                .setJob("quadratic-1")
                .setPolicy("ata")
                .setBatch(4)
                .setSeed(42)
                .setLastOpenedRound(12)
                .setLastClosedRound(11)
                .setWorkerIds(List.of("w1", "w2"))
                .setCount(List.of(10L, 12L))
                .setSum(List.of(30.0, 50.0))
                .setSumSquares(List.of(95.0, 220.0))
                .setSumCubes(List.of(310.0, 1000.0))
                .setCensored(List.of(0.0, 9.5))
                .setEstimator(EtaEstimatorState.newBuilder()
                        .setEta(0.3)
                        .setSeen(22)
                        .setNextRefresh(32)
                        .setSampleWorkers(List.of(0, 1))
                        .setSamples(List.of(3.0, 4.5))
                        .build())
                .setLearnedState(LearnedState.newBuilder()
                        .setPolicy("ata")
                        .setVersion(1)
                        .setBytes(ByteBuffer.wrap(new byte[] {1, 2, 3}))
                        .build())
                .build();
    }
}
