/*
 * JNI binding of the DPDK calls the Java transport needs: EAL start, port setup, one RX and one
 * TX queue per port, bursts of raw Ethernet frames exchanged with Java through direct ByteBuffers,
 * device counters. Framing, fragmentation and checks live in Java so they are testable without DPDK.
 *
 * Threading: each port is polled by exactly one Java thread, which does both its RX and its TX, so
 * the (not thread-safe) queues of a port are never used concurrently.
 */
#include <jni.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <stdarg.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_random.h>
#include <rte_cycles.h>


#define BURST 32

struct port_ctx {
    uint16_t port;
    struct rte_mempool *pool;
    uint32_t rx_drop_per_million; /* test hook: packets discarded right after the PMD returns them */
    uint64_t injected_drops;
    uint64_t tx_full;             /* frames the TX ring did not take (device queue overflow) */
};

static void throw_state(JNIEnv *env, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void throw_state(JNIEnv *env, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    jclass c = (*env)->FindClass(env, "java/lang/IllegalStateException");
    if (c != NULL) {
        (*env)->ThrowNew(env, c, msg);
    }
}

JNIEXPORT void JNICALL Java_io_eyrie_transport_dpdk_DpdkNative_ealInit(JNIEnv *env, jclass cls, jobjectArray args) {
    (void) cls;
    jsize n = (*env)->GetArrayLength(env, args);
    char **argv = calloc((size_t) n + 2, sizeof(char *));
    argv[0] = strdup("eyrie-dpdk");
    for (jsize i = 0; i < n; i++) {
        jstring s = (jstring) (*env)->GetObjectArrayElement(env, args, i);
        const char *c = (*env)->GetStringUTFChars(env, s, NULL);
        argv[i + 1] = strdup(c);
        (*env)->ReleaseStringUTFChars(env, s, c);
    }
    /* rte_eal_init keeps pointers into argv, so it is deliberately never freed. */
    int rc = rte_eal_init((int) n + 1, argv);
    if (rc < 0) {
        throw_state(env, "rte_eal_init failed: %s (errno %d)", rte_strerror(rte_errno), rte_errno);
    }
}

JNIEXPORT void JNICALL Java_io_eyrie_transport_dpdk_DpdkNative_ealCleanup(JNIEnv *env, jclass cls) {
    (void) env; (void) cls;
    rte_eal_cleanup();
}

JNIEXPORT jint JNICALL Java_io_eyrie_transport_dpdk_DpdkNative_portByName(JNIEnv *env, jclass cls, jstring name) {
    (void) cls;
    const char *c = (*env)->GetStringUTFChars(env, name, NULL);
    uint16_t port;
    int rc = rte_eth_dev_get_port_by_name(c, &port);
    if (rc != 0) {
        uint16_t avail = rte_eth_dev_count_avail();
        throw_state(env, "no DPDK port named '%s' (%u ports available; is it in the EAL --vdev arguments?)", c, avail);
        (*env)->ReleaseStringUTFChars(env, name, c);
        return -1;
    }
    (*env)->ReleaseStringUTFChars(env, name, c);
    return port;
}

JNIEXPORT jlong JNICALL Java_io_eyrie_transport_dpdk_DpdkNative_portStart(JNIEnv *env, jclass cls, jint port,
        jint descriptors, jint mbufs, jint mtu, jint start_retries) {
    (void) cls;
    char pool_name[RTE_MEMPOOL_NAMESIZE];
    snprintf(pool_name, sizeof pool_name, "eyrie_pool_%d", port);
    uint16_t data_room = (uint16_t) (mtu + 14 + 4 + RTE_PKTMBUF_HEADROOM);
    if (data_room < RTE_MBUF_DEFAULT_BUF_SIZE) {
        data_room = RTE_MBUF_DEFAULT_BUF_SIZE;
    }
    /* A port stopped by an earlier transport in this process keeps its pool for the next one. */
    struct rte_mempool *pool = rte_mempool_lookup(pool_name);
    if (pool == NULL) pool = rte_pktmbuf_pool_create(pool_name, (unsigned) mbufs, 256, 0, data_room,
            rte_eth_dev_socket_id((uint16_t) port) < 0 ? SOCKET_ID_ANY : rte_eth_dev_socket_id((uint16_t) port));
    if (pool == NULL) {
        throw_state(env, "cannot create mbuf pool for port %d: %s", port, rte_strerror(rte_errno));
        return 0;
    }
    struct rte_eth_conf conf;
    memset(&conf, 0, sizeof conf);
    int rc = rte_eth_dev_configure((uint16_t) port, 1, 1, &conf);
    if (rc < 0) {
        throw_state(env, "rte_eth_dev_configure(port %d): %s", port, rte_strerror(-rc));
        return 0;
    }
    uint16_t nb = (uint16_t) descriptors;
    uint16_t nbt = (uint16_t) descriptors;
    rte_eth_dev_adjust_nb_rx_tx_desc((uint16_t) port, &nb, &nbt);
    int socket = rte_eth_dev_socket_id((uint16_t) port);
    rc = rte_eth_rx_queue_setup((uint16_t) port, 0, nb, (unsigned) (socket < 0 ? SOCKET_ID_ANY : socket), NULL, pool);
    if (rc < 0) {
        throw_state(env, "rx queue setup (port %d): %s", port, rte_strerror(-rc));
        return 0;
    }
    rc = rte_eth_tx_queue_setup((uint16_t) port, 0, nbt, (unsigned) (socket < 0 ? SOCKET_ID_ANY : socket), NULL);
    if (rc < 0) {
        throw_state(env, "tx queue setup (port %d): %s", port, rte_strerror(-rc));
        return 0;
    }
    /* Some virtual devices do not implement MTU changes; the Java side never sends above mtu. */
    rte_eth_dev_set_mtu((uint16_t) port, (uint16_t) mtu);
    /* A memif client cannot start before its server has created the socket: retry for a while
     * so that processes may start in any order. */
    for (int attempt = 0; attempt < start_retries; attempt++) {
        rc = rte_eth_dev_start((uint16_t) port);
        if (rc >= 0) {
            break;
        }
        rte_delay_us_sleep(100 * 1000);
    }
    if (rc < 0) {
        throw_state(env, "rte_eth_dev_start(port %d): %s", port, rte_strerror(-rc));
        return 0;
    }
    /* Frames are addressed by MACs derived from node ids, not the device's own MAC. */
    rte_eth_promiscuous_enable((uint16_t) port);
    struct port_ctx *ctx = calloc(1, sizeof *ctx);
    ctx->port = (uint16_t) port;
    ctx->pool = pool;
    return (jlong) (intptr_t) ctx;
}

JNIEXPORT void JNICALL Java_io_eyrie_transport_dpdk_DpdkNative_setRxDropPerMillion(JNIEnv *env, jclass cls,
        jlong handle, jint ppm) {
    (void) env; (void) cls;
    ((struct port_ctx *) (intptr_t) handle)->rx_drop_per_million = (uint32_t) ppm;
}

/*
 * Receives up to one burst into dst as records [u16 length, big-endian][frame bytes]; returns the
 * number of records. One copy per frame, from the mbuf into the direct buffer: the mbuf returns to
 * its pool at once, so a slow Java consumer can never exhaust the pool the PMD receives into.
 */
JNIEXPORT jint JNICALL Java_io_eyrie_transport_dpdk_DpdkNative_rxBurst(JNIEnv *env, jclass cls, jlong handle,
        jobject dst) {
    (void) cls;
    struct port_ctx *ctx = (struct port_ctx *) (intptr_t) handle;
    uint8_t *out = (*env)->GetDirectBufferAddress(env, dst);
    jlong cap = (*env)->GetDirectBufferCapacity(env, dst);
    struct rte_mbuf *pkts[BURST];
    uint16_t n = rte_eth_rx_burst(ctx->port, 0, pkts, BURST);
    jlong pos = 0;
    jint records = 0;
    for (uint16_t i = 0; i < n; i++) {
        struct rte_mbuf *m = pkts[i];
        uint32_t len = rte_pktmbuf_pkt_len(m);
        if (ctx->rx_drop_per_million != 0 && (rte_rand() % 1000000u) < ctx->rx_drop_per_million) {
            ctx->injected_drops++;
        } else if (len <= 0xffff && pos + 2 + len <= cap) {
            out[pos] = (uint8_t) (len >> 8);
            out[pos + 1] = (uint8_t) len;
            /* rte_pktmbuf_read copies across segments when a PMD chains them. */
            const void *p = rte_pktmbuf_read(m, 0, len, out + pos + 2);
            if (p != out + pos + 2) {
                memcpy(out + pos + 2, p, len);
            }
            pos += 2 + len;
            records++;
        }
        rte_pktmbuf_free(m);
    }
    return records;
}

/*
 * Sends count records [u16 length][frame bytes] from src, in order, and returns how many the device
 * took. It stops at the first packet the TX ring refuses (a full ring): the caller keeps the rest
 * and retries them on its next turn instead of losing a fragment of a message.
 */
JNIEXPORT jint JNICALL Java_io_eyrie_transport_dpdk_DpdkNative_txBurst(JNIEnv *env, jclass cls, jlong handle,
        jobject src, jint count) {
    (void) cls;
    struct port_ctx *ctx = (struct port_ctx *) (intptr_t) handle;
    const uint8_t *in = (*env)->GetDirectBufferAddress(env, src);
    struct rte_mbuf *pkts[BURST];
    jint sent = 0;
    jlong pos = 0;
    while (count > 0) {
        int batch = count < BURST ? count : BURST;
        if (rte_pktmbuf_alloc_bulk(ctx->pool, pkts, (unsigned) batch) != 0) {
            break;
        }
        for (int i = 0; i < batch; i++) {
            uint16_t len = (uint16_t) ((in[pos] << 8) | in[pos + 1]);
            char *d = rte_pktmbuf_append(pkts[i], len);
            memcpy(d, in + pos + 2, len);
            pos += 2 + len;
        }
        uint16_t ok = rte_eth_tx_burst(ctx->port, 0, pkts, (uint16_t) batch);
        for (int i = ok; i < batch; i++) {
            rte_pktmbuf_free(pkts[i]);
        }
        sent += ok;
        if (ok < batch) {
            break;
        }
        count -= batch;
    }
    return sent;
}

JNIEXPORT void JNICALL Java_io_eyrie_transport_dpdk_DpdkNative_countTxOverflow(JNIEnv *env, jclass cls, jlong handle,
        jint packets) {
    (void) env; (void) cls;
    ((struct port_ctx *) (intptr_t) handle)->tx_full += (uint64_t) packets;
}

/* out: ipackets, opackets, imissed, ierrors, oerrors, rx_nombuf, injected drops, tx overflow. */
JNIEXPORT void JNICALL Java_io_eyrie_transport_dpdk_DpdkNative_portStats(JNIEnv *env, jclass cls, jlong handle,
        jlongArray out) {
    (void) cls;
    struct port_ctx *ctx = (struct port_ctx *) (intptr_t) handle;
    struct rte_eth_stats s;
    memset(&s, 0, sizeof s);
    rte_eth_stats_get(ctx->port, &s);
    jlong v[8] = {(jlong) s.ipackets, (jlong) s.opackets, (jlong) s.imissed, (jlong) s.ierrors,
                  (jlong) s.oerrors, (jlong) s.rx_nombuf, (jlong) ctx->injected_drops, (jlong) ctx->tx_full};
    (*env)->SetLongArrayRegion(env, out, 0, 8, v);
}

JNIEXPORT jboolean JNICALL Java_io_eyrie_transport_dpdk_DpdkNative_portLinkUp(JNIEnv *env, jclass cls, jlong handle) {
    (void) env; (void) cls;
    struct port_ctx *ctx = (struct port_ctx *) (intptr_t) handle;
    struct rte_eth_link link;
    memset(&link, 0, sizeof link);
    rte_eth_link_get_nowait(ctx->port, &link);
    return link.link_status == RTE_ETH_LINK_UP ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT jstring JNICALL Java_io_eyrie_transport_dpdk_DpdkNative_portMac(JNIEnv *env, jclass cls, jlong handle) {
    (void) cls;
    struct port_ctx *ctx = (struct port_ctx *) (intptr_t) handle;
    struct rte_ether_addr a;
    char buf[RTE_ETHER_ADDR_FMT_SIZE];
    rte_eth_macaddr_get(ctx->port, &a);
    rte_ether_format_addr(buf, sizeof buf, &a);
    return (*env)->NewStringUTF(env, buf);
}

JNIEXPORT void JNICALL Java_io_eyrie_transport_dpdk_DpdkNative_portStop(JNIEnv *env, jclass cls, jlong handle) {
    (void) env; (void) cls;
    struct port_ctx *ctx = (struct port_ctx *) (intptr_t) handle;
    /* Stopped, not closed: a virtual device cannot be probed again, and a later transport in the
     * same process (benchmarks, tests) may start the port again. */
    rte_eth_dev_stop(ctx->port);
    free(ctx);
}
