package io.eyrie.multicast;

import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

/**
 * Whether a certificate names a host, by the rules a TLS client applies to a server it dialled (RFC 6125, as
 * the JDK's {@code HTTPS} endpoint identification): an IP address must be one of the certificate's IP
 * subject alternative names; a host name must match one of its DNS names, case aside, where a leftmost
 * {@code *} label stands for exactly one label; only a certificate with no DNS name at all is matched by the
 * most specific common name of its subject. The accepting side of a connection between nodes uses it to
 * check a peer's certificate against the host the cluster file gives the node id the peer claims (ADR 065).
 */
public final class CertificateHosts {
    private static final int SAN_DNS = 2;
    private static final int SAN_IP = 7;

    private CertificateHosts() {
    }

    /** Null when {@code cert} names {@code host}; otherwise what it names instead, for a log line. */
    public static String mismatch(X509Certificate cert, String host) {
        List<String> dnsNames = new ArrayList<>();
        List<String> ipAddresses = new ArrayList<>();
        try {
            Collection<List<?>> names = cert.getSubjectAlternativeNames();
            if (names != null) {
                for (List<?> name : names) {
                    int type = (Integer) name.get(0);
                    if (type == SAN_DNS) {
                        dnsNames.add((String) name.get(1));
                    } else if (type == SAN_IP) {
                        ipAddresses.add((String) name.get(1));
                    }
                }
            }
        } catch (CertificateParsingException e) {
            return "its subject alternative names cannot be read (" + e.getMessage() + ")";
        }
        if (isIpLiteral(host)) {
            InetAddress wanted = literal(host);
            for (String ip : ipAddresses) {
                if (wanted != null && wanted.equals(literal(ip))) {
                    return null;
                }
            }
            return "it is for " + describe(dnsNames, ipAddresses, cert) + ", not for the address " + host;
        }
        String wanted = normalise(host);
        if (dnsNames.isEmpty()) {
            String cn = commonName(cert);
            if (cn != null && matches(normalise(cn), wanted)) {
                return null;
            }
        } else {
            for (String dns : dnsNames) {
                if (matches(normalise(dns), wanted)) {
                    return null;
                }
            }
        }
        return "it is for " + describe(dnsNames, ipAddresses, cert) + ", not for the host " + host;
    }

    /** Whether {@code host} is written as an IPv4 or IPv6 address rather than a name. */
    static boolean isIpLiteral(String host) {
        if (host.indexOf(':') >= 0) {
            return true;
        }
        String[] parts = host.split("\\.", -1);
        if (parts.length != 4) {
            return false;
        }
        for (String p : parts) {
            if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(Character::isDigit) || Integer.parseInt(p) > 255) {
                return false;
            }
        }
        return true;
    }

    private static InetAddress literal(String ip) {
        String bare = ip.startsWith("[") && ip.endsWith("]") ? ip.substring(1, ip.length() - 1) : ip;
        if (!isIpLiteral(bare)) {
            return null; // never a name lookup
        }
        try {
            return InetAddress.getByName(bare);
        } catch (UnknownHostException e) {
            return null;
        }
    }

    private static String normalise(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        return lower.endsWith(".") ? lower.substring(0, lower.length() - 1) : lower;
    }

    /** {@code pattern} against {@code host}, both normalised: equal, or a leftmost {@code *} for one label. */
    static boolean matches(String pattern, String host) {
        if (!pattern.startsWith("*.")) {
            return pattern.equals(host);
        }
        String rest = pattern.substring(1); // ".example.com"
        if (rest.indexOf('*') >= 0 || rest.chars().filter(c -> c == '.').count() < 2) {
            return false; // "*.com" and further wildcards name no one
        }
        int dot = host.indexOf('.');
        return dot > 0 && host.substring(dot).equals(rest);
    }

    private static String commonName(X509Certificate cert) {
        try {
            String cn = null;
            for (Rdn rdn : new LdapName(cert.getSubjectX500Principal().getName()).getRdns()) {
                if (rdn.getType().equalsIgnoreCase("CN")) {
                    cn = rdn.getValue().toString(); // LdapName lists the least specific first: keep the last
                }
            }
            return cn;
        } catch (InvalidNameException e) {
            return null;
        }
    }

    private static String describe(List<String> dnsNames, List<String> ipAddresses, X509Certificate cert) {
        List<String> all = new ArrayList<>(dnsNames);
        all.addAll(ipAddresses);
        if (all.isEmpty()) {
            return "subject " + cert.getSubjectX500Principal().getName() + " with no alternative names";
        }
        return String.join(", ", all);
    }
}
