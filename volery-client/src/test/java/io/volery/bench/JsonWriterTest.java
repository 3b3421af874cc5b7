package io.volery.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonWriterTest {

    @Test
    void nestedDocumentReadsBackAsWritten() {
        String json = new JsonWriter().beginObject()
                .field("s", "quote \" backslash \\ newline \n tab \t bell \u0007")
                .field("n", 42L)
                .field("d", 1.5)
                .field("b", true)
                .name("empty").beginObject().endObject()
                .name("list").beginArray().value(1L).value("two").beginObject().field("x", 3L).endObject().endArray()
                .endObject().toJson();
        Object parsed = MiniJson.parse(json);
        assertEquals(Map.of(
                "s", "quote \" backslash \\ newline \n tab \t bell \u0007",
                "n", 42.0,
                "d", 1.5,
                "b", true,
                "empty", Map.of(),
                "list", List.of(1.0, "two", Map.of("x", 3.0))), parsed, "document:\n" + json);
    }

    @Test
    void notANumberIsWrittenAsNull() {
        String json = new JsonWriter().beginObject().field("nan", Double.NaN).field("inf", Double.POSITIVE_INFINITY)
                .endObject().toJson();
        Map<?, ?> parsed = (Map<?, ?>) MiniJson.parse(json);
        assertEquals(true, parsed.containsKey("nan") && parsed.get("nan") == null && parsed.get("inf") == null,
                "NaN and infinity have no JSON form and are written as null, got " + json);
    }

    @Test
    void anUnclosedContainerIsAnError() {
        JsonWriter w = new JsonWriter().beginObject().name("a").beginArray();
        assertThrows(IllegalStateException.class, w::toJson, "toJson with open containers");
    }
}
