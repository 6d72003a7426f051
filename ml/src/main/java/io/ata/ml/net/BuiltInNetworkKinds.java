package io.ata.ml.net;

import java.util.List;

/**
 * The network kinds this project ships, in the order help texts list them: the one place a
 * built-in kind is registered. {@link NetworkKindRegistry#standard()} puts them first.
 */
final class BuiltInNetworkKinds implements NetworkKindProvider {

    @Override
    public List<NetworkKind> kinds() {
        return List.of(MlpKind.INSTANCE, CnnKind.INSTANCE);
    }
}
