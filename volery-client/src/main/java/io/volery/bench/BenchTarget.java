package io.volery.bench;

import java.io.IOException;

/** Where the sessions of one run come from; closed after them. */
interface BenchTarget extends AutoCloseable {

    /** A connected session, or an {@link IOException} saying what could not be reached. */
    BenchSession open() throws IOException, InterruptedException;

    /** The session of client {@code index} (a target may place clients by index); default {@link #open()}. */
    default BenchSession open(int index) throws IOException, InterruptedException {
        return open();
    }

    /** One session per independent ensemble the run uses (one, unless {@code --connect} names several). */
    default java.util.List<BenchSession> openEach() throws IOException, InterruptedException {
        return java.util.List.of(open());
    }

    @Override
    void close();

    static BenchTarget of(BenchConfig config) throws IOException {
        return switch (config.client()) {
            case ZOOKEEPER -> ShardedTarget.isSharded(config.connect()) ? new ShardedTarget(config)
                    : new ZooKeeperTarget(config);
            case NATIVE -> new NativeTarget(config);
        };
    }
}
