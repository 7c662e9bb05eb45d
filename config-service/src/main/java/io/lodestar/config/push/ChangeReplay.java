package io.lodestar.config.push;

import io.lodestar.config.Config;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.changelog.ConfigChangeLog;
import io.lodestar.config.service.ConfigService;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What a session missed, read from the {@link ConfigChangeLog} (or, past its floor, from the current
 * configs): the changes after a client's revision, the keys whose content differs from the md5 it
 * holds, and the changes after a feed resync. Reads the store on the calling thread; no state.
 */
final class ChangeReplay {
    private static final int REPLAY_PAGE = 1_000;

    private final ConfigChangeLog log;
    private final ConfigService configs;

    ChangeReplay(ConfigChangeLog log, ConfigService configs) {
        this.log = log;
        this.configs = configs;
    }

    /** The changes to replay, and the revision up to which every change to the keys is in them. */
    record Replay(List<ConfigChangeLog.Change> changes, long upTo) {}

    /**
     * The logged changes to {@code keys} after {@code sinceRevision}, or null when there are more
     * than {@code max}. {@code before}: the store's revision read before the keys were registered.
     */
    Replay since(Set<ConfigKey> keys, long sinceRevision, long before, int max) {
        List<ConfigChangeLog.Change> replay = new ArrayList<>();
        long after = sinceRevision;
        // The log holds every key's changes, the client's or not: a client resuming from far back
        // (sinceRevision 0) would have each subscribe read all of it. Past this many entries, one
        // read of each key's config costs less than the rest of the log.
        long budget = REPLAY_PAGE + 4L * keys.size();
        long scanned = 0;
        while (true) {
            List<ConfigChangeLog.Change> page = log.after(after, REPLAY_PAGE);
            scanned += page.size();
            if (scanned > budget) {
                List<ConfigChangeLog.Change> state = fromState(keys, sinceRevision, before);
                return state.size() > max ? null : new Replay(state, before);
            }
            for (ConfigChangeLog.Change c : page) {
                if (keys.contains(c.key())) {
                    replay.add(c);
                    if (replay.size() > max) {
                        return null;
                    }
                }
                after = c.revision();
            }
            if (page.size() < REPLAY_PAGE) {
                break;
            }
        }
        long upTo = Math.max(before, after);
        if (!log.complete(sinceRevision)) {
            // trimmed past it (checked after reading: the floor only rises, with each trim)
            replay = fromState(keys, sinceRevision, before);
        }
        return new Replay(replay, upTo);
    }

    /**
     * A notice for each key given with an md5 that differs from the current config's (a deleted or
     * absent config is a {@code deleted} notice at {@code before}).
     */
    List<ConfigChangeLog.Change> mismatches(Map<ConfigKey, String> md5s, long before) {
        List<ConfigChangeLog.Change> out = new ArrayList<>();
        for (Map.Entry<ConfigKey, String> e : md5s.entrySet()) {
            if (e.getValue() == null) {
                continue;
            }
            Config current = configs.get(e.getKey());
            String currentMd5 = current == null ? "" : current.md5();
            if (!currentMd5.equals(e.getValue())) {
                out.add(new ConfigChangeLog.Change(
                        current == null ? before : current.modRevision(),
                        e.getKey(),
                        current == null ? null : currentMd5));
            }
        }
        return out;
    }

    /**
     * For a client resuming from before the change log's floor: a notice for each key whose config
     * changed after {@code sinceRevision} (its current md5 and revision), and a {@code deleted}
     * notice for each key with no config now (it may have had none before either; a client takes a
     * delete of what it lacks as a no-op).
     */
    List<ConfigChangeLog.Change> fromState(Iterable<ConfigKey> keys, long sinceRevision, long now) {
        List<ConfigChangeLog.Change> out = new ArrayList<>();
        for (ConfigKey key : keys) {
            Config current = configs.get(key);
            if (current == null) {
                out.add(new ConfigChangeLog.Change(now, key, null));
            } else if (current.modRevision() > sinceRevision) {
                out.add(new ConfigChangeLog.Change(current.modRevision(), key, current.md5()));
            }
        }
        return out;
    }

    /**
     * After a feed resync from {@code fromRevision}: every change that may have been missed, in
     * revision order, to {@code changed}, while {@code listening} holds. Per-key revisions in each
     * outbox drop what was sent already.
     */
    void afterResync(
            long fromRevision,
            Supplier<List<ConfigKey>> keys,
            Supplier<Long> now,
            BooleanSupplier listening,
            Consumer<ConfigChangeLog.Change> changed) {
        long after = fromRevision - 1;
        if (!log.complete(after)) {
            fromState(keys.get(), after, now.get()).forEach(changed);
            return;
        }
        while (listening.getAsBoolean()) {
            List<ConfigChangeLog.Change> page = log.after(after, REPLAY_PAGE);
            for (ConfigChangeLog.Change c : page) {
                changed.accept(c);
                after = c.revision();
            }
            if (page.size() < REPLAY_PAGE) {
                return;
            }
        }
    }
}
