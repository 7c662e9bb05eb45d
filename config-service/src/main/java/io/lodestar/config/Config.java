package io.lodestar.config;

/**
 * A stored config: content with its MD5 (lowercase hex of the UTF-8 bytes), descriptive fields,
 * where it came from, and the store revisions that created and last modified it.
 */
public record Config(
        ConfigKey key,
        String content,
        String md5,
        String type,
        String appName,
        String desc,
        String tags,
        String srcIp,
        String srcUser,
        long createTime,
        long modifyTime,
        long createRevision,
        long modRevision) {}
