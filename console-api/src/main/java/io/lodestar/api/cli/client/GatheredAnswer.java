package io.lodestar.api.cli.client;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * An answer the node asked gathered from every member (listeners, subscribers): its {@code nodes}
 * say which members answered. A list missing a member's rows is not the whole truth, so each such
 * member is named on stderr and the command exits 1, though it printed what it has.
 */
public final class GatheredAnswer {
    private GatheredAnswer() {}

    /** Names each member that did not answer; {@link ExitCodes#FAILED} if any, else OK. */
    public static int reportSilentMembers(JsonNode answer, String what) {
        int exit = ExitCodes.OK;
        for (JsonNode node : answer.path("nodes")) {
            if (!node.path("reachable").asBoolean(true)) {
                System.err.println("member " + node.path("node").asText() + " did not answer: "
                        + node.path("error").asText() + "; its " + what + " are not listed");
                exit = ExitCodes.FAILED;
            }
        }
        return exit;
    }
}
