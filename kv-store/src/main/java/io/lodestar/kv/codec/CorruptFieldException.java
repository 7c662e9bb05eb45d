package io.lodestar.kv.codec;

import java.io.IOException;

/**
 * A stored or received record whose field cannot be read: cut short, or a length past the bytes left
 * or past the reader's bound. An {@link IOException}, so a codec's existing "corrupt record" handling
 * covers it; {@link #field()} names the field for the message.
 */
public final class CorruptFieldException extends IOException {
    private final String field;

    public CorruptFieldException(String field, String problem) {
        super("field '" + field + "': " + problem);
        this.field = field;
    }

    public String field() {
        return field;
    }
}
