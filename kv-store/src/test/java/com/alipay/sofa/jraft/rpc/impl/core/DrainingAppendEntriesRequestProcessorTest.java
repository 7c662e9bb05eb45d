package com.alipay.sofa.jraft.rpc.impl.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.alipay.sofa.jraft.rpc.Connection;
import com.alipay.sofa.jraft.rpc.RpcRequests.AppendEntriesRequest;
import com.alipay.sofa.jraft.rpc.RpcRequests.AppendEntriesRequestHeader;
import com.alipay.sofa.jraft.rpc.impl.core.AppendEntriesRequestProcessor.PeerPair;
import com.alipay.sofa.jraft.rpc.impl.core.AppendEntriesRequestProcessor.PeerRequestContext;
import io.lodestar.kv.KvStoreConfig;
import io.lodestar.kv.raft.RaftKvStore;
import io.lodestar.kv.testing.Await;
import io.lodestar.kv.testing.FreePorts;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The closing of a connection whose AppendEntries worker still has a request queued (a leader
 * killed mid-stream) must neither hold up a new leader's first AppendEntries nor wait out JRaft's
 * 15 s executor shutdown timeout.
 */
class DrainingAppendEntriesRequestProcessorTest {
    private static final String GROUP = "lodestar"; // RaftKvStore's group

    @TempDir
    Path dir;

    private RaftKvStore store;
    private String self;

    @BeforeEach
    void startNode() {
        int port = FreePorts.next();
        self = "127.0.0.1:" + port;
        // a started node: JRaft looks the local peer of every pair up in its NodeManager
        store = RaftKvStore.start(KvStoreConfig.of(
                "127.0.0.1", port, List.of(), dir, "secret".getBytes(StandardCharsets.UTF_8), Set.of("data")));
    }

    @AfterEach
    void stopNode() {
        store.close();
    }

    @Test
    void closingAConnectionWithAQueuedRequestHoldsUpNeitherANewLeaderNorItself() throws Exception {
        DrainingAppendEntriesRequestProcessor processor =
                new DrainingAppendEntriesRequestProcessor(null, GROUP, () -> null);
        Connection deadLeader = new AttributeConnection();
        PeerPair deadPair = processor.pairOf(self, "127.0.0.1:1");
        processor.getOrCreatePeerRequestContext(GROUP, deadPair, deadLeader);
        Executor worker = processor
                .executorSelector()
                .select(
                        AppendEntriesRequest.class.getName(),
                        AppendEntriesRequestHeader.newBuilder()
                                .setGroupId(GROUP)
                                .setPeerId(self)
                                .setServerId("127.0.0.1:1")
                                .build());

        // The worker is busy with one request from the dead leader and has another queued, which,
        // like every non-heartbeat request, starts by looking its context up.
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch queuedRan = new CountDownLatch(1);
        worker.execute(() -> awaitQuietly(busy));
        worker.execute(() -> {
            processor.getOrCreatePeerRequestContext(GROUP, deadPair, null);
            queuedRan.countDown();
        });

        Thread closer = new Thread(() -> processor.onClosed("127.0.0.1:40000", deadLeader), "connection-closed");
        closer.start();
        Await.until(
                "the close to wait for the busy worker",
                () -> closer.getState() == Thread.State.TIMED_WAITING,
                closer::getState);

        // While the close waits for that worker, a new leader's first AppendEntries gets its context.
        CompletableFuture<PeerRequestContext> newLeader = CompletableFuture.supplyAsync(
                () -> processor.getOrCreatePeerRequestContext(GROUP, processor.pairOf(self, "127.0.0.1:2"), null));
        try {
            assertNotNull(newLeader.get(2, TimeUnit.SECONDS));
        } catch (TimeoutException e) {
            fail("a new leader's first AppendEntries waited for the closed connection's busy worker");
        }

        busy.countDown();
        closer.join(TimeUnit.SECONDS.toMillis(5));
        assertEquals(Thread.State.TERMINATED, closer.getState(), "the close finished once its worker was idle");
        assertTrue(queuedRan.await(0, TimeUnit.SECONDS), "the queued request ran before the close returned");
        assertNull(processor.getPeerRequestContext(GROUP, deadPair), "the closed connection's context is gone");
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Just the attribute map JRaft keeps on a connection; nothing is sent on it. */
    private static final class AttributeConnection implements Connection {
        private final Map<String, Object> attributes = new ConcurrentHashMap<>();

        @Override
        public Object getAttribute(String key) {
            return attributes.get(key);
        }

        @Override
        public Object setAttributeIfAbsent(String key, Object value) {
            return attributes.putIfAbsent(key, value);
        }

        @Override
        public void setAttribute(String key, Object value) {
            attributes.put(key, value);
        }

        @Override
        public void close() {}
    }
}
