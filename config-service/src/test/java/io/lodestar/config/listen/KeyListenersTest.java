package io.lodestar.config.listen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.config.ConfigKey;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The per-key listener index: a change to a key reaches its listeners only, and an emptied key goes. */
class KeyListenersTest {
    private static final ConfigKey A = new ConfigKey("ns", "G", "a");
    private static final ConfigKey B = new ConfigKey("ns", "G", "b");

    @Test
    void eachKeyHasItsOwnListenersAndAnEmptiedKeyLeavesNoTrace() {
        KeyListeners<String> listeners = new KeyListeners<>();
        listeners.add(A, "one");
        listeners.add(A, "two");
        listeners.add(B, "one");
        listeners.add(A, "one");
        assertEquals(Set.of("one", "two"), listeners.of(A));
        assertEquals(Set.of("one"), listeners.of(B));
        assertEquals(Set.of("one", "two"), listeners.all());
        listeners.remove(B, "one");
        listeners.remove(B, "never added");
        assertTrue(listeners.of(B).isEmpty());
        assertEquals(Set.of(A), listeners.keys());
        listeners.remove(A, "one");
        listeners.remove(A, "two");
        assertTrue(listeners.isEmpty());
    }
}
