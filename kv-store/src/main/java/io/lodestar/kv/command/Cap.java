package io.lodestar.kv.command;

import java.io.Serializable;

/**
 * A bound on how many keys the scope of a put's key may hold ({@link io.lodestar.kv.count.CountRules}):
 * a put that creates its key while the scope already holds more than {@code max - room} keys is
 * refused, and with it the whole command (nothing written); a put that replaces a key is never
 * refused. {@code room} is 1 for one new key; a writer about to create several keys in commands of
 * its own asks its first one for room for them all. Checked where the command is applied, against
 * the replicated counts, so every member decides alike.
 *
 * <p>{@code limit} and {@code what} name the bound to the client refused: the limit's setting and
 * what is full (e.g. "the configs of namespace 'dev'").
 */
public final class Cap implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String limit;
    private final long max;
    private final long room;
    private final String what;

    private Cap(String limit, long max, long room, String what) {
        this.limit = limit;
        this.max = max;
        this.room = room;
        this.what = what;
    }

    /** Room for one new key in a scope of at most {@code max}. */
    public static Cap of(String limit, long max, String what) {
        return new Cap(limit, max, 1, what);
    }

    /** The same bound, asking for room for {@code keys} new keys. */
    public Cap withRoom(long keys) {
        return new Cap(limit, max, keys, what);
    }

    public String limit() {
        return limit;
    }

    public long max() {
        return max;
    }

    public long room() {
        return room;
    }

    public String what() {
        return what;
    }

    /** Whether a scope holding {@code count} keys has no room for this put's new key(s). */
    public boolean refuses(long count) {
        return count > max - room;
    }

    @Override
    public String toString() {
        return limit + "=" + max + (room == 1 ? "" : " (room for " + room + ")");
    }
}
