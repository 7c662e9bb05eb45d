package io.lodestar.kv.raftport;

import com.alipay.remoting.ExtendedNettyChannelHandler;
import io.lodestar.kv.RaftPortSettings;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * What the Raft port does with a new connection before bolt sees it: admits it into one of the
 * {@link UnprovenSlots} or closes it, and puts an {@link UnprovenConnection} ahead of bolt's
 * decoder (after TLS, when the port has it) until the connection proves the cluster secret.
 */
final class RaftPortAdmission implements ExtendedNettyChannelHandler {
    /** The name bolt gives its decoder in every connection's pipeline. */
    private static final String BOLT_DECODER = "decoder";

    private final RaftPortSettings settings;
    private final UnprovenSlots slots;
    private final RefusalLog refusals;

    RaftPortAdmission(RaftPortSettings settings, RefusalLog refusals) {
        this.settings = settings;
        this.slots = new UnprovenSlots(settings);
        this.refusals = refusals;
    }

    /** Bolt asks once per connection, so each gets its own handler. */
    @Override
    public List<ChannelHandler> frontChannelHandlers() {
        return List.of(new Admit());
    }

    @Override
    public List<ChannelHandler> backChannelHandlers() {
        return List.of();
    }

    int unproven() {
        return slots.held();
    }

    private final class Admit extends ChannelInboundHandlerAdapter {
        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            // active comes after bolt's initialiser has built the whole pipeline, decoder included
            InetSocketAddress remote = (InetSocketAddress) ctx.channel().remoteAddress();
            Runnable slot = slots.tryTake(remote.getAddress());
            if (slot == null) {
                refusals.refused(String.valueOf(remote), "a connection past the Raft port's share for the unproved");
                ctx.close();
                return;
            }
            ctx.pipeline()
                    .addBefore(
                            BOLT_DECODER,
                            "lodestar-unproven",
                            new UnprovenConnection(slot, settings.handshakeDeadline(), refusals));
            ctx.fireChannelActive();
            ctx.pipeline().remove(this);
        }
    }
}
