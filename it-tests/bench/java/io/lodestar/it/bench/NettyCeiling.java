package io.lodestar.it.bench;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;

/**
 * {@link HttpCeiling}'s twin on Netty (already in the jar, under JRaft's bolt): the same answers
 * (a GET as a 128-byte config read with its headers, anything else {@code true}), with the query
 * and any form body parsed, and no other work. Side by side with HttpCeiling and the server it
 * shows what the HTTP layer alone costs on this machine, and so what moving the hot routes off
 * Jetty could gain.
 *
 * <pre>BENCH_JAVA_OPTS=-Xmx512m it-tests/bench/run.sh NettyCeiling [--port 18849] [--threads 2]</pre>
 */
public final class NettyCeiling {
    public static void main(String[] args) throws Exception {
        int port = 18849;
        int threads = 2;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--threads" -> threads = Integer.parseInt(args[++i]);
                case "--help", "-h" -> {
                    System.out.println("usage: it-tests/bench/run.sh NettyCeiling [--port N] [--threads N]"
                            + "  (defaults 18849, 2 event-loop threads)");
                    return;
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i] + " (try --help)");
            }
        }
        byte[] config = "x".repeat(128).getBytes(StandardCharsets.UTF_8);
        byte[] ok = "true".getBytes(StandardCharsets.UTF_8);
        boolean epoll = Epoll.isAvailable();
        EventLoopGroup loops = epoll ? new EpollEventLoopGroup(threads) : new NioEventLoopGroup(threads);
        Class<? extends ServerChannel> channel = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        new ServerBootstrap()
                .group(loops)
                .channel(channel)
                .option(ChannelOption.SO_BACKLOG, 8192) // as Lodestar's connector
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline()
                                .addLast(
                                        new HttpServerCodec(),
                                        new HttpObjectAggregator(1 << 20),
                                        new SimpleChannelInboundHandler<FullHttpRequest>() {
                                            @Override
                                            protected void channelRead0(
                                                    ChannelHandlerContext ctx, FullHttpRequest req) {
                                                boolean read = req.method() == HttpMethod.GET;
                                                new QueryStringDecoder(req.uri())
                                                        .parameters()
                                                        .get("dataId");
                                                if (req.content()
                                                        .isReadable()) { // a form body is parsed, as any write must
                                                    new QueryStringDecoder(
                                                                    req.content()
                                                                            .toString(StandardCharsets.UTF_8),
                                                                    false)
                                                            .parameters();
                                                }
                                                ByteBuf body = Unpooled.wrappedBuffer(read ? config : ok);
                                                FullHttpResponse resp = new DefaultFullHttpResponse(
                                                        HttpVersion.HTTP_1_1, HttpResponseStatus.OK, body);
                                                HttpHeaders h = resp.headers();
                                                h.set("Content-Type", read ? "text/plain;charset=utf-8" : "text/plain");
                                                h.set("Content-Length", body.readableBytes());
                                                if (read) {
                                                    h.set("Pragma", "no-cache");
                                                    h.set("Cache-Control", "no-cache,no-store");
                                                    h.set("Config-Type", "text");
                                                    h.set("Content-MD5", "0123456789abcdef0123456789abcdef");
                                                }
                                                ctx.writeAndFlush(resp);
                                            }
                                        });
                    }
                })
                .bind(port)
                .sync();
        System.err.println("NettyCeiling: bare Netty handler (" + (epoll ? "epoll" : "nio") + ", " + threads
                + " event loops) on port " + port + "; Ctrl-C stops it");
        Thread.currentThread().join();
    }
}
