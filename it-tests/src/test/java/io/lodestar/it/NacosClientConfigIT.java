package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alibaba.nacos.api.NacosFactory;
import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.config.ConfigService;
import com.alibaba.nacos.api.config.listener.AbstractListener;
import com.alibaba.nacos.api.config.listener.Listener;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The official nacos-client 1.4.7 ConfigService against a real standalone server process. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class NacosClientConfigIT {
    /** How long a listener may take to hear a publish; the client answers a change within about a second. */
    private static final long HEAR_S = 10;

    static {
        NacosClientHome.init(); // before any nacos-client class loads
    }

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    private final List<ConfigService> clients = new ArrayList<>();

    @AfterEach
    void shutDownClients() throws Exception {
        for (ConfigService c : clients) {
            c.shutDown();
        }
    }

    private ConfigService client(ServerProcess p, String namespace) throws Exception {
        Properties props = new Properties();
        props.put(PropertyKeyConst.SERVER_ADDR, p.httpAddress());
        if (namespace != null) {
            props.put(PropertyKeyConst.NAMESPACE, namespace);
        }
        ConfigService c = NacosFactory.createConfigService(props);
        clients.add(c);
        return c;
    }

    private ServerProcess server() {
        ServerProcess p = cluster.startStandalone("nacos-config");
        return p;
    }

    private static Listener into(BlockingQueue<String> heard) {
        return new AbstractListener() {
            @Override
            public void receiveConfigInfo(String configInfo) {
                heard.add(configInfo);
            }
        };
    }

    @Test
    void publishGetAndRemoveRoundTripThroughTheOfficialClient() throws Exception {
        ConfigService client = client(server(), null);
        assertNull(client.getConfig("app.yaml", "G", 3000), "nothing published yet");
        assertTrue(client.publishConfig("app.yaml", "G", "a: 1\nb: \u00e9\u6f22"));
        assertEquals("a: 1\nb: \u00e9\u6f22", client.getConfig("app.yaml", "G", 3000));
        assertTrue(client.publishConfig("app.yaml", "G", "a: 2"));
        assertEquals("a: 2", client.getConfig("app.yaml", "G", 3000));
        assertTrue(client.removeConfig("app.yaml", "G"));
        assertNull(client.getConfig("app.yaml", "G", 3000), "removed");
    }

    @Test
    void aListenerHearsEveryPublishAndNothingAfterItIsRemoved() throws Exception {
        ServerProcess p = server();
        ConfigService client = client(p, null);
        BlockingQueue<String> removed = new LinkedBlockingQueue<>();
        BlockingQueue<String> kept = new LinkedBlockingQueue<>();
        Listener toRemove = into(removed);
        client.addListener("listened", "G", toRemove);
        client.addListener("listened", "G", into(kept));

        ConfigService publisher = client(p, null);
        assertTrue(publisher.publishConfig("listened", "G", "v1"));
        assertEquals("v1", removed.poll(HEAR_S, TimeUnit.SECONDS), "first publish heard");
        assertEquals("v1", kept.poll(HEAR_S, TimeUnit.SECONDS), "first publish heard by the second listener");
        assertTrue(publisher.publishConfig("listened", "G", "v2"));
        assertEquals("v2", removed.poll(HEAR_S, TimeUnit.SECONDS), "second publish heard");
        assertEquals("v2", kept.poll(HEAR_S, TimeUnit.SECONDS), "second publish heard by the second listener");

        client.removeListener("listened", "G", toRemove);
        assertTrue(publisher.publishConfig("listened", "G", "v3"));
        // the client notifies the listeners of one config one after the other on one thread, so
        // once the kept listener heard v3 the removed one would have been called already; the short
        // extra window only covers a slow hand-off
        assertEquals("v3", kept.poll(HEAR_S, TimeUnit.SECONDS), "the remaining listener still hears publishes");
        assertNull(removed.poll(500, TimeUnit.MILLISECONDS), "a removed listener hears nothing");
        assertTrue(removed.isEmpty() && kept.isEmpty(), "each publish heard once: " + removed + " " + kept);
    }

    @Test
    void aListenerAddedAfterAPublishHearsTheCurrentContent() throws Exception {
        ServerProcess p = server();
        ConfigService publisher = client(p, null);
        assertTrue(publisher.publishConfig("early", "G", "already there"));
        BlockingQueue<String> heard = new LinkedBlockingQueue<>();
        client(p, null).addListener("early", "G", into(heard));
        assertEquals("already there", heard.poll(HEAR_S, TimeUnit.SECONDS));
    }

    @Test
    void aListenerInANamespaceHearsOnlyThatNamespace() throws Exception {
        ServerProcess p = server();
        ConfigService inTenant = client(p, "team-a");
        ConfigService inPublic = client(p, null);
        BlockingQueue<String> tenantHeard = new LinkedBlockingQueue<>();
        BlockingQueue<String> publicHeard = new LinkedBlockingQueue<>();
        inTenant.addListener("shared-id", "G", into(tenantHeard));
        inPublic.addListener("shared-id", "G", into(publicHeard));

        assertTrue(inTenant.publishConfig("shared-id", "G", "for team a"));
        assertEquals("for team a", tenantHeard.poll(HEAR_S, TimeUnit.SECONDS));
        assertEquals("for team a", inTenant.getConfig("shared-id", "G", 3000));
        assertNull(inPublic.getConfig("shared-id", "G", 3000), "the public namespace has no such config");

        assertTrue(inPublic.publishConfig("shared-id", "G", "for everyone"));
        assertEquals("for everyone", publicHeard.poll(HEAR_S, TimeUnit.SECONDS));
        // the tenant's client polls separately: give a wrongly woken poll a short while to show
        assertNull(tenantHeard.poll(500, TimeUnit.MILLISECONDS), "a publish is heard only in its own namespace");
        assertTrue(publicHeard.isEmpty(), "heard once: " + publicHeard);
    }
}
