package io.lodestar.api.cli.client;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One request being put together: parameters in the query, or in a form body (POST, PUT). A null
 * value leaves its parameter out. {@link #send} answers whatever the server answered; {@link #ok}
 * turns an answer that is not 2xx into a {@link CommandFailure} carrying the server's message.
 */
public final class Call {
    private final LodestarClient client;
    final String method;
    final String path;
    final Map<String, String> query = new LinkedHashMap<>();
    final Map<String, String> form = new LinkedHashMap<>();
    final Map<String, String> headers = new LinkedHashMap<>();

    Call(LodestarClient client, String method, String path) {
        this.client = client;
        this.method = method;
        this.path = path;
    }

    /** A parameter: in the form for POST and PUT, else in the query. */
    public Call param(String name, String value) {
        if (value != null) {
            (method.equals("POST") || method.equals("PUT") ? form : query).put(name, value);
        }
        return this;
    }

    /** A parameter in the query whatever the method. */
    public Call query(String name, String value) {
        if (value != null) {
            query.put(name, value);
        }
        return this;
    }

    /** A request header (e.g. Nacos's {@code betaIps}); a null value leaves it out. */
    public Call header(String name, String value) {
        if (value != null) {
            headers.put(name, value);
        }
        return this;
    }

    public Reply send() throws IOException, InterruptedException {
        return client.send(this);
    }

    /** The answer if it is 2xx, else a {@link CommandFailure} with its exit code and the server's message. */
    public Reply ok() throws IOException, InterruptedException {
        Reply reply = send();
        if (!reply.ok()) {
            throw failure(reply);
        }
        return reply;
    }

    /** The failure an answer that is not 2xx stands for. */
    public static CommandFailure failure(Reply reply) {
        String message = reply.text().trim();
        return new CommandFailure(
                ExitCodes.forStatus(reply.status()),
                message.isEmpty() ? "the server answered " + reply.status() : message);
    }
}
