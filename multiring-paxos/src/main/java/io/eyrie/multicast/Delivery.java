package io.eyrie.multicast;

import java.util.Arrays;

/**
 * One message delivered by the merge, addressed to at least one group of the receiving node.
 *
 * @param position the global position (see {@link Position}); strictly increasing per learner
 * @param groups   the groups the message was multicast to, ascending
 * @param payload  the bytes given to {@link AtomicMulticast#multicast}
 */
public record Delivery(long position, int[] groups, byte[] payload) {

    public boolean addressedTo(int group) {
        return Arrays.binarySearch(groups, group) >= 0;
    }

    @Override
    public String toString() {
        return "Delivery[" + Position.toString(position) + " groups=" + Arrays.toString(groups)
                + " bytes=" + payload.length + "]";
    }
}
