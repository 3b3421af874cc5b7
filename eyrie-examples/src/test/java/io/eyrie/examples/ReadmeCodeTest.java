package io.eyrie.examples;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** eyrie-core/README.md shows the example code; each of its Java blocks must be an example file, verbatim. */
class ReadmeCodeTest {

    @Test
    void everyJavaBlockOfTheReadmeIsAnExampleSourceFile() throws IOException {
        Path module = Path.of("").toAbsolutePath();
        String readme = Files.readString(module.resolveSibling("eyrie-core").resolve("README.md"));
        Matcher m = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL).matcher(readme);
        List<String> blocks = new ArrayList<>();
        while (m.find()) {
            blocks.add(m.group(1));
        }
        assertTrue(blocks.size() >= 4, "expected the README to show the example classes, found " + blocks.size() + " blocks");
        List<String> sources = new ArrayList<>();
        try (Stream<Path> files = Files.walk(module.resolve("src/main/java"))) {
            for (Path p : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                sources.add(Files.readString(p));
            }
        }
        for (String block : blocks) {
            String firstLine = block.lines().filter(l -> l.startsWith("public")).findFirst().orElse(block.lines().findFirst().orElse(""));
            assertEquals(1, sources.stream().filter(s -> s.equals(block)).count(),
                    "README block starting '" + firstLine + "' differs from its file in eyrie-examples; regenerate the README");
        }
    }
}
