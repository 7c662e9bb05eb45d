package io.lodestar.config.transfer;

/**
 * One config as carried in an archive: group, dataId, content and the metadata Nacos exports
 * (any of type, appName and desc may be null).
 */
public record ArchivedConfig(String group, String dataId, String content, String type, String appName, String desc) {
    /** The entry name in the zip: {@code group/dataId}. */
    public String entryName() {
        return group + ConfigArchive.SEPARATOR + dataId;
    }
}
