package io.volery.server.frontend;

import javax.security.auth.Subject;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.CallbackHandler;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.auth.kerberos.KerberosPrincipal;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.Configuration;
import javax.security.auth.login.LoginContext;
import javax.security.auth.login.LoginException;
import javax.security.sasl.AuthorizeCallback;
import javax.security.sasl.RealmCallback;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.NoSuchAlgorithmException;
import java.security.PrivilegedActionException;
import java.security.PrivilegedExceptionAction;
import java.security.URIParameter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * SASL authentication on the client port, as ZooKeeper's server does it, from a section of a JAAS login
 * file (the same file and section, {@code Server} by default, that a ZooKeeper server reads):
 * <ul>
 *   <li><b>DIGEST-MD5</b>: the section's {@code user_NAME="password"} options are the users and their
 *       passwords; protocol "zookeeper", server name "zk-sasl-md5"; identity {@code sasl:NAME}.</li>
 *   <li><b>GSSAPI (Kerberos)</b>: the section's {@code Krb5LoginModule} entry logs the server in (its
 *       keytab and service principal, e.g. {@code zookeeper/host@REALM}); a client proves itself with a
 *       service ticket for that principal, and its principal becomes its identity by {@link KerberosNames}
 *       (ADR 069).</li>
 * </ul>
 * A section with both takes both: the first token of a negotiation tells them apart (a DIGEST-MD5 client
 * starts with an empty one, a GSSAPI client with its ticket), where ZooKeeper takes only Kerberos. One
 * {@link SaslServer} per negotiation ({@link #newServer}).
 */
public final class SaslAuthentication {

    /** The protocol and server name ZooKeeper's clients use for DIGEST-MD5. */
    static final String PROTOCOL = "zookeeper";
    static final String SERVER_NAME = "zk-sasl-md5";
    static final String KRB5_MODULE = "com.sun.security.auth.module.Krb5LoginModule";

    private final Map<String, String> passwords;
    /** The Kerberos login (service principal and keys), or null without Kerberos. */
    private final Subject subject;
    private final String servicePrincipal;
    private final KerberosNames names;

    /** DIGEST-MD5 only, with these users and passwords. */
    public SaslAuthentication(Map<String, String> passwords) {
        this(passwords, null, KerberosNames.defaults());
    }

    private SaslAuthentication(Map<String, String> passwords, Subject subject, KerberosNames names) {
        if (passwords.isEmpty() && subject == null) {
            throw new IllegalArgumentException("SASL needs at least one user or a Kerberos login");
        }
        this.passwords = Map.copyOf(passwords);
        this.subject = subject;
        this.servicePrincipal = subject == null ? null : servicePrincipal(subject);
        this.names = Objects.requireNonNull(names, "names");
    }

    /** As {@link #fromJaas(Path, String, KerberosNames)} with ZooKeeper's default principal rules. */
    public static SaslAuthentication fromJaas(Path file, String section) {
        return fromJaas(file, section, KerberosNames.defaults());
    }

    /**
     * The mechanisms section {@code section} of the JAAS file {@code file} sets up: its {@code user_NAME}
     * options (DIGEST-MD5), its {@code Krb5LoginModule} entry (GSSAPI), logged in here, at once.
     *
     * @param names what a client's Kerberos principal becomes as an identity
     * @throws IllegalArgumentException when the file cannot be read or parsed, has no such section, the
     *                                  section names no user and no Kerberos login, or the Kerberos login
     *                                  fails (the message says why: keytab, principal, KDC)
     */
    public static SaslAuthentication fromJaas(Path file, String section, KerberosNames names) {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("no such JAAS file: " + file);
        }
        Configuration jaas;
        try {
            // this file only: the JVM-wide login configuration is left alone
            jaas = Configuration.getInstance("JavaLoginConfig", new URIParameter(file.toUri()));
        } catch (NoSuchAlgorithmException e) {
            // the JDK reports a file it cannot parse this way, with the parser's message as the cause
            Throwable why = e.getCause() == null ? e : e.getCause();
            throw new IllegalArgumentException("cannot read JAAS file " + file + ": " + why.getMessage(), e);
        }
        AppConfigurationEntry[] entries = jaas.getAppConfigurationEntry(section);
        if (entries == null || entries.length == 0) {
            throw new IllegalArgumentException("JAAS file " + file + " has no section '" + section + "'");
        }
        Map<String, String> users = new TreeMap<>();
        List<AppConfigurationEntry> kerberos = new ArrayList<>();
        for (AppConfigurationEntry e : entries) {
            if (e.getLoginModuleName().equals(KRB5_MODULE)) {
                kerberos.add(e);
                continue;
            }
            e.getOptions().forEach((k, v) -> {
                if (k.startsWith("user_") && k.length() > "user_".length()) {
                    users.put(k.substring("user_".length()), String.valueOf(v));
                }
            });
        }
        if (users.isEmpty() && kerberos.isEmpty()) {
            throw new IllegalArgumentException("section '" + section + "' of JAAS file " + file
                    + " names no user (expected options user_NAME=\"password\") and no " + KRB5_MODULE);
        }
        Subject subject = kerberos.isEmpty() ? null : login(file, section, kerberos);
        return new SaslAuthentication(users, subject, names);
    }

    /** Logs in with the Kerberos entries of a section alone: the server's keys, from its keytab. */
    private static Subject login(Path file, String section, List<AppConfigurationEntry> kerberos) {
        AppConfigurationEntry[] only = kerberos.toArray(AppConfigurationEntry[]::new);
        Configuration config = new Configuration() {
            @Override
            public AppConfigurationEntry[] getAppConfigurationEntry(String name) {
                return section.equals(name) ? only : null;
            }
        };
        Subject subject = new Subject();
        try {
            // no callback handler: a keytab login needs none, and a section that would prompt fails here
            LoginContext login = new LoginContext(section, subject, callbacks -> {
                throw new javax.security.auth.callback.UnsupportedCallbackException(callbacks[0],
                        "the server cannot prompt; give Krb5LoginModule useKeyTab=true and a keyTab");
            }, config);
            login.login();
        } catch (LoginException e) {
            throw new IllegalArgumentException("Kerberos login of section '" + section + "' of JAAS file " + file
                    + " failed: " + describe(e), e);
        }
        if (subject.getPrincipals(KerberosPrincipal.class).isEmpty()) {
            throw new IllegalArgumentException("Kerberos login of section '" + section + "' of JAAS file " + file
                    + " gave no principal");
        }
        servicePrincipal(subject); // checked now, not at the first client
        return subject;
    }

    private static String describe(Throwable e) {
        StringBuilder s = new StringBuilder(String.valueOf(e.getMessage()));
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            s.append(" (").append(c.getMessage()).append(')');
        }
        return s.toString();
    }

    /** The logged-in principal, which must be service/host@REALM, as ZooKeeper's. */
    private static String servicePrincipal(Subject subject) {
        String name = subject.getPrincipals(KerberosPrincipal.class).iterator().next().getName();
        int slash = name.indexOf('/');
        int at = name.indexOf('@');
        if (slash <= 0 || at < slash + 2) {
            throw new IllegalArgumentException("the server's Kerberos principal must be service/host@REALM"
                    + " (as zookeeper/host@REALM), not " + name);
        }
        return name;
    }

    /** The DIGEST-MD5 users who may authenticate (not their passwords). */
    public Set<String> users() {
        return passwords.keySet();
    }

    /** The server's Kerberos principal, or null without Kerberos. */
    public String servicePrincipal() {
        return servicePrincipal;
    }

    public KerberosNames names() {
        return names;
    }

    /** The mechanism a negotiation that starts with {@code firstToken} takes (see the class comment). */
    String mechanism(byte[] firstToken) {
        if (subject == null) {
            return "DIGEST-MD5";
        }
        if (passwords.isEmpty()) {
            return "GSSAPI";
        }
        return firstToken.length == 0 ? "DIGEST-MD5" : "GSSAPI";
    }

    /** A server side of one negotiation that starts with {@code firstToken}. */
    SaslServer newServer(byte[] firstToken) throws SaslException {
        String mechanism = mechanism(firstToken);
        SaslServer s;
        if (mechanism.equals("DIGEST-MD5")) {
            s = Sasl.createSaslServer("DIGEST-MD5", PROTOCOL, SERVER_NAME, null, new Callbacks());
        } else {
            String service = servicePrincipal.substring(0, servicePrincipal.indexOf('/'));
            String host = servicePrincipal.substring(servicePrincipal.indexOf('/') + 1, servicePrincipal.indexOf('@'));
            s = asServer(() -> Sasl.createSaslServer("GSSAPI", service, host, null, new Callbacks()));
        }
        if (s == null) {
            throw new SaslException("this JVM offers no " + mechanism + " SASL server");
        }
        return s;
    }

    /** Runs {@code create} as the server's Kerberos login, whose keys the GSSAPI server accepts with. */
    @SuppressWarnings({"removal", "deprecation"})
    private SaslServer asServer(PrivilegedExceptionAction<SaslServer> create) throws SaslException {
        try {
            return Subject.doAs(subject, create);
        } catch (PrivilegedActionException e) {
            Throwable c = e.getCause();
            throw c instanceof SaslException s ? s : new SaslException("cannot start a GSSAPI server", c);
        }
    }

    /** Answers the SASL server's questions from {@link #passwords} and {@link #names}. */
    private final class Callbacks implements CallbackHandler {
        private String user;

        @Override
        public void handle(Callback[] callbacks) {
            for (Callback c : callbacks) {
                if (c instanceof NameCallback n) {
                    user = n.getDefaultName();
                    if (passwords.containsKey(user)) {
                        n.setName(user);
                    }
                } else if (c instanceof PasswordCallback p) {
                    String password = user == null ? null : passwords.get(user);
                    if (password != null) {
                        p.setPassword(password.toCharArray());
                    }
                } else if (c instanceof RealmCallback r) {
                    r.setText(r.getDefaultText());
                } else if (c instanceof AuthorizeCallback a) {
                    // as ZooKeeper: the authenticated principal is the identity, whatever it asked to act as
                    a.setAuthorized(true);
                    a.setAuthorizedID(names.identity(a.getAuthenticationID()));
                }
            }
        }
    }

    @Override
    public String toString() {
        return "SaslAuthentication" + passwords.keySet() + (servicePrincipal == null ? "" : " + " + servicePrincipal);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SaslAuthentication d && d.passwords.equals(passwords)
                && Objects.equals(d.servicePrincipal, servicePrincipal) && d.names.equals(names);
    }

    @Override
    public int hashCode() {
        return Objects.hash(passwords, servicePrincipal, names);
    }
}
