package io.volery.server.admin;

import io.volery.server.frontend.OpCodes;

import java.util.Map;

/** Names of ZooKeeper operations: the metric tag, and the four-letter code {@code cons} shows as lop. */
final class OpNames {
    private static final Map<Integer, String[]> NAMES = Map.ofEntries(
            Map.entry(OpCodes.CREATE, new String[] {"create", "CREA"}),
            Map.entry(OpCodes.CREATE2, new String[] {"create2", "CREA"}),
            Map.entry(OpCodes.CREATE_CONTAINER, new String[] {"createContainer", "CREA"}),
            Map.entry(OpCodes.CREATE_TTL, new String[] {"createTTL", "CREA"}),
            Map.entry(OpCodes.DELETE, new String[] {"delete", "DELE"}),
            Map.entry(OpCodes.DELETE_CONTAINER, new String[] {"deleteContainer", "DELE"}),
            Map.entry(OpCodes.EXISTS, new String[] {"exists", "EXIS"}),
            Map.entry(OpCodes.GET_DATA, new String[] {"getData", "GETD"}),
            Map.entry(OpCodes.SET_DATA, new String[] {"setData", "SETD"}),
            Map.entry(OpCodes.GET_ACL, new String[] {"getACL", "GETA"}),
            Map.entry(OpCodes.SET_ACL, new String[] {"setACL", "SETA"}),
            Map.entry(OpCodes.GET_CHILDREN, new String[] {"getChildren", "GETC"}),
            Map.entry(OpCodes.GET_CHILDREN2, new String[] {"getChildren2", "GETC"}),
            Map.entry(OpCodes.SYNC, new String[] {"sync", "SYNC"}),
            Map.entry(OpCodes.CHECK, new String[] {"check", "CHEC"}),
            Map.entry(OpCodes.MULTI, new String[] {"multi", "MULT"}),
            Map.entry(OpCodes.MULTI_READ, new String[] {"multiRead", "MLTR"}),
            Map.entry(OpCodes.CHECK_WATCHES, new String[] {"checkWatches", "CHKW"}),
            Map.entry(OpCodes.REMOVE_WATCHES, new String[] {"removeWatches", "REMW"}),
            Map.entry(OpCodes.SET_WATCHES, new String[] {"setWatches", "SETW"}),
            Map.entry(OpCodes.SET_WATCHES2, new String[] {"setWatches2", "SETW"}),
            Map.entry(OpCodes.ADD_WATCH, new String[] {"addWatch", "ADDW"}),
            Map.entry(OpCodes.GET_EPHEMERALS, new String[] {"getEphemerals", "GETE"}),
            Map.entry(OpCodes.GET_ALL_CHILDREN_NUMBER, new String[] {"getAllChildrenNumber", "GACN"}),
            Map.entry(OpCodes.WHO_AM_I, new String[] {"whoAmI", "HOMI"}),
            Map.entry(OpCodes.RECONFIG, new String[] {"reconfig", "RECO"}),
            Map.entry(OpCodes.CLOSE_SESSION, new String[] {"closeSession", "CLOS"}));

    private OpNames() {
    }

    static String tag(int op) {
        String[] n = NAMES.get(op);
        return n == null ? "op" + op : n[0];
    }

    static String code(int op) {
        String[] n = NAMES.get(op);
        return n == null ? "NA" : n[1];
    }
}
