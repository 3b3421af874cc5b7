package io.eyrie.multicast;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Locale;
import java.util.Objects;

/**
 * A key or trust store for TLS: its file, password (may be empty) and type, PKCS12 or JKS; without a
 * type, the file's extension decides, as in ZooKeeper ({@code .jks} is JKS, {@code .pem} and {@code .crt}
 * are PEM, which is refused, anything else PKCS12).
 */
public record TlsStore(Path location, char[] password, String type) {
    public TlsStore {
        Objects.requireNonNull(location, "location");
        password = password == null ? new char[0] : password.clone();
        type = type == null || type.isBlank() ? typeOf(location) : type.strip().toUpperCase(Locale.ROOT);
    }

    /** ZooKeeper's rule: the type follows the file's extension; PKCS12 when it says nothing. */
    public static String typeOf(Path p) {
        String name = p.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".jks")) {
            return "JKS";
        }
        if (name.endsWith(".pem") || name.endsWith(".crt")) {
            return "PEM";
        }
        return "PKCS12";
    }

    /** Whether this store's type can be read (PKCS12 or JKS). */
    public boolean supported() {
        return type.equals("PKCS12") || type.equals("JKS");
    }

    /** A key manager factory over this store's keys; IllegalArgumentException naming the store if unusable. */
    public javax.net.ssl.KeyManagerFactory keyManagerFactory() {
        try {
            javax.net.ssl.KeyManagerFactory kmf = javax.net.ssl.KeyManagerFactory.getInstance(
                    javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(load(), password);
            return kmf;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot use key store " + location + ": " + e.getMessage(), e);
        }
    }

    /** A trust manager factory over this store's certificates; IllegalArgumentException naming the store if unusable. */
    public javax.net.ssl.TrustManagerFactory trustManagerFactory() {
        try {
            javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance(
                    javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(load());
            return tmf;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot use trust store " + location + ": " + e.getMessage(), e);
        }
    }

    public KeyStore load() throws IOException, GeneralSecurityException {
        if (!supported()) {
            throw new GeneralSecurityException("store type " + type + " is not supported (PKCS12 or JKS) for " + location);
        }
        KeyStore ks = KeyStore.getInstance(type);
        try (InputStream in = Files.newInputStream(location)) {
            ks.load(in, password);
        }
        return ks;
    }
}
