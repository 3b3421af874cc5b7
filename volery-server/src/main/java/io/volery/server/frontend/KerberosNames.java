package io.volery.server.frontend;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a Kerberos principal a client authenticated as becomes as a ZooKeeper {@code sasl} identity, by the
 * rules ZooKeeper's server applies (ADR 069): the principal's short name by the {@code auth_to_local} rules
 * (Hadoop's syntax: {@code DEFAULT} and {@code RULE:[n:format](match)s/from/to/g}), then its host and its
 * realm appended unless told to drop them ({@code kerberos.removeHostFromPrincipal},
 * {@code kerberos.removeRealmFromPrincipal}). When no rule gives a short name the principal stays as it
 * is, as in ZooKeeper. A name without a realm (a DIGEST-MD5 user) is itself.
 */
public final class KerberosNames {

    /** name[/host]@realm. */
    private static final Pattern PRINCIPAL = Pattern.compile("([^/@]*)(/([^/@]*))?@([^/@]*)");
    private static final Pattern RULE = Pattern.compile(
            "\\s*((DEFAULT)|(RULE:\\[(\\d*):([^\\]]*)](\\(([^)]*)\\))?(s/([^/]*)/([^/]*)/(g)?)?))");
    private static final Pattern PARAMETER = Pattern.compile("([^$]*)(\\$(\\d*))?");
    private static final Pattern NOT_SIMPLE = Pattern.compile("[/@]");

    /** ZooKeeper's defaults: the DEFAULT rule, host and realm kept. */
    public static final String DEFAULT_RULES = "DEFAULT";

    private final String rules;
    private final List<Rule> parsed;
    private final boolean removeHost;
    private final boolean removeRealm;
    private final String defaultRealm;

    /**
     * @param rules        the {@code auth_to_local} rules
     * @param removeHost   drop a principal's host from its identity
     * @param removeRealm  drop a principal's realm from its identity
     * @param defaultRealm the realm the {@code DEFAULT} rule shortens names of ("" for none), or null for the
     *                     JVM's ({@link #jvmDefaultRealm}, looked up at each use: krb5.conf may be read late)
     * @throws IllegalArgumentException naming the part of {@code rules} that is not a rule
     */
    public KerberosNames(String rules, boolean removeHost, boolean removeRealm, String defaultRealm) {
        this.rules = rules;
        this.parsed = parse(rules);
        this.removeHost = removeHost;
        this.removeRealm = removeRealm;
        this.defaultRealm = defaultRealm;
    }

    /** ZooKeeper's defaults, with the JVM's default realm ({@link #jvmDefaultRealm}). */
    public static KerberosNames defaults() {
        return new KerberosNames(DEFAULT_RULES, false, false, null);
    }

    /** The default realm of the JVM's Kerberos configuration (krb5.conf), or "" when it has none. */
    public static String jvmDefaultRealm() {
        try {
            // a principal without a realm takes the configured default one
            return new javax.security.auth.kerberos.KerberosPrincipal("volery").getRealm();
        } catch (IllegalArgumentException e) {
            return "";
        }
    }

    /** The identity of {@code principal}: see the class comment. */
    public String identity(String principal) {
        Matcher m = PRINCIPAL.matcher(principal);
        if (!m.matches()) {
            return principal; // a simple name
        }
        String name = m.group(1);
        String host = m.group(3);
        String realm = m.group(4);
        String[] params = host == null ? new String[]{realm, name} : new String[]{realm, name, host};
        String shortName = null;
        String ownRealm = defaultRealm == null ? jvmDefaultRealm() : defaultRealm;
        try {
            for (Rule r : parsed) {
                shortName = r.apply(params, ownRealm);
                if (shortName != null) {
                    break;
                }
            }
        } catch (IllegalArgumentException e) {
            return principal; // a rule names a component the principal lacks: as no rule, as ZooKeeper
        }
        if (shortName == null || NOT_SIMPLE.matcher(shortName).find()) {
            return principal;
        }
        StringBuilder id = new StringBuilder(shortName);
        if (!removeHost && host != null) {
            id.append('/').append(host);
        }
        if (!removeRealm) {
            id.append('@').append(realm);
        }
        return id.toString();
    }

    private static List<Rule> parse(String rules) {
        List<Rule> result = new ArrayList<>();
        String remaining = rules.trim();
        while (!remaining.isEmpty()) {
            Matcher m = RULE.matcher(remaining);
            if (!m.lookingAt()) {
                throw new IllegalArgumentException("not an auth_to_local rule: '" + remaining + "'");
            }
            if (m.group(2) != null) {
                result.add(new Rule(true, 0, null, null, null, null, false));
            } else {
                result.add(new Rule(false, Integer.parseInt(m.group(4)), m.group(5),
                        m.group(7) == null ? null : Pattern.compile(m.group(7)),
                        m.group(9) == null ? null : Pattern.compile(m.group(9)), m.group(10), "g".equals(m.group(11))));
            }
            remaining = remaining.substring(m.end()).trim();
        }
        return result;
    }

    /** One rule: DEFAULT, or a format over the principal's components, a filter and a substitution. */
    private record Rule(boolean isDefault, int components, String format, Pattern match, Pattern from, String to,
                        boolean global) {
        /** The short name this rule gives a principal of {@code params} (realm, name[, host]), or null. */
        String apply(String[] params, String defaultRealm) {
            if (isDefault) {
                return defaultRealm.equals(params[0]) ? params[1] : null;
            }
            if (params.length - 1 != components) {
                return null;
            }
            String base = fill(params);
            if ((match != null && !match.matcher(base).matches())) {
                return null;
            }
            if (from == null) {
                return base;
            }
            Matcher m = from.matcher(base);
            return global ? m.replaceAll(to) : m.replaceFirst(to);
        }

        /**
         * The format with $0 (the realm), $1, $2 (the components) filled in.
         *
         * @throws IllegalArgumentException when it names a component the principal does not have
         */
        private String fill(String[] params) {
            Matcher m = PARAMETER.matcher(format);
            StringBuilder out = new StringBuilder();
            int start = 0;
            while (start < format.length() && m.find(start)) {
                out.append(m.group(1));
                if (m.group(3) != null) {
                    int n = m.group(3).isEmpty() ? -1 : Integer.parseInt(m.group(3));
                    if (n < 0 || n >= params.length) {
                        throw new IllegalArgumentException("no component $" + m.group(3) + " in " + format);
                    }
                    out.append(params[n]);
                }
                start = m.end();
            }
            return out.toString();
        }
    }

    @Override
    public String toString() {
        return "KerberosNames[" + rules + (removeHost ? ", no host" : "") + (removeRealm ? ", no realm" : "")
                + (defaultRealm == null ? "" : ", default realm " + defaultRealm) + "]";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KerberosNames k && k.rules.equals(rules) && k.removeHost == removeHost
                && k.removeRealm == removeRealm && Objects.equals(k.defaultRealm, defaultRealm);
    }

    @Override
    public int hashCode() {
        return Objects.hash(rules, removeHost, removeRealm, defaultRealm);
    }
}
