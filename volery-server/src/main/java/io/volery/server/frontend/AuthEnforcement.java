package io.volery.server.frontend;

import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;

/**
 * ZooKeeper 3.7+'s authentication enforcement ({@code zookeeper.enforce.auth.enabled} with
 * {@code zookeeper.enforce.auth.schemes}, or {@code zookeeper.sessionRequireClientSASLAuth} for "sasl"
 * alone): a connection must hold an identity of one of these schemes before any request other than
 * addAuth and SASL; the first other request (a ping included) is answered SessionClosedRequireAuth
 * (-124) and the connection closes, the session living on until it expires. See ADR 052.
 *
 * @param schemes the schemes of which a connection must hold an identity; empty: no enforcement
 */
public record AuthEnforcement(Set<String> schemes) {
    /** No enforcement: ZooKeeper's default. */
    public static final AuthEnforcement OFF = new AuthEnforcement(Set.of());
    /** The schemes a Volery front end can authenticate a connection with. */
    public static final Set<String> KNOWN = Set.of("ip", "digest", "sasl", "x509");

    public AuthEnforcement {
        schemes = Set.copyOf(new TreeSet<>(schemes));
    }

    /** Enforcement of these schemes, each of which must be one Volery authenticates ({@link #KNOWN}). */
    public static AuthEnforcement of(Collection<String> schemes) {
        if (schemes.isEmpty()) {
            throw new IllegalArgumentException("authentication enforcement needs at least one scheme");
        }
        for (String s : schemes) {
            if (!KNOWN.contains(s)) {
                throw new IllegalArgumentException("authentication scheme " + s + " is not available (known: "
                        + new TreeSet<>(KNOWN) + ")");
            }
        }
        return new AuthEnforcement(Set.copyOf(schemes));
    }

    public boolean on() {
        return !schemes.isEmpty();
    }

    /** Whether SASL is among the schemes: then a failed SASL negotiation is answered -124, not AuthFailed. */
    public boolean requiresSasl() {
        return schemes.contains("sasl");
    }

    /** Whether a connection holding identities of {@code held} schemes may send requests. */
    public boolean admits(Collection<String> held) {
        if (!on()) {
            return true;
        }
        for (String s : held) {
            if (schemes.contains(s)) {
                return true;
            }
        }
        return false;
    }
}
