package io.lodestar.config.transfer;

import java.util.List;

/**
 * The outcome of an import, with Nacos's counts and lists: {@code failData} holds the configs that
 * stopped an {@link ImportPolicy#ABORT} import, {@code skipData} those left untouched, and
 * {@code unrecognized} the archive entries that named no config (files missing from a v2
 * metadata file, metadata naming a missing file).
 */
public record ImportResult(
        int succCount, int skipCount, List<Ref> failData, List<Ref> skipData, List<String> unrecognized) {
    /** A config named by group and dataId. */
    public record Ref(String group, String dataId) {}
}
