package io.lodestar.api.v1;

import io.javalin.http.UploadedFile;
import io.lodestar.api.http.Answer;
import io.lodestar.api.http.Exchange;
import io.lodestar.api.request.ConfigOp;
import io.lodestar.config.transfer.ArchiveLimits;
import io.lodestar.config.transfer.ConfigTransfer;
import io.lodestar.config.transfer.ImportResult;
import io.lodestar.error.InvalidRequestException;
import java.io.IOException;
import java.io.InputStream;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Export and import on {@code /nacos/v1/cs/configs}, as Nacos 1.4/2.x serve them:
 * {@code GET ?export=true} or {@code ?exportV2=true} (filters {@code tenant}, {@code group},
 * {@code dataId}, {@code appName}, {@code ids}) answers the zip; {@code POST ?import=true}
 * ({@code namespace}, {@code policy}, multipart field {@code file}) answers
 * {@code {"code":200,"message":...,"data":{"succCount","skipCount","failData","skipData"}}}.
 * {@link ConfigRoutes} hands these requests over (one route per path and method).
 */
public final class ConfigTransferRoutes {
    private static final DateTimeFormatter FILE_DATE = DateTimeFormatter.ofPattern("yyyyMMddHHmmss");

    private final ConfigTransfer transfer;

    public ConfigTransferRoutes(ConfigTransfer transfer) {
        this.transfer = transfer;
    }

    /** Streams the archive: the namespace is read and sent a batch at a time, never held whole. */
    void export(ConfigOp.Export op, Answer answer) {
        String fileName = "nacos_config_export_" + LocalDateTime.now().format(FILE_DATE) + ".zip";
        answer.answerHeader("Content-Disposition", "attachment;filename=" + fileName);
        answer.answerStream("application/zip", out -> transfer.export(op.query(), op.v2(), out));
    }

    void importArchive(ConfigOp.Import op, Answer answer) {
        byte[] zip = op.archive().get();
        // the author is who logged in, never src_user
        answer.answerWhenDone(
                transfer.importArchive(op.namespace(), zip, op.policy(), answer.remoteAddr(), answer.caller())
                        .thenApply(result -> Answer.Body.json(200, body(result))));
    }

    /** The archive uploaded as multipart field {@code file}, refused beyond {@code limits}. */
    static byte[] upload(Exchange request, ArchiveLimits limits) {
        UploadedFile file = request.uploadedFile("file");
        if (file == null) {
            throw new InvalidRequestException("file", "the archive must be sent as multipart/form-data field 'file'");
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
