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
 * are PEM, which is refused, anything else PKCS12). A trust store may also check that the certificates it
 * is asked to trust are not revoked ({@link Revocation}; ZooKeeper's {@code ssl.crl} and {@code ssl.ocsp},
 * ADR 067).
 */
public record TlsStore(Path location, char[] password, String type, Revocation revocation) {

    /**
     * How a trust store learns that a certificate it would trust was revoked, as ZooKeeper's {@code ssl.crl}
     * and {@code ssl.ocsp}: from the CRL at the certificate's CRL distribution point, from the OCSP responder
     * its authority information access names, or both (OCSP first). Every certificate of a chain below its
     * trust anchor must then say where; one whose status cannot be learnt is refused.
     */
    public enum Revocation {
        NONE, CRL, OCSP, CRL_AND_OCSP;

        /** From ZooKeeper's two flags. */
        public static Revocation of(boolean crl, boolean ocsp) {
            return crl ? (ocsp ? CRL_AND_OCSP : CRL) : (ocsp ? OCSP : NONE);
        }
    }

    public TlsStore {
        Objects.requireNonNull(location, "location");
        password = password == null ? new char[0] : password.clone();
        type = type == null || type.isBlank() ? typeOf(location) : type.strip().toUpperCase(Locale.ROOT);
        revocation = revocation == null ? Revocation.NONE : revocation;
    }

    /** A store that checks no revocation. */
    public TlsStore(Path location, char[] password, String type) {
        this(location, password, type, Revocation.NONE);
    }

    /** The same store, trusting only certificates not revoked as {@code r} tells. */
    public TlsStore withRevocation(Revocation r) {
        return new TlsStore(location, password, type, r);
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
            if (revocation == Revocation.NONE) {
                tmf.init(load());
            } else {
                tmf.init(new javax.net.ssl.CertPathTrustManagerParameters(revocationChecking()));
            }
            return tmf;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot use trust store " + location + ": " + e.getMessage(), e);
        }
    }

    /** PKIX parameters over this store's certificates that check revocation as {@link #revocation} says. */
    private java.security.cert.PKIXBuilderParameters revocationChecking() throws IOException, GeneralSecurityException {
        java.security.cert.PKIXBuilderParameters params =
                new java.security.cert.PKIXBuilderParameters(load(), new java.security.cert.X509CertSelector());
        java.security.cert.PKIXRevocationChecker checker = (java.security.cert.PKIXRevocationChecker)
                java.security.cert.CertPathValidator.getInstance("PKIX").getRevocationChecker();
        java.util.Set<java.security.cert.PKIXRevocationChecker.Option> options =
                java.util.EnumSet.noneOf(java.security.cert.PKIXRevocationChecker.Option.class);
        switch (revocation) {
            case CRL -> {
                options.add(java.security.cert.PKIXRevocationChecker.Option.PREFER_CRLS);
                options.add(java.security.cert.PKIXRevocationChecker.Option.NO_FALLBACK);
            }
            case OCSP -> options.add(java.security.cert.PKIXRevocationChecker.Option.NO_FALLBACK);
            default -> {
            }
        }
        if (revocation != Revocation.OCSP) {
            // the JDK fetches a certificate's CRL from its distribution point only with this (global) switch,
            // which ZooKeeper's ssl.crl turns on the same way
            System.setProperty("com.sun.security.enableCRLDP", "true");
        }
        checker.setOptions(options);
        params.addCertPathChecker(checker);
        params.setRevocationEnabled(true);
        return params;
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
