package io.lodestar.api.v1;

import io.lodestar.api.http.Exchange;
import io.lodestar.api.http.Params;
import io.lodestar.api.request.ConfigOp;
import io.lodestar.api.request.Names;
import io.lodestar.config.BetaIps;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.PublishRequest;
import io.lodestar.config.listen.ListeningConfigs;
import io.lodestar.config.service.ConfigSearch;
import io.lodestar.config.transfer.ArchiveLimits;
import io.lodestar.config.transfer.ConfigTransfer;
import io.lodestar.config.transfer.ImportPolicy;
import io.lodestar.error.InvalidRequestException;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;

/**
 * The v1 API's one reader of config requests: each route's request becomes its typed {@link
 * ConfigOp} here, from Nacos 1.x's spellings (namespace and group by {@link Names}, {@code
 * config_tags}, the {@code betaIps} header, {@code casMd5} as a parameter), and nothing else reads
 * them. One path serves several operations, told apart by their parameters as Nacos does.
 */
final class ConfigV1Requests {
    static final String IMPORT = "import";
    private static final String TIMEOUT_HEADER = "Long-Pulling-Timeout";
    private static final String NO_HANGUP_HEADER = "Long-Pulling-Timeout-No-Hangup";
    private static final int DEFAULT_SEARCH_PAGE_SIZE = 100;
    private static final int DEFAULT_HISTORY_PAGE_SIZE = 100;
    private static final int MAX_HISTORY_PAGE_SIZE = 500;

    private ConfigV1Requests() {}

    /** {@code GET /nacos/v1/cs/configs}: an export, a gray release's query, a search, the detail, or a read. */
    static ConfigOp get(Exchange request) {
        Params q = request.params();
        boolean exportV2 = "true".equals(q.get("exportV2"));
        if (exportV2 || "true".equals(q.get("export"))) {
            return new ConfigOp.Export(
                    new ConfigTransfer.ExportQuery(
                            Names.tenant(Names.namespace(q)),
                            Names.group(q),
                            q.get("dataId"),
                            q.get("appName"),
                            ids(q.get("ids"))),
                    exportV2);
        }
        if ("true".equals(q.get("beta"))) {
            return new ConfigOp.Beta(Names.config(q), false);
        }
        if (q.get("search") != null) {
            return search(q);
        }
        if ("all".equals(q.get("show"))) {
            return new ConfigOp.Detail(Names.config(q));
        }
        return new ConfigOp.Read(Names.config(q));
    }

    /** {@code POST /nacos/v1/cs/configs}: an import, or a publish (a gray release with header {@code betaIps}). */
    static ConfigOp post(Exchange request) {
        Params q = request.params();
        if ("true".equals(q.get(IMPORT))) {
            return new ConfigOp.Import(
                    Names.namespace(q),
                    ImportPolicy.parse(q.get("policy")),
                    () -> ConfigTransferRoutes.upload(request, ArchiveLimits.defaults()));
        }
        PublishRequest publish = new PublishRequest(
                Names.config(q),
                q.get("content"),
                q.get("type"),
                q.get("appName"),
                q.get("desc"),
                q.get("config_tags"),
                request.remoteAddr(),
                request.caller()); // the author is who logged in, never src_user
        return new ConfigOp.Publish(publish, q.get("casMd5"), request.header(BetaIps.FIELD));
    }

    /** {@code DELETE /nacos/v1/cs/configs}: the config, or ({@code beta=true}) its gray release. */
    static ConfigOp delete(Exchange request) {
        ConfigKey key = Names.config(request.params());
        return "true".equals(request.params().get("beta")) ? new ConfigOp.Beta(key, true) : new ConfigOp.Remove(key);
    }

    static ConfigOp.Promote promote(Exchange request) {
        return new ConfigOp.Promote(Names.config(request.params()));
    }

