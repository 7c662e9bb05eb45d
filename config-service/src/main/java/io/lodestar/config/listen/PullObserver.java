package io.lodestar.config.listen;

import io.lodestar.config.ConfigKey;

/**
 * Hears that a client read a config's content and which MD5 it was served: how a listener whose
 * protocol only notifies (the push channel) is seen to pull, for the delivery report. Called on the
 * reading request's thread, on the hot path: must be cheap and must not block.
 */
@FunctionalInterface
public interface PullObserver {
    PullObserver NONE = (key, clientIp, md5) -> {};

    void pulled(ConfigKey key, String clientIp, String md5);
}
