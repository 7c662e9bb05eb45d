package io.lodestar.api.udp;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lodestar.api.json.Json;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.GZIPOutputStream;

/**
 * The datagrams of Nacos 1.x UDP push. Server to client: {@code {"type":"dom","data":"<list JSON as
 * a string>","lastRefTime":N}}, gzipped when over {@value #GZIP_ABOVE} bytes (the client sniffs
 * the gzip magic). Client to server: {@code {"type":"push-ack","lastRefTime":"N","data":""}},
 * where N echoes the push's {@code lastRefTime}, which therefore serves as the push's id.
 */
final class PushPacket {
    static final int GZIP_ABOVE = 1024;
    /** The largest UDP payload over IPv4; the 1.x client reads into a 64 KiB buffer. */
    static final int MAX_DATAGRAM = 65_507;

    private static final ObjectMapper JSON = Json.MAPPER;

    private PushPacket() {}

    static byte[] encode(String type, String data, long id) {
        Map<String, Object> packet = new LinkedHashMap<>();
        packet.put("type", type);
        packet.put("data", data);
        packet.put("lastRefTime", id);
        byte[] plain;
        try {
            plain = JSON.writeValueAsBytes(packet);
        } catch (JacksonException e) {
            throw new IllegalStateException(e);
        }
        return plain.length > GZIP_ABOVE ? gzip(plain) : plain;
    }

    private static byte[] gzip(byte[] plain) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(plain.length / 4 + 64);
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(plain);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /**
     * The id a push-ack acknowledges, or -1 if the datagram is not a well-formed ack. {@code
     * lastRefTime} may be a string (as the 1.x client sends it) or a number.
     */
    static long ackedId(byte[] datagram, int length) {
        JsonNode node;
        try {
            node = JSON.readTree(new String(datagram, 0, length, StandardCharsets.UTF_8).trim());
        } catch (JacksonException e) {
            return -1;
        }
        if (node == null
                || !node.isObject()
                || !"push-ack".equals(node.path("type").asText())) {
            return -1;
        }
        JsonNode id = node.get("lastRefTime");
        if (id == null) {
            return -1;
        }
        if (id.isIntegralNumber() && id.canConvertToLong()) {
            return id.asLong();
        }
        if (id.isTextual()) {
            try {
                return Long.parseLong(id.asText().trim());
            } catch (NumberFormatException e) {
                return -1;
            }
        }
        return -1;
    }
}
