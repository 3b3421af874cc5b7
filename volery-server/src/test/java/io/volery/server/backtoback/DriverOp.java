package io.volery.server.backtoback;

import io.volery.server.tree.CreateMode;
import java.util.Arrays;
import java.util.List;

/** An operation a back-to-back run sends to every driver, in the client's terms (open ACL, one session). */
public sealed interface DriverOp {

    /** Ops a multi may carry. */
    sealed interface MultiStep extends DriverOp permits Create, Delete, SetData, Check {
    }

    /** {@code ttl} is used only by the TTL modes. */
    record Create(String path, byte[] data, CreateMode mode, long ttl) implements MultiStep {
        @Override
        public String toString() {
            return "Create[" + path + " " + Arrays.toString(data) + " " + mode + (mode.isTtl() ? " ttl=" + ttl : "") + "]";
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

    record Exists(String path) implements DriverOp {
    }

    record GetData(String path) implements DriverOp {
    }

    record GetChildren(String path) implements DriverOp {
    }

    record Multi(List<MultiStep> steps) implements DriverOp {
    }
}
