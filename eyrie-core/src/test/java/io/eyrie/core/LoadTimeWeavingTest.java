package io.eyrie.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.File;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Load-time weaving: user classes compiled by plain javac are intercepted when the JVM runs with
 * {@code -javaagent:aspectjweaver-1.9.27.jar}, thanks to eyrie-core's META-INF/aop.xml. The same
 * program without the agent reads a stale remote copy, which shows the interception is what makes
 * the remote read correct.
 */
class LoadTimeWeavingTest {

    @Test
    void aForkedJvmWithTheWeaverAgentInterceptsUnwovenUserClasses(@TempDir Path dir) throws Exception {
        Path classes = compileDemo(dir);
        String withAgent = run(classes, true);
        assertTrue(withAgent.contains("RESULT readB=42"),
                "with the agent, partition 2 reads a=41 from partition 1 and stores 42; output was:\n" + withAgent);
        String withoutAgent = run(classes, false);
        assertTrue(withoutAgent.contains("RESULT readB=1"),
                "without any weaving, partition 2 reads its stale copy a=0 and stores 1; output was:\n" + withoutAgent);
    }

    private static Path compileDemo(Path dir) throws Exception {
        Path src = dir.resolve("src/ltw/demo/LtwDemo.java");
        Files.createDirectories(src.getParent());
        try (InputStream in = LoadTimeWeavingTest.class.getResourceAsStream("/ltw/LtwDemo.java.txt")) {
            assertNotNull(in, "test resource ltw/LtwDemo.java.txt");
            Files.write(src, in.readAllBytes());
        }
        Path out = dir.resolve("classes");
        Files.createDirectories(out);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "a JDK (not a JRE) is needed to compile the demo");
        int rc = javac.run(null, null, null, "-d", out.toString(), "-cp", System.getProperty("java.class.path"),
                src.toString());
        assertEquals(0, rc, "javac of the LTW demo");
        return out;
    }

    private static String run(Path classes, boolean agent) throws Exception {
        String cp = System.getProperty("java.class.path");
        String weaver = Arrays.stream(cp.split(File.pathSeparator))
                .filter(p -> p.contains("aspectjweaver")).findFirst()
                .orElseThrow(() -> new AssertionError("aspectjweaver jar not on the test class path"));
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        if (agent) {
            cmd.add("-javaagent:" + weaver);
        }
        cmd.add("-cp");
        cmd.add(classes + File.pathSeparator + cp);
        cmd.add("ltw.demo.LtwDemo");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] output = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "forked JVM did not exit");
        return new String(output, StandardCharsets.UTF_8);
    }
}
