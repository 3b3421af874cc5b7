package io.eyrie.examples;

import io.eyrie.core.EyrieClient;
import io.eyrie.core.StateMachine;
import io.eyrie.core.sim.SimulatedMulticast;
import io.eyrie.examples.bank.BankCommands;
import io.eyrie.examples.bank.BankOracle;
import io.eyrie.examples.bank.BankServer;
import io.eyrie.examples.kv.KvCommands;
import io.eyrie.examples.kv.KvOracle;
import io.eyrie.examples.kv.KvServer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The examples as a user runs them: 2 partitions x 3 replicas and a client, here on the in-memory
 * multicast of eyrie-core's tests (swap in the Multi-Ring Paxos endpoint for a real deployment).
 */
class TwoPartitionServicesTest {

    @Test
    void bankTransfersAcrossPartitionsConserveMoney() {
        try (SimulatedMulticast net = new SimulatedMulticast(SimulatedMulticast.cluster(2, 3, 1), 1)) {
            List<BankServer> servers = new ArrayList<>();
            for (int node = 1; node <= 6; node++) {
                BankServer s = new BankServer(net.endpoint(node), 10, 100);
                s.runStateMachine();
                servers.add(s);
            }
            try (EyrieClient client = new EyrieClient(net.endpoint(7), new BankOracle())) {
                assertEquals(true, client.execute(BankCommands.transfer(0, 1, 60)), "account 0 holds 100");
                assertEquals(false, client.execute(BankCommands.transfer(0, 3, 60)), "account 0 holds 40 now");
                assertEquals(true, client.execute(BankCommands.transfer(1, 2, 160)));
                assertEquals(40L, client.execute(BankCommands.balance(0)));
                assertEquals(0L, client.execute(BankCommands.balance(1)));
                assertEquals(260L, client.execute(BankCommands.balance(2)));
                long total = 0;
                for (int account = 0; account < 10; account++) {
                    total += (Long) client.execute(BankCommands.balance(account));
                }
                assertEquals(1000, total, "money over both partitions");
            }
            servers.forEach(StateMachine::close);
        }
    }

    @Test
    void keyValueStoreCopiesAcrossPartitions() {
        try (SimulatedMulticast net = new SimulatedMulticast(SimulatedMulticast.cluster(2, 3, 1), 2)) {
            List<KvServer> servers = new ArrayList<>();
            for (int node = 1; node <= 6; node++) {
                KvServer s = new KvServer(net.endpoint(node));
                s.runStateMachine();
                servers.add(s);
            }
            KvOracle oracle = new KvOracle();
            try (EyrieClient client = new EyrieClient(net.endpoint(7), oracle)) {
                String a = "alpha";
                String b = "beta";
                int i = 0;
                while (oracle.getPartition(b).equals(oracle.getPartition(a))) {
                    b = "beta" + (++i); // make sure the copy crosses partitions
                }
                assertNull(client.execute(KvCommands.put(a, "1")));
                assertEquals("1", client.execute(KvCommands.put(a, "2")));
                assertEquals("2", client.execute(KvCommands.copy(a, b)));
                assertEquals("2", client.execute(KvCommands.get(b)));
                assertEquals("2", client.execute(KvCommands.delete(a)));
                assertNull(client.execute(KvCommands.get(a)));
            }
            servers.forEach(StateMachine::close);
        }
    }
}
