package io.volery.server.tree;

/**
 * The knobs of a {@link ZnodeTree}. Every replica of a partition must use the same values.
 *
 * @param tickTimeMs           ZooKeeper's tickTime; session timeouts are bounded by [2, 20] ticks
 * @param maxDataBytes         the largest data a node may hold (the {@code jute.maxbuffer} limit)
 * @param superDigest          "super:base64(sha1(super:password))", or null for no super user
 * @param extendedTypesEnabled ZooKeeper's {@code zookeeper.extendedTypesEnabled}: TTL nodes allowed
 * @param reapsContainers      whether ticks delete empty containers and expired TTL nodes (ZooKeeper's
 *                             container manager); off only to compare with a server whose manager is off
 * @param saslSuperUsers       null when the cluster does not authenticate clients by SASL (the {@code sasl}
 *                             ACL scheme is then unknown, as in a ZooKeeper without its SASL provider);
 *                             otherwise the SASL identities that are super users (ZooKeeper's
 *                             {@code zookeeper.superUser}), possibly none
 * @param x509SuperUser        null when clients cannot authenticate by certificate (no TLS: the {@code x509}
 *                             ACL scheme is then unknown); otherwise the subject DN that is a super user
 *                             (ZooKeeper's {@code zookeeper.X509AuthenticationProvider.superUser}), "" for none
 * @param enforceQuota         ZooKeeper's {@code zookeeper.enforceQuota}: a create or setData past a quota's hard
 *                             limit fails with QuotaExceeded (ADR 072)
 */
public record TreeConfig(int tickTimeMs, int maxDataBytes, String superDigest, boolean extendedTypesEnabled,
                         boolean reapsContainers, java.util.Set<String> saslSuperUsers, String x509SuperUser,
                         boolean enforceQuota) {

    public static final int DEFAULT_MAX_BUFFER = 0xfffff;

    public TreeConfig {
        if (tickTimeMs <= 0) {
            throw new IllegalArgumentException("tickTimeMs must be positive, was " + tickTimeMs);
        }
        if (maxDataBytes < 0) {
            throw new IllegalArgumentException("maxDataBytes must not be negative, was " + maxDataBytes);
        }
        saslSuperUsers = saslSuperUsers == null ? null : java.util.Set.copyOf(saslSuperUsers);
    }

    public TreeConfig(int tickTimeMs, int maxDataBytes, String superDigest, boolean extendedTypesEnabled,
                      boolean reapsContainers) {
        this(tickTimeMs, maxDataBytes, superDigest, extendedTypesEnabled, reapsContainers, null, null, false);
    }

    public TreeConfig(int tickTimeMs, int maxDataBytes, String superDigest, boolean extendedTypesEnabled) {
        this(tickTimeMs, maxDataBytes, superDigest, extendedTypesEnabled, true);
    }

    public static TreeConfig defaults() {
        return new TreeConfig(2000, DEFAULT_MAX_BUFFER, null, true);
    }

    public TreeConfig withSuperDigest(String digest) {
        return new TreeConfig(tickTimeMs, maxDataBytes, digest, extendedTypesEnabled, reapsContainers, saslSuperUsers, x509SuperUser, enforceQuota);
    }

    public TreeConfig withMaxDataBytes(int bytes) {
        return new TreeConfig(tickTimeMs, bytes, superDigest, extendedTypesEnabled, reapsContainers, saslSuperUsers, x509SuperUser, enforceQuota);
    }

    public TreeConfig withExtendedTypes(boolean enabled) {
        return new TreeConfig(tickTimeMs, maxDataBytes, superDigest, enabled, reapsContainers, saslSuperUsers, x509SuperUser, enforceQuota);
    }

    public TreeConfig withContainerReaping(boolean reaps) {
        return new TreeConfig(tickTimeMs, maxDataBytes, superDigest, extendedTypesEnabled, reaps, saslSuperUsers, x509SuperUser, enforceQuota);
    }

    /** SASL authentication on, with {@code superUsers} as super users (none: an empty set). */
    public TreeConfig withSasl(java.util.Set<String> superUsers) {
        return new TreeConfig(tickTimeMs, maxDataBytes, superDigest, extendedTypesEnabled, reapsContainers,
                superUsers == null ? java.util.Set.of() : superUsers, x509SuperUser, enforceQuota);
    }

    /** Authentication by client certificate on (TLS), with the subject DN {@code superUser} (or null) a super user. */
    public TreeConfig withX509(String superUser) {
        return new TreeConfig(tickTimeMs, maxDataBytes, superDigest, extendedTypesEnabled, reapsContainers,
                saslSuperUsers, superUser == null ? "" : superUser, enforceQuota);
    }

    /** ZooKeeper's {@code zookeeper.enforceQuota} on or off (ADR 072). */
    public TreeConfig withQuotaEnforcement(boolean enforce) {
        return new TreeConfig(tickTimeMs, maxDataBytes, superDigest, extendedTypesEnabled, reapsContainers,
                saslSuperUsers, x509SuperUser, enforce);
    }

    /** Whether clients may authenticate by certificate, so that {@code x509} ACLs are valid. */
    public boolean x509Enabled() {
        return x509SuperUser != null;
    }

    /** Whether clients may authenticate by SASL, so that {@code sasl} ACLs are valid. */
    public boolean saslEnabled() {
        return saslSuperUsers != null;
    }

    int minSessionTimeoutMs() {
        return 2 * tickTimeMs;
    }

    int maxSessionTimeoutMs() {
        return 20 * tickTimeMs;
    }
}
