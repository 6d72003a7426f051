package io.ata.workeragent;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class AgentRestartsTest {
    @Test
    void atMostThreeStartsWithinTenMinutes() {
        AgentRestarts restarts = new AgentRestarts();
        long t = 1_000_000;
        assertTrue(restarts.allow(t));
        assertTrue(restarts.allow(t + 1_000));
        assertTrue(restarts.allow(t + 2_000));
        assertFalse(restarts.allow(t + 3_000), "a fourth within the window: two agents under one id?");
        assertFalse(restarts.allow(t + AgentRestarts.WINDOW.toMillis() - 1));
        assertTrue(restarts.allow(t + AgentRestarts.WINDOW.toMillis()), "the first start left the window");
        assertFalse(restarts.allow(t + AgentRestarts.WINDOW.toMillis() + 500));
    }
}
