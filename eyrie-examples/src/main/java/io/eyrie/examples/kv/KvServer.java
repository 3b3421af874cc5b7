package io.eyrie.examples.kv;

import io.eyrie.core.Command;
import io.eyrie.core.PRObject;
import io.eyrie.core.StateMachine;
import io.eyrie.multicast.MulticastEndpoint;

/** A replica of one partition of the key-value store. Entries are created on first use. */
public class KvServer extends StateMachine {

    public KvServer(MulticastEndpoint endpoint) {
        super(endpoint, new KvOracle());
    }

    @Override
    protected PRObject createObject(Object key) {
        return new Entry((String) key);
    }

    private Entry entry(Object key) {
        return (Entry) getObject(key);
    }

    @Override
    public Object executeCommand(Command c) {
        String op = (String) c.getNext();
        switch (op) {
            case KvCommands.PUT -> {
                Entry e = entry(c.getNext());
                String previous = e.get();
                e.set((String) c.getNext());
                return previous;
            }
            case KvCommands.GET -> {
                return entry(c.getNext()).get();
            }
            case KvCommands.DELETE -> {
                Entry e = entry(c.getNext());
                String previous = e.get();
                e.set(null);
                return previous;
            }
            case KvCommands.COPY -> {
                String value = entry(c.getNext()).get(); // remote at dst's partition: Eyrie brings it
                entry(c.getNext()).set(value);
                return value;
            }
            default -> throw new IllegalArgumentException("unknown key-value command " + c);
        }
    }
}
