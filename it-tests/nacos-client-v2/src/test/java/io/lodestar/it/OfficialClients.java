package io.lodestar.it;

import com.alibaba.nacos.api.NacosFactory;
import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.config.ConfigService;
import com.alibaba.nacos.api.exception.NacosException;
import com.alibaba.nacos.api.naming.NamingService;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The official client's services a test creates, each shut down after the test (or when the test
 * shuts it down itself, through {@link #shutDown}).
 */
final class OfficialClients implements AfterEachCallback {
    private interface Client {
        void shutDown() throws NacosException;
    }

    private record Open(Object client, Client shutdown) {}

    private final List<Open> open = new ArrayList<>();

    NamingService naming(String serverAddr) throws NacosException {
        return naming(props(serverAddr, null));
    }

    /** A naming client that logs in as {@code username}. */
    NamingService naming(String serverAddr, String username, String password) throws NacosException {
        return naming(withLogin(props(serverAddr, null), username, password));
    }

    /** A naming client with {@code settings} (e.g. its TLS properties) besides the server's address. */
    NamingService namingWith(String serverAddr, Properties settings) throws NacosException {
        Properties props = props(serverAddr, null);
        props.putAll(settings);
        return naming(props);
    }

    private NamingService naming(Properties props) throws NacosException {
        NamingService n = NacosFactory.createNamingService(props);
        track(n, n::shutDown);
        return n;
    }

    ConfigService config(String serverAddr, String namespace) throws NacosException {
        return config(props(serverAddr, namespace));
    }

    /** A config client that logs in as {@code username}. */
    ConfigService config(String serverAddr, String username, String password) throws NacosException {
        return config(withLogin(props(serverAddr, null), username, password));
    }

    /** A config client with {@code settings} (e.g. its TLS properties) besides the server's address. */
    ConfigService configWith(String serverAddr, Properties settings) throws NacosException {
        Properties props = props(serverAddr, null);
        props.putAll(settings);
        return config(props);
    }

    private ConfigService config(Properties props) throws NacosException {
        ConfigService c = NacosFactory.createConfigService(props);
        track(c, c::shutDown);
        return c;
    }

    private static Properties withLogin(Properties props, String username, String password) {
        props.put(PropertyKeyConst.USERNAME, username);
        props.put(PropertyKeyConst.PASSWORD, password);
        return props;
    }

    /** Shuts {@code client} down now, as an application stopping does. */
    void shutDown(Object client) throws NacosException {
        for (Open o : List.copyOf(open)) {
            if (o.client() == client) {
                open.remove(o);
                o.shutdown().shutDown();
            }
        }
    }

    @Override
    public void afterEach(ExtensionContext context) throws NacosException {
        for (Open o : open) {
            o.shutdown().shutDown();
        }
        open.clear();
    }

    private void track(Object client, Client shutdown) {
        open.add(new Open(client, shutdown));
    }

    private static Properties props(String serverAddr, String namespace) {
        Properties props = new Properties();
        props.put(PropertyKeyConst.SERVER_ADDR, serverAddr);
        if (namespace != null) {
            props.put(PropertyKeyConst.NAMESPACE, namespace);
        }
        return props;
    }
}
