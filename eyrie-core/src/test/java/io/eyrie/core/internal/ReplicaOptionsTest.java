package io.eyrie.core.internal;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The exchange timeout's default comes from -Deyrie.exchangeTimeoutMillis when set; bad values are refused. */
class ReplicaOptionsTest {

    @Test
    void theExchangeTimeoutDefaultsTo200MsOrToTheSystemProperty() {
        String before = System.getProperty("eyrie.exchangeTimeoutMillis");
        try {
            System.clearProperty("eyrie.exchangeTimeoutMillis");
            assertEquals(200, ReplicaOptions.defaults().exchangeTimeoutMillis());
            System.setProperty("eyrie.exchangeTimeoutMillis", "75");
            assertEquals(75, ReplicaOptions.defaults().exchangeTimeoutMillis());
            System.setProperty("eyrie.exchangeTimeoutMillis", "0");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ReplicaOptions.defaults().validate());
            assertEquals("exchangeTimeoutMillis must be at least 1, got 0", e.getMessage());
        } finally {
            if (before == null) {
                System.clearProperty("eyrie.exchangeTimeoutMillis");
            } else {
                System.setProperty("eyrie.exchangeTimeoutMillis", before);
            }
        }
    }
}
