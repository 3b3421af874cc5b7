package io.volery.server.internal;

import io.eyrie.core.Codec;

/**
 * The classes of Volery's commands and results that Eyrie's codec sends as ids rather than names (ADR 088).
 * Every process that sends or delivers Volery commands loads this first: the replicas
 * ({@link VoleryStateMachine}), the front ends ({@link VoleryService}) and the native client's ring access.
 * The ids are part of the wire format: never reuse or renumber one.
 */
public final class VoleryCodec {

    static {
        Codec.register(VoleryRequest.class, Codec.FIRST_ID);
        Codec.register(VoleryStateMachine.SessionReply.class, Codec.FIRST_ID + 1);
        Codec.register(VoleryStateMachine.Reordered.class, Codec.FIRST_ID + 2);
    }

    private VoleryCodec() {
    }

    /** Makes sure the registrations are done (the first call does them; later ones nothing). */
    public static void registered() {
        // the static initializer ran
    }
}
