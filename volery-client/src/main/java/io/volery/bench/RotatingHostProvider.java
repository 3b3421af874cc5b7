package io.volery.bench;

import org.apache.zookeeper.client.ConnectStringParser;
import org.apache.zookeeper.client.HostProvider;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The servers of the connect string in their order, starting at a given one and moving to the next
 * on every connection attempt. The ZooKeeper client shuffles its servers at random, so 64 sessions
 * spread over three servers unevenly (one server with half again as many clients as another was
 * seen, which then bounds both systems' throughput at a CPU cap); session i starting at server
 * i mod n spreads them evenly and still fails over to every server.
 */
final class RotatingHostProvider implements HostProvider {
    private final List<InetSocketAddress> servers = new ArrayList<>();
    private int next;
    private int triedSinceConnected;

    RotatingHostProvider(String connectString, int first) {
        for (InetSocketAddress a : new ConnectStringParser(connectString).getServerAddresses()) {
            servers.add(new InetSocketAddress(a.getHostString(), a.getPort()));
        }
        if (servers.isEmpty()) {
            throw new IllegalArgumentException("no servers in connect string '" + connectString + "'");
        }
        next = Math.floorMod(first, servers.size());
    }

    @Override
    public int size() {
        return servers.size();
    }

    @Override
    public InetSocketAddress next(long spinDelay) {
        if (triedSinceConnected >= servers.size() && spinDelay > 0) {
            // every server tried once without success: pause, as the ZooKeeper client's own provider does
            try {
                Thread.sleep(spinDelay);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            triedSinceConnected = 0;
        }
        InetSocketAddress a = servers.get(next);
        next = (next + 1) % servers.size();
        triedSinceConnected++;
        return a;
    }

    @Override
    public void onConnected() {
        triedSinceConnected = 0;
    }

    @Override
    public boolean updateServerList(Collection<InetSocketAddress> serverAddresses, InetSocketAddress currentHost) {
        return false; // the benchmark's server list does not change
    }
}
