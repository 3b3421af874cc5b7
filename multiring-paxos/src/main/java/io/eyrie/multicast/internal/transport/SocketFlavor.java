package io.eyrie.multicast.internal.transport;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

import java.util.concurrent.ThreadFactory;

/** Which Netty socket implementation a transport runs on: native epoll on Linux, NIO elsewhere. */
public enum SocketFlavor {
    EPOLL, NIO;

    public static SocketFlavor choose(boolean preferNative) {
        return preferNative && Epoll.isAvailable() ? EPOLL : NIO;
    }

    EventLoopGroup newGroup(int threads, ThreadFactory threadFactory) {
        return this == EPOLL ? new EpollEventLoopGroup(threads, threadFactory) : new NioEventLoopGroup(threads, threadFactory);
    }

    Class<? extends ServerChannel> serverChannelClass() {
        return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    Class<? extends SocketChannel> channelClass() {
        return this == EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }
}
