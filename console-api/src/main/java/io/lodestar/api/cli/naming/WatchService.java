package io.lodestar.api.cli.naming;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.lodestar.api.cli.client.ClientCommand;
import io.lodestar.api.cli.client.CommandFailure;
import io.lodestar.api.cli.client.ExitCodes;
import io.lodestar.api.cli.client.LodestarClient;
import io.lodestar.api.cli.client.Output;
import io.lodestar.api.json.Json;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.zip.GZIPInputStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * Prints a service's instances, then again whenever they change, until interrupted.
 *
 * <p>The mechanism is the one nacos-client 1.x uses (docs/http-api.md, "UDP push"): the command
 * listens on a UDP port of its own and queries {@code /nacos/v1/ns/instance/list} with that {@code
 * udpPort}, which subscribes it; the server then pushes each change of the service as a datagram
 * holding the whole list, which the command acknowledges and prints. It queries the list again
 * every {@value #RENEW_SECONDS} s, which renews the subscription (dropped after 90 s without one)
 * and catches a push lost on the way; a list that did not change is not printed again. So there
 * is no tight polling, and a missed push is made up within {@value #RENEW_SECONDS} s. The server
 * pushes to the address the query came from: from behind NAT no push arrives, and the command
 * degrades to that periodic query.
 */
@Command(
        name = "watch",
        mixinStandardHelpOptions = true,
        description = "Print a service's instances, then again each time they change (UDP push from the server,"
                + " the list queried again every 10 s), until interrupted.")
final class WatchService extends ClientCommand {
    static final int RENEW_SECONDS = 10;

    @Mixin
    ServiceOptions service;

    private String shown;

    @Override
    protected int run(LodestarClient client, Output out) throws IOException, InterruptedException {
        try (DatagramSocket socket = new DatagramSocket(0)) {
            socket.setSoTimeout((int) Duration.ofSeconds(RENEW_SECONDS).toMillis());
            query(client, out, socket.getLocalPort());
            System.err.println("watching " + service + " (UDP push to port " + socket.getLocalPort() + ")");
            byte[] buffer = new byte[65_536];
            while (true) {
                DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
                try {
                    socket.receive(packet);
                } catch (SocketTimeoutException e) {
                    query(client, out, socket.getLocalPort());
                    continue;
                }
                JsonNode push = decode(packet);
                if (push == null || !push.path("type").asText().equals("dom")) {
                    continue;
                }
                byte[] ack = Json.MAPPER
                        .createObjectNode()
                        .put("type", "push-ack")
                        .put("lastRefTime", push.path("lastRefTime").asText())
                        .put("data", "")
                        .toString()
                        .getBytes(StandardCharsets.UTF_8);
                socket.send(new DatagramPacket(ack, ack.length, packet.getSocketAddress()));
                try {
                    show(out, Json.MAPPER.readTree(push.path("data").asText()));
                } catch (IOException e) {
                    System.err.println("a push that is not a list, ignored: " + e.getMessage());
                }
            }
        }
    }

    /** Queries (and so subscribes to) the list; an unreachable server is reported and tried again later. */
    private void query(LodestarClient client, Output out, int udpPort) throws IOException, InterruptedException {
        try {
            show(
                    out,
                    service.on(client.get(NamingCommand.INSTANCES))
                            .param("udpPort", String.valueOf(udpPort))
                            .ok()
                            .json());
        } catch (CommandFailure f) {
            if (f.exitCode() != ExitCodes.FAILED) {
                throw f;
            }
            System.err.println(f.getMessage() + "; trying again in " + RENEW_SECONDS + " s");
        }
    }

    private void show(Output out, JsonNode list) {
        ArrayNode rows = Instances.rows(list);
        String now = rows.toString();
        if (now.equals(shown)) {
            return;
        }
        shown = now;
        if (out.json()) {
            out.event(
                    "",
                    Json.MAPPER
                            .createObjectNode()
                            .put("service", service.toString())
                            .set("hosts", rows));
            return;
        }
        System.out.println(
                LocalTime.now().truncatedTo(ChronoUnit.SECONDS) + " " + service + ": " + rows.size() + " instance(s)");
        out.table(rows, Instances.COLUMNS);
        System.out.flush();
    }

    /** A datagram as JSON, gunzipped when it starts with gzip's magic; null if it is neither. */
    private static JsonNode decode(DatagramPacket packet) {
        byte[] data = java.util.Arrays.copyOfRange(
                packet.getData(), packet.getOffset(), packet.getOffset() + packet.getLength());
        try {
            if (data.length > 2 && (data[0] & 0xff) == 0x1f && (data[1] & 0xff) == 0x8b) {
                try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(data))) {
                    data = in.readAllBytes();
                }
            }
            return Json.MAPPER.readTree(data);
        } catch (IOException e) {
            return null;
        }
    }
}
