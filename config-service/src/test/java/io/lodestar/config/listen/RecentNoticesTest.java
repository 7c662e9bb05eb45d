package io.lodestar.config.listen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.lodestar.config.ConfigKey;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A long-polling client's last notice outlives its poll, within a bound of count and of time. */
class RecentNoticesTest {
    private final AtomicLong now = new AtomicLong(1_000_000);
    private final RecentNotices notices = new RecentNotices(3, 60_000, now::get);

    private static ConfigKey key(String dataId) {
        return new ConfigKey("", "G", dataId);
    }

    private Notice notice(String md5) {
        return new Notice(md5, now.get(), Notice.LONG_POLL, null, null);
    }

    @Test
    void theLastNoticeOfAClientAndKeyReplacesTheOneBefore() {
        notices.told("10.0.0.1", key("a"), notice("m1"));
        notices.told("10.0.0.1", key("a"), notice("m2"));
        assertEquals("m2", notices.last("10.0.0.1", key("a")).md5());
        assertNull(notices.last("10.0.0.2", key("a")), "another client's is its own");
        assertEquals(1, notices.size());
    }

    @Test
    void pastItsCapacityTheLeastRecentlyToldGoesFirst() {
        notices.told("10.0.0.1", key("a"), notice("a"));
        notices.told("10.0.0.1", key("b"), notice("b"));
        notices.told("10.0.0.1", key("c"), notice("c"));
        notices.told("10.0.0.1", key("a"), notice("a2")); // told again: now the most recent
        notices.told("10.0.0.1", key("d"), notice("d"));
        assertEquals(3, notices.size());
        assertNull(notices.last("10.0.0.1", key("b")), "the least recently told was dropped");
        assertEquals("a2", notices.last("10.0.0.1", key("a")).md5());
    }

    @Test
    void aNoticeOlderThanItsTimeIsForgotten() {
        notices.told("10.0.0.1", key("a"), notice("old"));
        now.addAndGet(60_001);
        assertNull(notices.last("10.0.0.1", key("a")));
        notices.told("10.0.0.1", key("b"), notice("new"));
        assertEquals(1, notices.size(), "telling another drops the expired one");
    }
}
