package io.lodestar.config.service;

import io.lodestar.config.Config;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigKeyspaces;
import io.lodestar.config.LeaderOnlyJob;
import io.lodestar.config.changelog.ConfigChangeLog;
import io.lodestar.config.history.ConfigHistory;
import io.lodestar.config.history.HistoryEntry;
import io.lodestar.kv.KvEntry;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.Compare;
import io.lodestar.kv.command.Op;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves configs stored under a spelling of the public namespace's alias ({@value
 * ConfigKey#PUBLIC_ALIAS}, in any case) into the public namespace itself. Before the alias, such a
 * tenant was an ordinary namespace; since, every request for it reads the public one, so those
 * configs were unreachable. A config moves in one command, with an INSERT in its history and a
 * change notice for its listeners, only where the public namespace has none of that group and
 * dataId; otherwise it stays where it is and the conflict is logged for the operator (who can
 * export it with a store backup, or delete one of the two). Gray releases move the same way.
 *
 * <p>Runs on the leader every {@link #INTERVAL} (the first pass after one), like the retention
 * jobs: a pass that finds nothing costs one prefix seek per spelling, and a node of an older
 * version may still write such a tenant during a rolling upgrade.
 */
public final class PublicAliasMigration implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PublicAliasMigration.class);
    static final Duration INTERVAL = Duration.ofMinutes(1);
    static final String SOURCE = "lodestar (moved from tenant '" + ConfigKey.PUBLIC_ALIAS + "')";
    private static final int BATCH = 1_000;
    private static final List<String> SPELLINGS = spellings(ConfigKey.PUBLIC_ALIAS);

    private final KvStore store;
    private final Set<ConfigKey> reported = new HashSet<>();
    private LeaderOnlyJob job;

    public PublicAliasMigration(KvStore store) {
        this.store = store;
    }

    /** Schedules the passes. */
    public synchronized PublicAliasMigration start() {
        if (job == null) {
            job = LeaderOnlyJob.every("public-alias-migration", INTERVAL, this::runOnce);
        }
        return this;
    }

    /** One pass if this node leads: how many configs and gray releases it moved. Blocks on each move. */
    public synchronized int runOnce() {
        if (!LeaderOnlyJob.leads(store)) {
            return 0;
        }
        int moved = 0;
        for (String spelling : SPELLINGS) {
            byte[] prefix = ConfigKey.tenantPrefix(spelling);
            for (KvEntry e : store.scan(ConfigKeyspaces.CONFIG, prefix, BATCH)) {
                moved += move(ConfigKeyspaces.CONFIG, e) ? 1 : 0;
            }
            for (KvEntry e : store.scan(ConfigKeyspaces.BETA, prefix, BATCH)) {
                moved += move(ConfigKeyspaces.BETA, e) ? 1 : 0;
            }
        }
        return moved;
    }

    private boolean move(String keyspace, KvEntry from) {
        ConfigKey to = ConfigKey.fromStoreKey(from.key()); // reads the alias as the public namespace
        if (store.get(keyspace, to.storeKey()) != null) {
            if (reported.add(to)) {
                LOG.warn(
                        "{} '{}' of group '{}' stays under tenant '{}': the public namespace has one too",
                        keyspace.equals(ConfigKeyspaces.BETA) ? "the gray release of" : "config",
                        to.dataId(),
                        to.group(),
                        tenantOf(from.key()));
            }
            return false;
        }
        List<Op> ops = new ArrayList<>(
                List.of(Op.put(keyspace, to.storeKey(), from.value()), Op.delete(keyspace, from.key())));
        if (keyspace.equals(ConfigKeyspaces.CONFIG)) {
            Config config = ConfigCodec.decode(to, from.value(), from.createRevision(), from.modRevision());
            ops.add(ConfigHistory.append(new HistoryEntry(
                    0,
                    to,
                    HistoryEntry.Operation.INSERT,
                    config.content(),
                    config.md5(),
                    config.appName(),
                    "",
                    SOURCE,
                    System.currentTimeMillis())));
            ops.add(ConfigChangeLog.appendPut(to, config.md5()));
        }
        Command command = Command.of(
                List.of(
                        Compare.modRevision(keyspace, from.key(), from.modRevision()),
                        Compare.modRevision(keyspace, to.storeKey(), 0)),
                ops);
        try {
            boolean done = store.write(command).get(30, TimeUnit.SECONDS).succeeded();
            if (done) {
                LOG.info(
                        "moved {} {}/{} from tenant '{}' to the public namespace",
                        keyspace,
                        to.group(),
                        to.dataId(),
                        tenantOf(from.key()));
            }
            return done; // a lost race: the next pass sees what won
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (Exception e) {
            throw new IllegalStateException("moving " + to + " failed: " + e.getMessage(), e);
        }
    }

    private static String tenantOf(byte[] storeKey) {
        String key = new String(storeKey, java.nio.charset.StandardCharsets.UTF_8);
        return key.substring(0, key.indexOf('\0'));
    }

    /** Every upper/lower-case spelling of {@code word} (ASCII letters). */
    static List<String> spellings(String word) {
        List<String> out = new ArrayList<>(List.of(""));
        for (char c : word.toCharArray()) {
            List<String> next = new ArrayList<>();
            for (String prefix : out) {
                next.add(prefix + Character.toLowerCase(c));
                if (Character.toUpperCase(c) != Character.toLowerCase(c)) {
                    next.add(prefix + String.valueOf(c).toUpperCase(Locale.ROOT));
                }
            }
            out = next;
        }
        return List.copyOf(out);
    }

    @Override
    public synchronized void close() {
        if (job != null) {
            job.close();
        }
    }
}
