package io.lodestar.config.listen;

import io.lodestar.config.ConfigKey;

/**
 * One client listening to one config on this node, as an operator's view lists it: the client's
 * address (from its socket, never from what it says of itself) and the MD5 of the content it holds
 * ({@code ""} when it holds none; null when the client never said).
 */
public record ConfigListener(ConfigKey key, String clientAddress, String md5) {}
