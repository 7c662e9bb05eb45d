package io.lodestar.api.v1;

import io.javalin.http.Context;
import io.javalin.http.UploadedFile;
import io.lodestar.api.http.JavalinExchange;
import io.lodestar.api.http.Params;
import io.lodestar.config.transfer.ArchiveLimits;
import io.lodestar.config.transfer.ConfigTransfer;
import io.lodestar.config.transfer.ImportPolicy;
import io.lodestar.config.transfer.ImportResult;
import io.lodestar.error.InvalidRequestException;
import java.io.IOException;
import java.io.InputStream;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Export and import on {@code /nacos/v1/cs/configs}, as Nacos 1.4/2.x serve them:
 * {@code GET ?export=true} or {@code ?exportV2=true} (filters {@code tenant}, {@code group},
 * {@code dataId}, {@code appName}, {@code ids}) answers the zip; {@code POST ?import=true}
 * ({@code namespace}, {@code policy}, multipart field {@code file}) answers
 * {@code {"code":200,"message":...,"data":{"succCount","skipCount","failData","skipData"}}}.
 * {@link ConfigRoutes} hands these requests over (Javalin allows one handler per path and method).
 */
public final class ConfigTransferRoutes {
    /** The parameter that makes a {@code POST /nacos/v1/cs/configs} an import. */
    static final String IMPORT = "import";

    private static final DateTimeFormatter FILE_DATE = DateTimeFormatter.ofPattern("yyyyMMddHHmmss");

    private final ConfigTransfer transfer;
    private final ArchiveLimits limits;

    public ConfigTransferRoutes(ConfigTransfer transfer, ArchiveLimits limits) {
        this.transfer = transfer;
        this.limits = limits;
    }

    /** Serves the request if it is an export; false otherwise. */
    public boolean handleGet(Context ctx) {
        boolean v2 = "true".equals(Params.get(ctx, "exportV2"));
        if (!v2 && !"true".equals(Params.get(ctx, "export"))) {
            return false;
        }
        ConfigTransfer.ExportQuery query = new ConfigTransfer.ExportQuery(
                Params.get(ctx, "tenant"),
                Params.get(ctx, "group"),
                Params.get(ctx, "dataId"),
                Params.get(ctx, "appName"),
                ids(ctx));
        byte[] zip = transfer.export(query, v2);
        String fileName = "nacos_config_export_" + LocalDateTime.now().format(FILE_DATE) + ".zip";
        ctx.header("Content-Disposition", "attachment;filename=" + fileName);
        ctx.contentType("application/zip");
        ctx.result(zip);
        return true;
    }

    /** Serves the request if it is an import; false otherwise. */
    public boolean handlePost(Context ctx) {
        if (!"true".equals(Params.get(ctx, IMPORT))) {
            return false;
        }
        ImportPolicy policy = ImportPolicy.parse(Params.get(ctx, "policy"));
        String namespace = Params.get(ctx, "namespace");
        String srcUser = JavalinExchange.of(ctx).caller(); // the author is who logged in, never src_user
        byte[] zip = upload(ctx);
        ctx.future(() -> transfer.importArchive(namespace, zip, policy, ctx.ip(), srcUser)
                .thenAccept(result -> ctx.json(body(result))));
        return true;
    }

    private byte[] upload(Context ctx) {
        String contentType = ctx.contentType();
        if (contentType == null || !contentType.toLowerCase().startsWith("multipart/form-data")) {
            throw new InvalidRequestException("file", "the archive must be sent as multipart/form-data field 'file'");
        }
        UploadedFile file = ctx.uploadedFile("file");
        if (file == null) {
            throw new InvalidRequestException("file", "is required (multipart field 'file')");
        }
        if (file.size() > limits.maxArchiveBytes()) {
            throw new InvalidRequestException(
                    "file",
                    "the archive of " + file.size() + " bytes exceeds the limit of " + limits.maxArchiveBytes()
                            + " bytes");
        }
        try (InputStream in = file.content()) {
            byte[] bytes = in.readNBytes((int) limits.maxArchiveBytes() + 1);
            if (bytes.length > limits.maxArchiveBytes()) {
                throw new InvalidRequestException(
                        "file", "the archive exceeds the limit of " + limits.maxArchiveBytes() + " bytes");
            }
            return bytes;
        } catch (IOException e) {
            throw new InvalidRequestException("file", "cannot be read: " + e.getMessage());
        }
    }

    private static Set<Long> ids(Context ctx) {
        String raw = Params.get(ctx, "ids");
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
                throw new InvalidRequestException("ids", "'" + part.trim() + "' is not a number");
            }
        }
        return ids;
    }

    private static Map<String, Object> body(ImportResult r) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("succCount", r.succCount());
        data.put("skipCount", r.skipCount());
        data.put("failData", refs(r.failData()));
        data.put("skipData", refs(r.skipData()));
        if (!r.unrecognized().isEmpty()) {
            data.put("unrecognizedCount", r.unrecognized().size());
            data.put(
                    "unrecognizedData",
                    r.unrecognized().stream().map(n -> Map.of("itemName", n)).toList());
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("code", 200);
        body.put("message", "导入成功"); // Nacos's "import succeeded", verbatim
        body.put("data", data);
        return body;
    }

    private static List<Map<String, String>> refs(List<ImportResult.Ref> refs) {
        return refs.stream()
                .map(r -> {
                    Map<String, String> m = new LinkedHashMap<>();
                    m.put("dataId", r.dataId());
                    m.put("group", r.group());
                    return m;
                })
                .toList();
    }
}
