package io.lodestar.api.push;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.naming.model.ServiceKey;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServicePushesTest {
    private static final ServiceKey ORDERS = ServiceKey.of("", "DEFAULT_GROUP", "orders");
    private static final ServiceKey USERS = ServiceKey.of("dev", "G", "users");

    /** Runs what the pushes hand to their sender only when told: the notifier thread never sends. */
    private final ArrayDeque<Runnable> sender = new ArrayDeque<>();

    private final ServicePushes pushes = new ServicePushes(sender::add);

    private static final class Recorder implements ServicePushes.Subscriber {
        final List<Map<String, ?>> got = new ArrayList<>();

        @Override
        public void sendJson(Map<String, ?> message) {
            got.add(message);
        }
    }

    private void runSender() {
        while (!sender.isEmpty()) {
            sender.poll().run();
        }
    }

    @Test
    void aSubscriberHearsItsServicesOnlyAndOnTheSendersThread() {
        Recorder a = new Recorder();
        Recorder b = new Recorder();
        assertTrue(pushes.subscribe(a, List.of(ORDERS), 10));
        assertTrue(pushes.subscribe(b, List.of(USERS), 10));

        pushes.serviceChanged(ORDERS);
        assertTrue(a.got.isEmpty(), "nothing is written on the notifier's thread");
        runSender();

        assertEquals(
                List.of(Map.of(
                        "type",
                        "service-changed",
                        "namespaceId",
                        "public",
                        "groupName",
                        "DEFAULT_GROUP",
                        "serviceName",
                        "orders")),
                a.got);
        assertTrue(b.got.isEmpty(), "b subscribed to another service");
    }

    @Test
    void noticesToASlowConnectionAreCoalescedPerService() {
        Recorder a = new Recorder();
        pushes.subscribe(a, List.of(ORDERS, USERS), 10);
        for (int i = 0; i < 100; i++) {
            pushes.serviceChanged(ORDERS);
        }
        pushes.serviceChanged(USERS);
        assertEquals(1, sender.size(), "one send scheduled, however many changes");
        runSender();
        assertEquals(2, a.got.size(), "one notice per changed service: " + a.got);
    }

    @Test
    void unsubscribingOrClosingStopsTheNotices() {
        Recorder a = new Recorder();
        Recorder b = new Recorder();
        pushes.subscribe(a, List.of(ORDERS), 10);
        pushes.subscribe(b, List.of(ORDERS), 10);
        pushes.unsubscribe(a, List.of(ORDERS));
        pushes.forget(b);
        pushes.serviceChanged(ORDERS);
        runSender();
        assertTrue(a.got.isEmpty() && b.got.isEmpty());
        assertEquals(0, pushes.subscribers(ORDERS), "no subscriber is kept for a service nobody hears");
    }

    @Test
    void aConnectionHoldsAtMostItsLimit() {
        Recorder a = new Recorder();
        assertTrue(pushes.subscribe(a, List.of(ORDERS), 1));
        assertFalse(pushes.subscribe(a, List.of(USERS), 1), "a second service over a limit of one");
        assertTrue(pushes.subscribe(a, List.of(ORDERS), 1), "the same service again adds nothing");
    }
}
