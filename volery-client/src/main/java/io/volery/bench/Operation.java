package io.volery.bench;

/** One ZooKeeper request type the load generator issues; latencies are kept per type. */
public enum Operation {
    SET_DATA("setData"),
    GET_DATA("getData"),
    CREATE("create"),
    DELETE("delete");

    private final String jsonName;

    Operation(String jsonName) {
        this.jsonName = jsonName;
    }

    /** The ZooKeeper API name, used as the key in the JSON report. */
    public String jsonName() {
        return jsonName;
    }
}
