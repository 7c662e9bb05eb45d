package io.lodestar.naming;

import io.lodestar.naming.model.ServiceKey;

/**
 * Hears that a service's instances (or its spec) changed, e.g. to push the new list to
 * subscribers.
 *
 * <p>Called on the naming notifier thread, one call at a time across all listeners, never on the
 * thread that made the change; a slow listener delays the others, so hand long work off. Calls are
 * coalesced: several changes to one service in quick succession may be reported once, but a call
 * always starts after the last change it reports, so reading the service in the callback sees at
 * least that state. Covers both kinds: ephemeral changes (register, deregister, edit, beat that
 * restored health, expiry) from this node's registry, persistent changes from the store's change
 * feed on every node, leader or follower.
 */
@FunctionalInterface
public interface NamingChangeListener {
    void onServiceChanged(ServiceKey service);
}
