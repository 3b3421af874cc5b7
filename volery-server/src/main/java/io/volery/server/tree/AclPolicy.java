package io.volery.server.tree;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;

/** ZooKeeper's ACL rules: which ACL lists are valid, and who may do what. */
final class AclPolicy {

    private AclPolicy() {
    }

    /** The digest id of "user:password": user:base64(sha1(user:password)). */
    static String digestId(String userColonPassword) {
        String user = userColonPassword.split(":", 2)[0];
        try {
            byte[] sha1 = MessageDigest.getInstance("SHA1").digest(userColonPassword.getBytes(StandardCharsets.UTF_8));
            return user + ":" + Base64.getEncoder().encodeToString(sha1);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JVM has no SHA1", e);
        }
    }

    /**
     * The ACL to store for a create or setACL, or null when ZooKeeper answers InvalidACL: an empty
     * list, an unknown scheme, a malformed id, or {@code auth} without an authenticated identity.
     * {@code auth} entries expand to the session's authenticated (digest, sasl and x509) identities. The
     * {@code sasl} scheme is known only when {@code saslEnabled} (ZooKeeper with its SASL provider), the
     * {@code x509} scheme only when {@code x509Enabled} (TLS on the client port).
     */
    static List<Acl> fixup(List<Acl> requested, List<Id> sessionIds, boolean saslEnabled, boolean x509Enabled) {
        if (requested == null || requested.isEmpty()) {
            return null;
        }
        // duplicates go before "auth" expands, as in ZooKeeper; an expansion may repeat an entry
        List<Acl> result = new ArrayList<>();
        for (Acl acl : new LinkedHashSet<>(requested)) {
            Id id = acl.id();
            switch (id.scheme()) {
                case "world" -> {
                    if (!id.id().equals("anyone")) {
                        return null;
                    }
                    result.add(acl);
                }
                case "auth" -> {
                    boolean any = false;
                    for (Id own : sessionIds) {
                        if (own.scheme().equals("digest") || own.scheme().equals("sasl") || own.scheme().equals("x509")) {
                            result.add(new Acl(acl.perms(), own));
                            any = true;
                        }
                    }
                    if (!any) {
                        return null;
                    }
                }
                case "digest" -> {
                    if (id.id().split(":").length != 2) {
                        return null;
                    }
                    result.add(acl);
                }
                case "sasl" -> {
                    if (!saslEnabled || !validSaslId(id.id())) {
                        return null;
                    }
                    result.add(acl);
                }
                case "x509" -> {
                    if (!x509Enabled || !validX509Id(id.id())) {
                        return null;
                    }
                    result.add(acl);
                }
                case "ip" -> {
                    if (IpMatch.parse(id.id()) == null) {
                        return null;
                    }
                    result.add(acl);
                }
                default -> {
                    return null;
                }
            }
        }
        return List.copyOf(result);
    }

    /** True when one of {@code sessionIds} holds one of the {@code perm} bits on a node with {@code acl}. */
    /** Whether {@code acl} grants {@code perm} to everyone (then {@link #permits} is true for any session). */
    static boolean grantsAnyone(List<Acl> acl, int perm) {
        if (acl == null || acl.isEmpty()) {
            return true;
        }
        for (Acl entry : acl) {
            if ((entry.perms() & perm) != 0 && entry.id().equals(Id.ANYONE)) {
                return true;
            }
        }
        return false;
    }

