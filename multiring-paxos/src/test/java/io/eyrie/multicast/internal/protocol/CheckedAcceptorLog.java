package io.eyrie.multicast.internal.protocol;

import io.eyrie.multicast.AcceptorLog;

import java.util.Optional;

/**
 * The simulation's disk: a real log whose decision records are checked for agreement as they
 * are written, independently of what the protocol reports about itself.
 */
final class CheckedAcceptorLog implements AcceptorLog {
    private final int ring;
    private final AcceptorLog log;
    private final SimChecker checker;

    CheckedAcceptorLog(int ring, AcceptorLog log, SimChecker checker) {
        this.ring = ring;
        this.log = log;
        this.checker = checker;
    }

    @Override
    public RecoveredState recovered() {
        return log.recovered();
    }

    @Override
    public void appendPromise(long ballot) {
        log.appendPromise(ballot);
    }

    @Override
    public void appendAccept(long instance, long ballot, byte[] value) {
        log.appendAccept(instance, ballot, value);
    }

    @Override
    public void appendDecision(long instance, long ballot) {
        log.appendDecision(instance, ballot);
        Optional<AcceptedValue> v = log.read(instance);
        if (v.isPresent() && v.get().ballot() == ballot && v.get().decided()) {
            checker.decided(ring, instance, v.get().value());
        }
    }

    @Override
    public void sync() {
        log.sync();
    }

    @Override
    public Optional<AcceptedValue> read(long instance) {
        return log.read(instance);
    }

    @Override
    public void trimBelow(long instance) {
        log.trimBelow(instance);
    }

    @Override
    public long lowestInstance() {
        return log.lowestInstance();
    }

    @Override
    public void close() {
        log.close();
    }
}
