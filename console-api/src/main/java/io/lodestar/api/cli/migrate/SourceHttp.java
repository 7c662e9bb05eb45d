package io.lodestar.api.cli.migrate;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.api.cli.client.Call;
import io.lodestar.api.cli.client.LodestarClient;
import io.lodestar.api.cli.client.Reply;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;

/**
 * The source's HTTP API as the readers use it: JSON answers to GETs. An answer that is not 2xx is
 * a {@link SourceException} quoting it, except where {@link #find} makes a 404 an empty answer.
 * The readers take this interface so that the 3.x reader can be tested against recorded answers.
 */
interface SourceHttp {
    /** The JSON answer to {@code GET path?query}; 404 is empty. */
    Optional<JsonNode> find(String path, Map<String, String> query) throws IOException, InterruptedException;

    /** The JSON answer to {@code GET path?query}; any answer but 2xx is a {@link SourceException}. */
    default JsonNode get(String path, Map<String, String> query) throws IOException, InterruptedException {
        return find(path, query).orElseThrow(() -> new SourceException("the source answered 404 to GET " + path));
    }

    /** A failure reading the source: the message says what was asked and what came back. */
    final class SourceException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        SourceException(String message) {
            super(message);
        }
    }

    /** Over the command line's HTTP client (servers, login, TLS as {@link LodestarClient} does them). */
    static SourceHttp over(LodestarClient client) {
        return (path, query) -> {
            Call call = client.get(path);
            query.forEach(call::param);
            Reply reply = call.send();
            if (reply.status() == 404) {
                return Optional.empty();
            }
            if (!reply.ok()) {
                String body = reply.text().trim();
                throw new SourceException("the source answered " + reply.status() + " to GET " + path
                        + (body.isEmpty() ? "" : ": " + (body.length() > 300 ? body.substring(0, 300) + "..." : body)));
            }
            return Optional.of(reply.json());
        };
    }
}
