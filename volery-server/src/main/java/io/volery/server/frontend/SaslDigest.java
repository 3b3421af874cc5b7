package io.volery.server.frontend;

import javax.security.auth.callback.Callback;
import javax.security.auth.callback.CallbackHandler;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.Configuration;
import javax.security.sasl.AuthorizeCallback;
import javax.security.sasl.RealmCallback;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.NoSuchAlgorithmException;
import java.security.URIParameter;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * SASL DIGEST-MD5 authentication on the client port, as ZooKeeper's server does it: the users and
 * their passwords are the {@code user_NAME="password"} options of a section of a JAAS login file (the
 * same file and section, {@code Server} by default, that a ZooKeeper server reads), the protocol is
 * "zookeeper" and the server name "zk-sasl-md5". An authenticated client gets the identity
 * {@code sasl:NAME}. One {@link SaslServer} per connection ({@link #newServer}).
 */
public final class SaslDigest {

    /** The protocol and server name ZooKeeper's clients use for DIGEST-MD5. */
    static final String PROTOCOL = "zookeeper";
    static final String SERVER_NAME = "zk-sasl-md5";

    private final Map<String, String> passwords;

    public SaslDigest(Map<String, String> passwords) {
        if (passwords.isEmpty()) {
            throw new IllegalArgumentException("SASL needs at least one user");
        }
        this.passwords = Map.copyOf(passwords);
    }

    /**
     * The users of section {@code section} of the JAAS file {@code file}: its {@code user_NAME} options.
     *
     * @throws IllegalArgumentException when the file cannot be read or parsed, has no such section, or
     *                                  the section names no user
     */
    public static SaslDigest fromJaas(Path file, String section) {
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
        for (AppConfigurationEntry e : entries) {
            e.getOptions().forEach((k, v) -> {
                if (k.startsWith("user_") && k.length() > "user_".length()) {
                    users.put(k.substring("user_".length()), String.valueOf(v));
                }
            });
        }
        if (users.isEmpty()) {
            throw new IllegalArgumentException("section '" + section + "' of JAAS file " + file
                    + " names no user (expected options user_NAME=\"password\")");
        }
        return new SaslDigest(users);
    }

    /** The users who may authenticate (not their passwords). */
    public java.util.Set<String> users() {
        return passwords.keySet();
    }

    /** A server side of one DIGEST-MD5 negotiation. */
    SaslServer newServer() throws SaslException {
        SaslServer s = Sasl.createSaslServer("DIGEST-MD5", PROTOCOL, SERVER_NAME, null, new Callbacks());
        if (s == null) {
            throw new SaslException("this JVM offers no DIGEST-MD5 SASL server");
        }
        return s;
    }

    /** Answers the DIGEST-MD5 server's questions from {@link #passwords}. */
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
                    // as ZooKeeper: the authenticated user is the identity, whatever it asked to act as
                    a.setAuthorized(true);
                    a.setAuthorizedID(a.getAuthenticationID());
                }
            }
        }
    }

    @Override
    public String toString() {
        return "SaslDigest" + passwords.keySet();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SaslDigest d && d.passwords.equals(passwords);
    }

    @Override
    public int hashCode() {
        return Objects.hash(passwords);
    }
}
