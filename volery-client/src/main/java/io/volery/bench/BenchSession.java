package io.volery.bench;

/**
 * One session of the service under test, as the load generator uses it: asynchronous requests whose
 * completion reports ZooKeeper's result code. Implemented over the ZooKeeper client and over Volery's
 * native client, so both run exactly the same workload code.
 */
interface BenchSession extends AutoCloseable {

    /** A completion: {@code rc} is a {@code KeeperException.Code} value, 0 for success. */
    interface Done {
        void done(int rc);
    }

    /** A create's completion with the created node's path (null on failure). */
    interface Created {
        void done(int rc, String path);
    }

    /** setData of any version. */
    void setData(String path, byte[] data, Done done);

    void getData(String path, Done done);

    /** A persistent create with the open ACL. */
    void create(String path, byte[] data, Created done);

    /** delete of any version. */
    void delete(String path, Done done);

    @Override
    void close();
}
