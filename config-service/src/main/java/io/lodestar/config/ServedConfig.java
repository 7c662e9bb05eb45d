package io.lodestar.config;

/**
 * What one client is served for a config: the gray release (beta) it is in, else the stable
 * config. {@code type} is the stable config's ({@code text} when unknown); {@code lastModified} is
 * 0 for a gray release.
 */
public record ServedConfig(String content, String md5, String type, boolean beta, long lastModified) {}
