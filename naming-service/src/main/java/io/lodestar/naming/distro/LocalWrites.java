package io.lodestar.naming.distro;

import io.lodestar.naming.BeatResult;
import java.util.concurrent.CompletableFuture;

/**
 * Applies an ephemeral write to this node's registry, whoever owns the service: what an owner does
 * with a write forwarded to it (never forwarded again, so two nodes with different views of the
 * ring cannot bounce a write between them). Implemented by the naming service.
 */
public interface LocalWrites {
    /** Completes as the naming service's own method does; a beat completes with its result, others with null. */
    CompletableFuture<BeatResult> applyLocally(EphemeralWrite write);
}
