package io.lodestar.api.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.api.json.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** A server's answer as received: status and body bytes, untouched (a config's content is printed as is). */
public record Reply(int status, byte[] body) {
    public String text() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /** The body as JSON; a body that is not JSON is a {@link CommandFailure} (exit 1) quoting it. */
    public JsonNode json() {
        try {
            return Json.MAPPER.readTree(body);
        } catch (IOException e) {
            throw new CommandFailure(ExitCodes.FAILED, "the server answered something that is not JSON: " + text());
        }
    }

    public boolean ok() {
        return status >= 200 && status < 300;
    }
}
