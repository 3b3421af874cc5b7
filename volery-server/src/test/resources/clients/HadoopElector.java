import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.hadoop.ha.ActiveStandbyElector;
import org.apache.zookeeper.ZooDefs;

/**
 * One HA participant as an HDFS NameNode's or a YARN ResourceManager's failover controller runs it: Hadoop's own
 * ActiveStandbyElector (hadoop-common) on the ZooKeeper Java client, in the elector's own JVM. Arguments: the
 * connect string, the election's parent znode, this participant's name (its breadcrumb data). Prints what the
 * elector tells it, one line each (ACTIVE, STANDBY, NEUTRAL, FENCE name-of-the-old-active, FATAL message);
 * reads commands from stdin: "quit" leaves the election gracefully (no fencing needed), "active" prints the
 * active participant's name as the elector reads it. It stops when its stdin closes.
 */
public class HadoopElector {
    public static void main(String[] args) throws Exception {
        ActiveStandbyElector.ActiveStandbyElectorCallback app = new ActiveStandbyElector.ActiveStandbyElectorCallback() {
            @Override
            public void becomeActive() {
                say("ACTIVE");
            }

            @Override
            public void becomeStandby() {
                say("STANDBY");
            }

            @Override
            public void enterNeutralMode() {
                say("NEUTRAL");
            }

            @Override
            public void notifyFatalError(String message) {
                say("FATAL " + message);
            }

            @Override
            public void fenceOldActive(byte[] data) {
                say("FENCE " + new String(data, StandardCharsets.UTF_8));
            }
        };
        ActiveStandbyElector elector = new ActiveStandbyElector(args[0], 4000, args[1], ZooDefs.Ids.OPEN_ACL_UNSAFE,
                List.of(), app, 3, null);
        elector.ensureParentZNode();
        elector.joinElection(args[2].getBytes(StandardCharsets.UTF_8));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.equals("quit")) {
                elector.quitElection(false);
                say("QUIT");
            } else if (line.equals("active")) {
                say("ACTIVE-IS " + new String(elector.getActiveData(), StandardCharsets.UTF_8));
            }
        }
        Runtime.getRuntime().halt(0); // stdin closed: the test is done with it, or its JVM died
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
