package io.lodestar.api.http;

import io.lodestar.api.limits.Limit;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.eclipse.jetty.io.Connection;

/**
 * Closes a new HTTP connection at once when its client address already holds {@link
 * Limit#HTTP_CONNECTIONS_PER_ADDRESS} open ones, so no one address can use up the node's
 * connections (each open one costs a file descriptor and buffers, with or without a request on it).
 * The address is the socket's peer: no header can change it. Added to the connector as a bean, it
 * hears of every connection the connector opens and closes.
 */
public final class AddressConnectionLimit implements Connection.Listener {
    private final int perAddress;
    private final Consumer<Limit> refused;
    private final ConcurrentHashMap<InetAddress, Integer> open = new ConcurrentHashMap<>();
    /** Each open connection's address: a closed socket no longer tells it. */
    private final ConcurrentHashMap<Connection, InetAddress> addresses = new ConcurrentHashMap<>();

    public AddressConnectionLimit(int perAddress, Consumer<Limit> refused) {
        this.perAddress = perAddress;
        this.refused = refused;
    }

    @Override
    public void onOpened(Connection connection) {
        InetAddress address = address(connection);
        if (address == null) {
            return;
        }
        addresses.put(connection, address);
        int now = open.merge(address, 1, Integer::sum);
        if (now > perAddress) {
            refused.accept(Limit.HTTP_CONNECTIONS_PER_ADDRESS);
            connection.getEndPoint().close(); // onClosed follows and uncounts it
        }
    }

    @Override
    public void onClosed(Connection connection) {
        InetAddress address = addresses.remove(connection);
        if (address != null) {
            open.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
        }
    }

    /** Open connections from {@code address} now. */
    int openFrom(InetAddress address) {
        return open.getOrDefault(address, 0);
    }

    private static InetAddress address(Connection connection) {
        SocketAddress remote = connection.getEndPoint().getRemoteSocketAddress();
        return remote instanceof InetSocketAddress inet ? inet.getAddress() : null;
    }
}
