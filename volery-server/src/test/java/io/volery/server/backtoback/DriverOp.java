package io.volery.server.backtoback;

import io.volery.server.tree.CreateMode;
import java.util.Arrays;
import java.util.List;

/** An operation a back-to-back run sends to every driver, in a ZooKeeper client's terms. */
public sealed interface DriverOp {

    /** Ops a multi may carry. */
    sealed interface MultiStep extends DriverOp permits Create, Delete, SetData, Check {
    }

    /** The ACLs a workload uses, by name, so every driver builds the same list. */
    enum AclChoice { OPEN, READ_ONLY, CREATOR_ALL, WRITE_ONLY, DIGEST_USER0_ALL, IP_LOCAL_READ, EMPTY }

    /** {@code ttl} is used only by the TTL modes. */
    record Create(String path, byte[] data, CreateMode mode, long ttl, AclChoice acl) implements MultiStep {
        @Override
        public String toString() {
            return "Create[" + path + " " + Arrays.toString(data) + " " + mode + (mode.isTtl() ? " ttl=" + ttl : "")
                    + " " + acl + "]";
        }
    }

    record Delete(String path, int version) implements MultiStep {
    }

    record SetData(String path, byte[] data, int version) implements MultiStep {
        @Override
        public String toString() {
            return "SetData[" + path + " " + Arrays.toString(data) + " version=" + version + "]";
        }
    }

    record Check(String path, int version) implements MultiStep {
    }

    record Exists(String path, boolean watch) implements DriverOp {
    }

    record GetData(String path, boolean watch) implements DriverOp {
    }

    record GetChildren(String path, boolean watch) implements DriverOp {
    }

    record Multi(List<MultiStep> steps) implements DriverOp {
    }

    record SetAcl(String path, AclChoice acl, int aclVersion) implements DriverOp {
    }

    record GetAcl(String path) implements DriverOp {
    }

    /** addAuth digest "user:password". */
    record AddAuth(String userColonPassword) implements DriverOp {
    }

    record AddWatch(String path, boolean recursive) implements DriverOp {
    }

    /** removeWatches for the session's default watcher; {@code type} is a WatcherType wire code. */
    record RemoveWatches(String path, int type) implements DriverOp {
    }

    record GetEphemerals(String prefix) implements DriverOp {
    }

    record GetAllChildrenNumber(String path) implements DriverOp {
    }

    /** Closes the session and opens a fresh one in its place (ephemerals and watches go). */
    record Reopen() implements DriverOp {
    }
}
