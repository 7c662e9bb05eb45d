package io.lodestar.config.listen;

import io.lodestar.config.ConfigKey;

/**
 * One client listening to one config on this node, as an operator's view lists it: the client's
 * address (from its socket, never from what it says of itself), the MD5 of the content it holds
 * ({@code ""} when it holds none; null when the client never said), and what this node last did to
 * tell it of a change and last saw it pull (each null when nothing yet).
 */
public record ConfigListener(ConfigKey key, String clientAddress, String md5, Notice notice, Pull pull) {
    /** A listener this node has not told of a change, nor seen pull. */
    public ConfigListener(ConfigKey key, String clientAddress, String md5) {
        this(key, clientAddress, md5, null, null);
    }
}
