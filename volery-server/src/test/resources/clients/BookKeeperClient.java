import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import org.apache.bookkeeper.client.BKException;
import org.apache.bookkeeper.client.BookKeeper;
import org.apache.bookkeeper.client.BookKeeperAdmin;
import org.apache.bookkeeper.client.LedgerEntry;
import org.apache.bookkeeper.client.LedgerHandle;
import org.apache.bookkeeper.conf.ClientConfiguration;
import org.apache.bookkeeper.conf.ServerConfiguration;
import org.apache.bookkeeper.net.BookieId;

/**
 * A BookKeeper 4.18 client in its own JVM (for BookKeeperOnVoleryTest), driven line by line from stdin; one line
 * of answer per command. Argument: the metadata service URI (zk+hierarchical://host:port;host:port/ledgers). Two
 * clients (two ZooKeeper sessions): one writes, creates and deletes ledgers, the other opens them with recovery,
 * which fences the writer; an admin lists bookies and ledgers as BookKeeper's shell does. With arguments "bookie
 * FILE", a bookie instead. Either stops when its stdin closes.
 */
public class BookKeeperClient {
    private static final byte[] PASSWORD = "volery".getBytes(StandardCharsets.UTF_8);

    public static void main(String[] args) throws Exception {
        if (args[0].equals("bookie")) {
            bookie(args[1]);
            return;
        }
        try {
            client(args[0]);
        } finally {
            Runtime.getRuntime().halt(0); // BookKeeper's threads would keep the JVM alive
        }
    }

    /**
     * A bookie ({@code org.apache.bookkeeper.server.Main --conf FILE}) that stops, as with kill -9, when its stdin
     * closes: a bookie whose test JVM died must not outlive it, retrying a metadata store that is gone.
     */
    private static void bookie(String conf) throws Exception {
        Thread server = new Thread(() -> org.apache.bookkeeper.server.Main.main(new String[] {"--conf", conf}),
                "bookie-main");
        server.start();
        while (System.in.read() >= 0) {
            // nothing is sent to a bookie
        }
        Runtime.getRuntime().halt(0);
    }

    private static void client(String uri) throws Exception {
        ClientConfiguration conf = new ClientConfiguration();
        conf.setMetadataServiceUri(uri);
        conf.setZkTimeout(10_000);
        conf.setAddEntryTimeout(10);
        conf.setReadEntryTimeout(10);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        BookKeeper writer = null;
        BookKeeper reader = null;
        BookKeeperAdmin admin = null;
        Map<String, LedgerHandle> open = new java.util.HashMap<>();
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            String[] w = line.trim().split(" ");
            try {
                switch (w[0]) {
                    case "init" -> {
                        ServerConfiguration server = new ServerConfiguration();
                        server.setMetadataServiceUri(uri);
                        say("init " + BookKeeperAdmin.initNewCluster(server));
                    }
                    case "connect" -> {
                        writer = BookKeeper.forConfig(conf).build();
                        reader = BookKeeper.forConfig(new ClientConfiguration(conf)).build();
                        admin = new BookKeeperAdmin(new ClientConfiguration(conf));
                        say("connected");
                    }
                    case "bookies" -> {
                        List<String> ids = new ArrayList<>();
                        for (BookieId id : admin.getAvailableBookies()) {
                            ids.add(id.toString());
                        }
                        ids.sort(null);
                        say("bookies " + String.join(",", ids));
                    }
                    case "create" -> { // create NAME
                        LedgerHandle lh = writer.createLedger(3, 2, 2, BookKeeper.DigestType.CRC32, PASSWORD);
                        open.put(w[1], lh);
                        say("created " + w[1] + " id " + lh.getId() + " ensemble " + ensemble(lh));
                    }
                    case "write" -> { // write NAME FROM COUNT
                        LedgerHandle lh = open.get(w[1]);
                        int from = Integer.parseInt(w[2]);
                        long last = -1;
                        for (int i = from; i < from + Integer.parseInt(w[3]); i++) {
                            last = lh.addEntry(entry(w[1], i));
                        }
                        say("wrote " + w[1] + " up to entry " + last + ", ensembles " + lh.getLedgerMetadata()
                                .getAllEnsembles().size() + ", last ensemble " + ensemble(lh));
                    }
                    case "close" -> {
                        open.get(w[1]).close();
                        say("closed " + w[1]);
                    }
                    case "read" -> { // read NAME ID: opens with recovery (fences a writer) and checks every entry
                        long id = Long.parseLong(w[2]);
                        LedgerHandle lh = reader.openLedger(id, BookKeeper.DigestType.CRC32, PASSWORD);
                        long last = lh.getLastAddConfirmed();
                        int good = 0;
                        if (last >= 0) {
                            Enumeration<LedgerEntry> entries = lh.readEntries(0, last);
                            long expected = 0;
                            while (entries.hasMoreElements()) {
                                LedgerEntry e = entries.nextElement();
                                if (e.getEntryId() == expected
                                        && java.util.Arrays.equals(e.getEntry(), entry(w[1], (int) expected))) {
                                    good++;
                                }
                                expected++;
                            }
                        }
                        lh.close();
                        say("read " + w[1] + ": last entry " + last + ", " + good + " entries as written");
                    }
                    case "holders" -> { // holders ID: every bookie of the ledger's ensembles, read without recovery
                        LedgerHandle lh = admin.openLedgerNoRecovery(Long.parseLong(w[1]));
                        java.util.TreeSet<String> ids = new java.util.TreeSet<>();
                        for (List<BookieId> e : lh.getLedgerMetadata().getAllEnsembles().values()) {
                            e.forEach(id -> ids.add(id.toString()));
                        }
                        lh.close();
                        say("holders " + w[1] + " " + String.join(",", ids));
                    }
                    case "delete" -> {
                        writer.deleteLedger(Long.parseLong(w[1]));
                        say("deleted " + w[1]);
                    }
                    case "ledgers" -> {
                        List<Long> ids = new ArrayList<>();
                        for (Long id : admin.listLedgers()) {
                            ids.add(id);
                        }
                        ids.sort(null);
                        say("ledgers " + ids);
                    }
                    case "quit" -> {
                        admin.close();
                        reader.close();
                        writer.close();
                        say("quit");
                        return;
                    }
                    default -> say("unknown " + line);
                }
            } catch (BKException e) {
                say("error " + w[0] + " " + e.getClass().getSimpleName());
            }
        }
    }

    private static String ensemble(LedgerHandle lh) {
        List<String> ids = new ArrayList<>();
        for (BookieId id : lh.getLedgerMetadata().getAllEnsembles().lastEntry().getValue()) {
            ids.add(id.toString());
        }
        return String.join(",", ids);
    }

    private static byte[] entry(String ledger, int i) {
        return (ledger + "-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
