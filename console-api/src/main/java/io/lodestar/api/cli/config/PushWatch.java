package io.lodestar.api.cli.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lodestar.api.cli.client.CommandFailure;
import io.lodestar.api.cli.client.ExitCodes;
import io.lodestar.api.cli.client.LodestarClient;
import io.lodestar.api.cli.client.Output;
import io.lodestar.api.json.Json;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The watch loop over the push channel. It subscribes all keys in one message; the server's
 * {@code subscribed} revision, and after it each live notice's, is the point to resume from. When
 * the connection ends (server killed or restarted, network cut, 1001/1013 close), it connects again
 * (the server that answered last first, then the others in order; pausing from 250 ms up to 5 s
 * between rounds) and subscribes with {@code sinceRevision} = that point, so every change made
 * meanwhile is printed. Notices replayed before {@code subscribed} are not globally ordered across
 * keys, so they do not move the resume point; a notice at or below the last one printed for its
 * key is not printed twice.
 *
 * <p>Stops only on a refusal (a token or login refused, a key the user may not read: exit 4) or an
 * error the server gives to the subscription itself (exit 1); otherwise runs until killed.
 */
final class PushWatch {
    private static final Duration PING_EVERY = Duration.ofSeconds(30);
    private static final long FIRST_PAUSE_MILLIS = 250;
    private static final long LONGEST_PAUSE_MILLIS = 5_000;

    private final LodestarClient client;
    private final Output out;
    private final String group;
    private final String tenant;
    private final List<String> dataIds;
    /** The revision to resume after, or -1 before the first {@code subscribed} (without --since-revision). */
    private long resumeAfter;

    private final Map<String, Long> printed = new HashMap<>();

    PushWatch(LodestarClient client, Output out, String group, String tenant, List<String> dataIds, Long since) {
        this.client = client;
        this.out = out;
        this.group = group;
        this.tenant = tenant;
        this.dataIds = List.copyOf(dataIds);
        this.resumeAfter = since == null ? -1 : since;
    }

    int run() throws InterruptedException {
        long pause = FIRST_PAUSE_MILLIS;
        boolean everConnected = false;
        boolean freshToken = false;
        while (true) {
            PushConnection connection = null;
            URI connectedTo = null;
            StringBuilder failures = new StringBuilder();
            for (URI server : client.serversFromCurrent()) {
                try {
                    connection = PushConnection.open(client.http(), server, token(freshToken));
                    connectedTo = server;
                    client.answeredBy(server);
                    break;
                } catch (PushConnection.Refused r) {
                    if (ExitCodes.forStatus(r.status) == ExitCodes.REFUSED && !freshToken) {
                        freshToken = true; // a token from a login may have expired: log in again once
                        failures.append(server.getAuthority()).append(" (refused: logging in again) ");
                        continue;
                    }
                    throw new CommandFailure(
                            ExitCodes.forStatus(r.status), server.getAuthority() + ": " + r.getMessage());
                } catch (IOException e) {
                    failures.append(failures.length() == 0 ? "" : ", ")
                            .append(server.getAuthority())
                            .append(" (")
                            .append(e.getMessage())
                            .append(')');
                }
            }
            if (connection == null) {
                System.err.println("no connection: " + failures + "; retrying in " + pause + " ms");
                Thread.sleep(pause);
                pause = Math.min(LONGEST_PAUSE_MILLIS, pause * 2);
                continue;
            }
            freshToken = false;
            if (everConnected) {
                System.err.println("reconnected to " + connectedTo.getAuthority()
                        + (resumeAfter >= 0 ? "; resuming after revision " + resumeAfter : ""));
            }
            everConnected = true;
            String why = follow(connection, connectedTo);
            connection.close();
            System.err.println("disconnected from " + connectedTo.getAuthority() + ": " + why + "; reconnecting");
            pause = FIRST_PAUSE_MILLIS;
        }
    }

    private String token(boolean fresh) throws IOException {
        try {
            return client.token(fresh);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        } catch (CommandFailure f) {
            if (f.exitCode() == ExitCodes.FAILED) {
                throw new IOException(f.getMessage()); // no server reachable for the login: retried
            }
            throw f;
        }
    }

    /** Subscribes on {@code connection} and prints its notices until it ends; returns why it ended. */
    private String follow(PushConnection connection, URI server) throws InterruptedException {
        try {
            connection.send(subscribe());
        } catch (IOException e) {
            return e.getMessage();
        }
        boolean subscribed = false;
        while (true) {
            JsonNode message = connection.next(PING_EVERY);
            if (message == null) {
                try {
                    connection.send(Json.MAPPER.createObjectNode().put("type", "ping"));
                } catch (IOException e) {
                    return e.getMessage();
                }
                continue;
            }
            switch (message.path("type").asText()) {
                case PushConnection.CLOSED -> {
                    return message.path("reason").asText();
                }
                case "subscribed" -> {
                    resumeAfter = Math.max(resumeAfter, message.path("revision").asLong());
                    if (!subscribed) {
                        System.err.println("watching " + dataIds.size() + " config(s) on " + server.getAuthority()
                                + " at revision " + resumeAfter);
                    }
                    subscribed = true;
                }
                case "changed" -> changed(message, subscribed);
                case "error" -> {
                    String why = message.path("message").asText();
                    throw new CommandFailure(
                            why.contains(" may not ") ? ExitCodes.REFUSED : ExitCodes.FAILED,
                            "the server refused the subscription: " + why);
                }
                default -> {
                    // pong, unsubscribed: nothing to print
                }
            }
        }
    }

    private void changed(JsonNode notice, boolean live) {
        long revision = notice.path("revision").asLong();
        String key = notice.path("tenant").asText() + "/" + notice.path("group").asText() + "/"
                + notice.path("dataId").asText();
        if (live) {
            resumeAfter = Math.max(resumeAfter, revision);
        }
        Long last = printed.get(key);
        if (last != null && revision <= last) {
            return;
        }
        printed.put(key, revision);
        String what = notice.path("deleted").asBoolean()
                ? "deleted"
                : "published md5=" + notice.path("md5").asText();
        String shown = (notice.path("tenant").asText().isEmpty()
                        ? ""
                        : notice.path("tenant").asText() + "/")
                + notice.path("group").asText() + "/" + notice.path("dataId").asText();
        out.event("revision " + revision + "  " + shown + "  " + what, notice);
    }

    private JsonNode subscribe() {
        ObjectNode message = Json.MAPPER.createObjectNode().put("type", "subscribe");
        ArrayNode keys = message.putArray("keys");
        for (String dataId : dataIds) {
            keys.addObject().put("dataId", dataId).put("group", group).put("tenant", tenant);
        }
        if (resumeAfter >= 0) {
            message.put("sinceRevision", resumeAfter);
        }
        return message;
    }
}
