package io.volery.server.tree;

import java.util.List;

/**
 * The outcome of one command: ZooKeeper's result code, the reply payload, and the watch events the
 * command triggered, in the order they must be delivered.
 */
public record Result(ErrorCode code, Reply reply, List<WatchEvent> events) {

    public Result {
        events = List.copyOf(events);
    }

    static Result ok(Reply reply) {
        return new Result(ErrorCode.OK, reply, List.of());
    }

    static Result error(ErrorCode code) {
        return new Result(code, Reply.Empty.INSTANCE, List.of());
    }

    public boolean isOk() {
        return code == ErrorCode.OK;
    }

    Result withEvents(List<WatchEvent> newEvents) {
        return new Result(code, reply, newEvents);
    }

    /** The payload as the expected type; fails loudly (with the code) when the command failed. */
    public <T extends Reply> T reply(Class<T> type) {
        if (!type.isInstance(reply)) {
            throw new IllegalStateException("expected a " + type.getSimpleName() + " reply but the result was "
                    + code + " with " + reply);
        }
        return type.cast(reply);
    }
}
