package io.lodestar.api.json;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

/** The server's JSON readers and writers, configured once (an ObjectMapper is thread-safe once configured). */
public final class Json {
    /**
     * HTTP answers and bodies, the push channel, UDP pushes and the audit log: nulls are written, as
     * Nacos's HTTP answers carry them; a value followed by anything but whitespace is refused.
     */
    public static final ObjectMapper MAPPER = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    /** Nacos's gRPC bodies, read as Nacos's Jackson reads them: unknown fields ignored; nulls left out. */
    public static final ObjectMapper PAYLOADS = MAPPER.copy()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .setSerializationInclusion(JsonInclude.Include.NON_NULL);

    private Json() {}
}
