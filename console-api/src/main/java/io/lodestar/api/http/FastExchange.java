package io.lodestar.api.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;

/** One request a {@link FastPaths.Route} answers: its parameters, its peer, and the answers Javalin's routes give. */
public final class FastExchange {
    /** Writes the same JSON as Javalin's default Jackson mapper for the maps and lists the routes answer. */
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServletRequest req;
    private final HttpServletResponse resp;
    private final Map<String, String> params;

    FastExchange(HttpServletRequest req, HttpServletResponse resp, Map<String, String> params) {
        this.req = req;
        this.resp = resp;
        this.params = params;
    }

    /** The query's and the form's parameters (each name occurs once). */
    public Params params() {
        return params::get;
    }

    /** The names of the parameters given. */
    public Set<String> names() {
        return params.keySet();
    }

    /** The connection's peer address, from the socket. */
    public String remoteAddr() {
        return req.getRemoteAddr();
    }

    public HttpServletResponse response() {
        return resp;
    }

    /** Answers 200 with {@code body} as JSON, as {@code ctx.json} does. */
    public void json(Object body) throws IOException {
        write("application/json", JSON.writeValueAsBytes(body));
    }

    /** Answers 200 with {@code body} as plain text, as {@code ctx.result} does. */
    public void text(String body) throws IOException {
        write("text/plain", body.getBytes(StandardCharsets.UTF_8));
    }

    private void write(String contentType, byte[] body) throws IOException {
        resp.setContentType(contentType);
        resp.setContentLength(body.length);
        resp.getOutputStream().write(body);
    }
}
