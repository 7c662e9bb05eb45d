package io.lodestar.kv.raftport;

import com.alipay.remoting.Connection;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Watches a connection that has not proved the cluster secret yet, frame by frame, ahead of bolt's
 * decoder, which would otherwise buffer whatever length a frame declares before anything looks at
 * it. A frame declaring more than {@link #MAX_FRAME} bytes closes the connection before its body is
 * buffered, and so does the handshake deadline passing unproved. At the first frame boundary after
 * the proof the connection's slot is given back and this handler leaves the pipeline, so a
 * member's traffic is neither bounded nor looked at: members hold the cluster secret, and with it
 * could write anything anyway.
 */
final class UnprovenConnection extends ChannelInboundHandlerAdapter {
    /** Far above a handshake message or a bolt heartbeat, far below what would cost a node anything. */
    static final int MAX_FRAME = 64 << 10;

    private final Runnable slot;
    private final Duration deadline;
    private final RefusalLog refusals;
    /** The start of a frame whose header came in pieces. */
    private final ByteBuf header = Unpooled.buffer(BoltFrameLength.MAX_HEADER);

    private long frameRemaining;
    private ScheduledFuture<?> deadlineCheck;

    UnprovenConnection(Runnable slot, Duration deadline, RefusalLog refusals) {
        this.slot = slot;
        this.deadline = deadline;
        this.refusals = refusals;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        deadlineCheck = ctx.executor()
                .schedule(
                        () -> {
                            if (proven(ctx)) {
                                slot.run(); // it leaves at its next frame boundary
                            } else {
                                refuse(ctx, "no handshake within " + deadline.toSeconds() + " s");
                            }
                        },
                        deadline.toNanos(),
                        TimeUnit.NANOSECONDS);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (deadlineCheck != null) {
            deadlineCheck.cancel(false);
        }
        header.release();
        slot.run();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf in)) {
            ctx.fireChannelRead(msg);
            return;
        }
        int at = in.readerIndex();
        int end = in.writerIndex();
        while (at < end) {
            if (frameRemaining > 0) {
                int skipped = (int) Math.min(frameRemaining, end - at);
                at += skipped;
                frameRemaining -= skipped;
                continue;
            }
            if (header.readableBytes() == 0 && proven(ctx)) {
                ctx.fireChannelRead(in);
                ctx.pipeline().remove(this);
                return;
            }
            int before = header.readableBytes();
            int copied = Math.min(BoltFrameLength.MAX_HEADER - before, end - at);
            header.writeBytes(in, at, copied);
            long length;
            try {
                length = BoltFrameLength.of(header, header.readableBytes());
            } catch (IllegalArgumentException e) {
                ReferenceCountUtil.release(in);
                refuse(ctx, e.getMessage() + " before the handshake");
                return;
            }
            if (length == BoltFrameLength.UNKNOWN) {
                at = end;
                break;
            }
            if (length > MAX_FRAME) {
                ReferenceCountUtil.release(in);
                refuse(ctx, "a frame of " + length + " bytes before the handshake");
                return;
            }
            header.clear();
            long hereOn = length - before; // this frame's bytes from `at` on
            long available = end - at;
            at += (int) Math.min(hereOn, available);
            frameRemaining = Math.max(0, hereOn - available);
        }
        ctx.fireChannelRead(in);
    }

    private void refuse(ChannelHandlerContext ctx, String reason) {
        refusals.refused(String.valueOf(ctx.channel().remoteAddress()), reason);
        ctx.close();
    }

    private static boolean proven(ChannelHandlerContext ctx) {
        return PeerState.proven(ctx.channel().attr(Connection.CONNECTION).get());
    }
}
