package io.volery.server.clients;

import io.volery.server.clients.ExternalProcess.Outcome;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import static io.volery.server.clients.ExternalProcess.run;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The Python venv of the kazoo tests, under target/ and reused while it has what they import; what it
 * lacks, pip installs from PyPI. A machine that cannot build it skips the test, saying why. Test classes run
 * in parallel JVMs (surefire forks), so whoever checks or builds the venv holds a file lock meanwhile: two
 * forks building it at once would each clear what the other installed.
 */
final class KazooVenv {
    private static final Path VENV = Path.of("target", "kazoo-venv").toAbsolutePath();
    private static final Path LOCK = Path.of("target", "kazoo-venv.lock").toAbsolutePath();
    static final Path PYTHON = VENV.resolve("bin").resolve("python");

    private KazooVenv() {
    }

    /**
     * The venv's Python, once it can import {@code modules} (comma-separated, as Python's import
     * statement takes them), pip installing {@code requirements} into it if it cannot yet.
     */
    static Path python(String modules, String... requirements) throws InterruptedException, IOException {
        Files.createDirectories(LOCK.getParent());
        try (FileChannel lock = FileChannel.open(LOCK, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock held = lock.lock()) {
            return pythonLocked(modules, requirements);
        }
    }

    private static Path pythonLocked(String modules, String... requirements) throws InterruptedException {
        if (run(List.of(PYTHON.toString(), "-c", "import " + modules), 30).exit() == 0) {
            return PYTHON;
        }
        if (!Files.isExecutable(PYTHON) || run(List.of(PYTHON.toString(), "-c", "import sys"), 30).exit() != 0) {
            Outcome venv = run(List.of("python3", "-m", "venv", "--clear", VENV.toString()), 60);
            assumeTrue(venv.exit() == 0, "kazoo test skipped: python3 -m venv failed: " + venv.output());
        }
        List<String> pip = new ArrayList<>(List.of(PYTHON.toString(), "-m", "pip", "install", "-q",
                "--disable-pip-version-check"));
        pip.addAll(List.of(requirements));
        Outcome installed = run(pip, 150);
        assumeTrue(installed.exit() == 0, "kazoo test skipped: pip could not install " + List.of(requirements)
                + " (PyPI unreachable?): " + installed.output());
        return PYTHON;
    }
}