    /** {@code GET /nacos/v1/cs/history}: a page ({@code pageNo}, {@code pageSize}), or one entry ({@code nid}). */
    static ConfigOp.History history(Exchange request) {
        Params q = request.params();
        ConfigKey key = Names.config(q);
        String nid = q.get("nid");
        if (nid != null) {
            return new ConfigOp.History(key, id("nid", nid), 1, 1);
        }
        return new ConfigOp.History(
                key,
                null,
                number(q, "pageNo", 1, Integer.MAX_VALUE, 1),
                number(q, "pageSize", 1, MAX_HISTORY_PAGE_SIZE, DEFAULT_HISTORY_PAGE_SIZE));
    }

    static ConfigOp.HistoryPrevious previous(Exchange request) {
        return new ConfigOp.HistoryPrevious(
                Names.config(request.params()), id("id", request.params().get("id")));
    }

    static ConfigOp.Rollback rollback(Exchange request) {
        return new ConfigOp.Rollback(
                Names.config(request.params()), id("nid", request.params().get("nid")));
    }

    /**
     * {@code POST /nacos/v1/cs/configs/listener}: the keys in {@code Listening-Configs}, each naming
     * its namespace; without {@code Long-Pulling-Timeout} Nacos answers at once, as with
     * {@code Long-Pulling-Timeout-No-Hangup}.
     */
    static ConfigOp.Listen listen(Exchange request) {
        String timeoutHeader = request.header(TIMEOUT_HEADER);
        boolean noHangup = timeoutHeader == null || "true".equalsIgnoreCase(request.header(NO_HANGUP_HEADER));
        return new ConfigOp.Listen(
                ListeningConfigs.parseParam(request.params().get(ListeningConfigs.FIELD)),
                true,
                timeoutHeader == null ? 0 : timeout(timeoutHeader),
                noHangup);
    }

    private static ConfigOp.Search search(Params q) {
        String mode = q.get("search");
        ConfigSearch.Mode parsed = switch (mode.trim().toLowerCase(Locale.ROOT)) {
            case "accurate" -> ConfigSearch.Mode.ACCURATE;
            case "blur" -> ConfigSearch.Mode.BLUR;
            default -> throw new InvalidRequestException("search", "must be 'accurate' or 'blur', got '" + mode + "'");
        };
        ConfigSearch.Query query = new ConfigSearch.Query(
                parsed,
                Names.tenant(Names.namespace(q)),
                q.get("dataId"),
                Names.group(q),
                q.get("appName"),
                ConfigSearch.splitTags(q.get("config_tags")));
        return new ConfigOp.Search(
                query,
                number(q, "pageNo", 1, Integer.MAX_VALUE, 1),
                number(q, "pageSize", 1, ConfigSearch.MAX_PAGE_SIZE, DEFAULT_SEARCH_PAGE_SIZE));
    }

    private static long timeout(String header) {
        long ms;
        try {
            ms = Long.parseLong(header.trim());
        } catch (NumberFormatException e) {
            throw new InvalidRequestException(TIMEOUT_HEADER, "'" + header + "' is not a number of milliseconds");
        }
        if (ms < 0) {
            throw new InvalidRequestException(TIMEOUT_HEADER, "must not be negative: " + ms);
        }
        return ms;
    }

    private static long id(String name, String value) {
        if (value == null || value.isBlank()) {
            throw new InvalidRequestException(name, "is required");
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new InvalidRequestException(name, "'" + Names.shorten(value) + "' is not a number");
        }
    }

    private static int number(Params q, String name, int min, int max, int absent) {
        String value = q.get(name);
        if (value == null || value.isEmpty()) {
            return absent;
        }
        int n;
        try {
            n = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new InvalidRequestException(name, "'" + Names.shorten(value) + "' is not a number");
        }
        if (n < min || n > max) {
            throw new InvalidRequestException(name, "must be between " + min + " and " + max + ", got " + n);
        }
        return n;
    }

    private static Set<Long> ids(String raw) {
        Set<Long> ids = new LinkedHashSet<>();
        if (raw == null || raw.isBlank()) {
            return ids;
        }
        for (String part : raw.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            try {
                ids.add(Long.parseLong(part.trim()));
            } catch (NumberFormatException e) {
                throw new InvalidRequestException("ids", "'" + Names.shorten(part.trim()) + "' is not a number");
            }
        }
        return ids;
    }
}
