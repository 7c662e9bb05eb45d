package io.lodestar.naming.query;

/**
 * Everything an instance list of one service is computed from, as a token that moves whenever
 * the list could: the store's revision (persistent instances, the service's settings) and the
 * identity of the service's published ephemeral state, which is replaced on every visible change
 * (null when the registry does not know the service). Taken <em>before</em> a list is computed,
 * it is never newer than that list, so an answer kept under it can be served again for as long as
 * the version is equal.
 */
public record ListVersion(long storeRevision, Object ephemeral) {
    @Override
    public boolean equals(Object o) {
        // identity for the ephemeral state: comparing the instance lists would cost what a list costs
        return o instanceof ListVersion v && v.storeRevision == storeRevision && v.ephemeral == ephemeral;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(storeRevision) * 31 + System.identityHashCode(ephemeral);
    }
}
