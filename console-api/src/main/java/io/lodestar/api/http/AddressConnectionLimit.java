package io.lodestar.api.http;

import io.lodestar.api.limits.Limit;
import io.lodestar.limits.CountsByAddress;
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
    private final Consumer<Limit> refused;
    private final CountsByAddress<InetAddress> open;
    /** Each counted connection's address: a closed socket no longer tells it. */
    private final ConcurrentHashMap<Connection, InetAddress> counted = new ConcurrentHashMap<>();

    public AddressConnectionLimit(int perAddress, Consumer<Limit> refused) {
        this.refused = refused;
        this.open = new CountsByAddress<>(perAddress);
    }

    @Override
    public void onOpened(Connection connection) {
        SocketAddress remote = connection.getEndPoint().getRemoteSocketAddress();
        if (!(remote instanceof InetSocketAddress inet)) {
            return;
        }
        if (open.tryAcquire(inet.getAddress())) {
            counted.put(connection, inet.getAddress());
        } else {
            refused.accept(Limit.HTTP_CONNECTIONS_PER_ADDRESS);
            connection.getEndPoint().close();
        }
    }

    @Override
    public void onClosed(Connection connection) {
        InetAddress address = counted.remove(connection);
        if (address != null) {
            open.release(address);
        }
    }
}
