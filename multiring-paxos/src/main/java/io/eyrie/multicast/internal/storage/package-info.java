/**
 * Acceptor storage: implementations of {@link io.eyrie.multicast.AcceptorLog}.
 *
 * <p>On-disk format of {@link io.eyrie.multicast.internal.storage.SegmentedAcceptorLog} (version 1,
 * big-endian). A log is a directory of segment files named {@code <20-digit first sequence>.seg},
 * where the sequence counts records since the log was created. Each file starts with a 20-byte
 * header {@code magic "EYLG", version:int, firstSequence:long, crc32c:int} and continues with
 * records {@code length:int, crc32c:int, type:byte, body}, where {@code length} counts type and body
 * and the CRC32C covers them:
 * <ul>
 *   <li>1 promise: {@code ballot:long}</li>
 *   <li>2 accept: {@code instance:long, ballot:long, value} (value length = length - 17, at most 64 MiB)</li>
 *   <li>3 decision: {@code instance:long, ballot:long}</li>
 *   <li>4 floor: {@code instance:long}, everything below was trimmed</li>
 * </ul>
 * Every segment after the first begins with the promise and floor current when it was created.
 * Only the last segment may end in a torn record; anything else that fails its checks is
 * corruption ({@link io.eyrie.multicast.internal.storage.CorruptLogException}).
 */
package io.eyrie.multicast.internal.storage;
