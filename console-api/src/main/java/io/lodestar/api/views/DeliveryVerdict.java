package io.lodestar.api.views;

import io.lodestar.config.BetaConfig;
import io.lodestar.config.listen.Notice;
import java.util.List;
import java.util.Map;

/**
 * One listener's line of a delivery report: from what its member recorded (the MD5 the listener
 * holds, its last notice, its last pull) and the gray release, whether it was told of the publish,
 * has its content, or why not. Pure: reads the row, adds to it.
 */
final class DeliveryVerdict {
    /** Has the publish's content: pulled it, or said so when it listened. */
    static final String PULLED = "pulled";
    /** Told of the publish; no pull of it seen yet. */
    static final String NOTIFIED = "notified";
    /** Told over gRPC, and the client did not answer (a dead or closed connection). */
    static final String UNANSWERED = "unanswered";
    /** A gray release decides what this client is served, and it is not this publish. */
    static final String EXCLUDED = "excluded";
    /** A later publish replaced this one before this client was told of it. */
    static final String SUPERSEDED = "superseded";
    /** Nothing yet: not told, not pulled. */
    static final String WAITING = "waiting";

    static final List<String> STATUSES = List.of(PULLED, NOTIFIED, UNANSWERED, EXCLUDED, SUPERSEDED, WAITING);

    private DeliveryVerdict() {}

    /**
     * Adds {@code status}, {@code notified} (with {@code notifiedAt}), {@code pulled} (with {@code
     * pulledVia} and {@code pulledAt}) and, unless pulled, {@code reason} to {@code row}.
     */
    static void judge(Map<String, Object> row, DeliveryRoutes.Publish publish, String stableMd5, BetaConfig beta) {
        String target = publish.md5();
        String ip = String.valueOf(row.get("ip"));
        String holds = (String) row.get("md5");
        Map<?, ?> notice = row.get("notice") instanceof Map<?, ?> n ? n : null;
        Map<?, ?> pull = row.get("pull") instanceof Map<?, ?> p ? p : null;
        String noticeMd5 = notice == null ? null : (String) notice.get("md5");
        long noticeAt = notice == null ? 0 : ((Number) notice.get("at")).longValue();

        boolean notified = notice != null
                && (target.equals(noticeMd5)
                        || noticeMd5 == null && publish.atMillis() != null && noticeAt >= publish.atMillis());
        row.put("notified", notified);
        row.put("notifiedAt", notified ? noticeAt : null);

        // the last pull seen is newer than what the listen said; a push-channel listener's md5 is the
        // one it was last told of, which it holds only once it pulls
        if (pull != null) {
            if (target.equals(pull.get("md5"))) {
                pulled(row, String.valueOf(pull.get("via")), pull.get("at"));
                return;
            }
        } else if (target.equals(holds)
                && (!Notice.PUSH_CHANNEL.equals(row.get("protocol")) || !target.equals(noticeMd5))) {
            pulled(row, "listen", null);
            return;
        }
        row.put("pulled", false);
        boolean inBeta = beta != null && beta.servesTo(ip);
        if (beta != null && target.equals(beta.md5()) && !inBeta) {
            verdict(
                    row,
                    EXCLUDED,
                    "gray release: " + ip + " is not among the beta's IPs; it is served the stable config");
        } else if (inBeta && !target.equals(beta.md5())) {
            verdict(row, EXCLUDED, "gray release: " + ip + " is among the beta's IPs and is served the beta");
        } else if (notice != null && Boolean.FALSE.equals(notice.get("acked"))) {
            verdict(row, UNANSWERED, "the change notice was not answered: " + notice.get("error"));
        } else if (notified) {
            verdict(row, NOTIFIED, "told at " + noticeAt + "; no pull of the new content seen since");
        } else if (!target.equals(inBeta ? beta.md5() : stableMd5)) {
            verdict(row, SUPERSEDED, "the config changed again since; this client is served another content");
        } else {
            verdict(row, WAITING, notice == null ? "not told of the change yet" : "told of an earlier change only");
        }
    }

    private static void pulled(Map<String, Object> row, String via, Object at) {
        row.put("pulled", true);
        row.put("pulledVia", via);
        row.put("pulledAt", at);
        row.put("status", PULLED);
    }

    private static void verdict(Map<String, Object> row, String status, String reason) {
        row.put("status", status);
        row.put("reason", reason);
    }
}
