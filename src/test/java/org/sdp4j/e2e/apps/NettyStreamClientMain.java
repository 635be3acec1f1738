package org.sdp4j.e2e.apps;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;

/**
 * A Netty client as Lettuce, Vert.x or gRPC build one: the native epoll transport when Netty says it is available,
 * else NIO. {@code NettyStreamClientMain PORT} reads 1 MiB from {@link StreamMain}'s server on 127.0.0.1, prints
 * {@code STREAMED epoll|nio BYTES} and exits 0.
 */
public final class NettyStreamClientMain {
    private NettyStreamClientMain() {}

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        boolean epoll = Epoll.isAvailable();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1,
                epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        CompletableFuture<Long> done = new CompletableFuture<>();
        try {
            Channel c = new Bootstrap().group(group)
                    .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
                    .handler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new SimpleChannelInboundHandler<ByteBuf>() {
                                private long total;

                                @Override
                                protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
                                    total += msg.readableBytes();
                                    if (total >= 1 << 20) {
                                        done.complete(total);
                                    }
                                }

                                @Override
                                public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                    done.completeExceptionally(cause);
                                }
                            });
                        }
                    })
                    .connect("127.0.0.1", port).sync().channel();
            long n = done.get(60, TimeUnit.SECONDS);
            System.out.println("STREAMED " + (epoll ? "epoll" : "nio") + " " + n);
            c.close().sync();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
        System.out.flush();
        System.exit(0);
    }
}
