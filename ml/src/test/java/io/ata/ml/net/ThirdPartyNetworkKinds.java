package io.ata.ml.net;

import java.util.List;

/**
 * Network kinds from outside the project, as a third-party jar would add them: registered only
 * through {@code src/test/resources/META-INF/services/io.ata.ml.net.NetworkKindProvider}, so the
 * standard registry of this module's tests finds them by {@link java.util.ServiceLoader} alone.
 */
public final class ThirdPartyNetworkKinds implements NetworkKindProvider {

    @Override
    public List<NetworkKind> kinds() {
        return List.of(TanhKind.INSTANCE);
    }
}
