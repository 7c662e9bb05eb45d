package io.lodestar.config;

/** A create-or-update of a config. Optional fields may be null. */
public record PublishRequest(
        ConfigKey key,
        String content,
        String type,
        String appName,
        String desc,
        String tags,
        String srcIp,
        String srcUser) {}
