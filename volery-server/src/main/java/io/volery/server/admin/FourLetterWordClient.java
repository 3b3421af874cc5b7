package io.volery.server.admin;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** Asks a server (Volery or ZooKeeper) a four-letter word, as {@code echo mntr | nc host port} does. */
public final class FourLetterWordClient {
    private static final int MAX_ANSWER_BYTES = 16 * 1024 * 1024;

    private FourLetterWordClient() {
    }

    public static String ask(InetSocketAddress server, String word, int timeoutMillis) throws IOException {
        if (word.length() != 4) {
            throw new IllegalArgumentException("a four-letter word has four letters: '" + word + "'");
        }
        try (Socket s = new Socket()) {
            s.connect(server, timeoutMillis);
            s.setSoTimeout(timeoutMillis);
            s.getOutputStream().write(word.getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            InputStream in = s.getInputStream();
            byte[] answer = in.readNBytes(MAX_ANSWER_BYTES);
            return new String(answer, StandardCharsets.UTF_8);
        }
    }

    /** mntr's "key TAB value" lines as a map, in order. */
    public static Map<String, String> parseMntr(String text) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            int tab = line.indexOf('\t');
            if (tab > 0) {
                out.put(line.substring(0, tab), line.substring(tab + 1));
            }
        }
        return out;
    }
}
