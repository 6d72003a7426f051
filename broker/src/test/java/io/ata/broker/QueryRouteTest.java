package io.ata.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.util.Set;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.Test;

class QueryRouteTest {
    private static final HostInfo SELF = new HostInfo("10.0.0.1", 8088);
    private static final HostInfo OTHER = new HostInfo("10.0.0.2", 8088);

    private static KeyQueryMetadata ownedBy(HostInfo host) {
        return new KeyQueryMetadata(host, Set.of(), 3);
    }

    @Test
    void theOwnerAnswersItself() {
        assertEquals(new QueryRoute.Local(), QueryRoute.of(SELF, ownedBy(SELF), false));
        assertEquals(new QueryRoute.Local(), QueryRoute.of(SELF, ownedBy(SELF), true));
    }

    @Test
    void anotherInstanceForwardsToTheOwner() {
        assertEquals(new QueryRoute.Forward(OTHER), QueryRoute.of(SELF, ownedBy(OTHER), false));
    }

    @Test
    void sameHostOtherPortIsAnotherInstance() {
        HostInfo sibling = new HostInfo(SELF.host(), SELF.port() + 1);
        assertEquals(new QueryRoute.Forward(sibling), QueryRoute.of(SELF, ownedBy(sibling), false));
    }

    @Test
    void aForwardedRequestIsNeverForwardedAgain() {
        QueryRoute route = QueryRoute.of(SELF, ownedBy(OTHER), true);
        assertInstanceOf(QueryRoute.Unavailable.class, route);
    }

    @Test
    void anUnknownOwnerMeansRetryLater() {
        assertInstanceOf(QueryRoute.Unavailable.class, QueryRoute.of(SELF, KeyQueryMetadata.NOT_AVAILABLE, false));
        assertInstanceOf(QueryRoute.Unavailable.class, QueryRoute.of(SELF, null, false));
        assertInstanceOf(QueryRoute.Unavailable.class, QueryRoute.of(SELF, ownedBy(HostInfo.unavailable()), false));
    }

    @Test
    void anInstanceWithoutEndpointAnswersForItselfAsBefore() {
        assertEquals(new QueryRoute.Local(), QueryRoute.of(null, KeyQueryMetadata.NOT_AVAILABLE, false));
        assertEquals(new QueryRoute.Local(), QueryRoute.of(null, ownedBy(OTHER), false));
    }
}