    static boolean permits(List<Acl> acl, int perm, List<Id> sessionIds) {
        for (Id own : sessionIds) {
            if (own.scheme().equals("super")) {
                return true;
            }
        }
        if (acl == null || acl.isEmpty()) {
            return true;
        }
        for (Acl entry : acl) {
            if ((entry.perms() & perm) == 0) {
                continue;
            }
            Id id = entry.id();
            if (id.equals(Id.ANYONE)) {
                return true;
            }
            for (Id own : sessionIds) {
                if (!own.scheme().equals(id.scheme())) {
                    continue;
                }
                if (id.scheme().equals("ip") ? IpMatch.matches(own.id(), id.id())
                        // ZooKeeper's SASL provider: a SASL identity named "super" matches every sasl entry
                        : own.id().equals(id.id()) || (id.scheme().equals("sasl") && own.id().equals("super"))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** A Kerberos-style principal, as ZooKeeper's SASL provider requires: with an '@', name[/host]@realm. */
    private static final java.util.regex.Pattern PRINCIPAL = java.util.regex.Pattern.compile("([^/@]*)(/([^/@]*))?@([^/@]*)");

    /** A distinguished name, as ZooKeeper's x509 provider requires of an ACL's id. */
    static boolean validX509Id(String id) {
        try {
            new javax.security.auth.x500.X500Principal(id);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    static boolean validSaslId(String id) {
        return !id.contains("@") || PRINCIPAL.matcher(id).matches();
    }

    /** What getACL shows a caller without ADMIN: digest ids lose their hash ("user:x"). */
    static List<Acl> redacted(List<Acl> acl) {
        List<Acl> out = new ArrayList<>(acl.size());
        for (Acl a : acl) {
            if (a.id().scheme().equals("digest")) {
                out.add(new Acl(a.perms(), new Id("digest", a.id().id().replaceAll(":.*", ":x"))));
            } else {
                out.add(a);
            }
        }
        return out;
    }

    /** ip ACLs: an address, optionally with a prefix length ("10.0.0.0/8"). */
    static final class IpMatch {
        final byte[] address;
        final int bits;

        private IpMatch(byte[] address, int bits) {
            this.address = address;
            this.bits = bits;
        }

        static IpMatch parse(String text) {
            String[] parts = text.split("/", -1);
            if (parts.length > 2) {
                return null;
            }
            byte[] address = parseAddress(parts[0]);
            if (address == null) {
                return null;
            }
            int bits = address.length * 8;
            if (parts.length == 2) {
                try {
                    bits = Integer.parseInt(parts[1]);
                } catch (NumberFormatException e) {
                    return null;
                }
                if (bits < 0 || bits > address.length * 8) {
                    return null;
                }
            }
            return new IpMatch(address, bits);
        }

        static boolean matches(String clientAddress, String aclExpression) {
            IpMatch pattern = parse(aclExpression);
            byte[] client = parseAddress(clientAddress);
            if (pattern == null || client == null || client.length != pattern.address.length) {
                return false;
            }
            for (int bit = 0; bit < pattern.bits; bit++) {
                int mask = 0x80 >>> (bit % 8);
                if ((client[bit / 8] & mask) != (pattern.address[bit / 8] & mask)) {
                    return false;
                }
            }
            return true;
        }

        /** IPv4 dotted quads and full or "::"-compressed IPv6, without any name lookup. */
        static byte[] parseAddress(String text) {
            if (text.contains(":")) {
                return parseIpv6(text);
            }
            String[] octets = text.split("\\.", -1);
            if (octets.length != 4) {
                return null;
            }
            byte[] out = new byte[4];
            for (int i = 0; i < 4; i++) {
                int v = parseNumber(octets[i], 10, 3);
                if (v < 0 || v > 255) {
                    return null;
                }
                out[i] = (byte) v;
            }
            return out;
        }

        private static byte[] parseIpv6(String text) {
            int gap = text.indexOf("::");
            if (gap >= 0 && text.indexOf("::", gap + 1) >= 0) {
                return null;
            }
            String head = gap >= 0 ? text.substring(0, gap) : text;
            String tail = gap >= 0 ? text.substring(gap + 2) : "";
            String[] h = head.isEmpty() ? new String[0] : head.split(":", -1);
            String[] t = tail.isEmpty() ? new String[0] : tail.split(":", -1);
            if (gap < 0 && h.length != 8 || gap >= 0 && h.length + t.length > 7) {
                return null;
            }
            byte[] out = new byte[16];
            for (int i = 0; i < h.length; i++) {
                if (!putGroup(out, i, h[i])) {
                    return null;
                }
            }
            for (int i = 0; i < t.length; i++) {
                if (!putGroup(out, 8 - t.length + i, t[i])) {
                    return null;
                }
            }
            return out;
        }

        private static boolean putGroup(byte[] out, int group, String text) {
            int v = parseNumber(text, 16, 4);
            if (v < 0) {
                return false;
            }
            out[2 * group] = (byte) (v >>> 8);
            out[2 * group + 1] = (byte) v;
            return true;
        }

        private static int parseNumber(String text, int radix, int maxDigits) {
            if (text.isEmpty() || text.length() > maxDigits) {
                return -1;
            }
            int v = 0;
            for (int i = 0; i < text.length(); i++) {
                int d = Character.digit(text.charAt(i), radix);
                if (d < 0) {
                    return -1;
                }
                v = v * radix + d;
            }
            return v;
        }
    }
}
