package io.ata.ml.djl;

/** Starts the engine in a child JVM for {@link DjlRuntimeTest}; prints the failure, exits 3. */
public final class StartEngineMain {

    private StartEngineMain() {}

    public static void main(String[] args) {
        try {
            DjlRuntime.start(1);
            System.out.println("started");
        } catch (EngineUnavailableException e) {
            System.out.println(e.getMessage());
            System.exit(3);
        }
    }
}
