package io.lodestar.error;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Failures as the code that threw them meant them, without the wrappers futures put around them. */
public final class Failures {
    private Failures() {}

    /**
     * The failure inside {@code error}'s {@link CompletionException} and {@link ExecutionException}
     * wrappers (a dependent stage of a failed future sees the failure wrapped, its source sees it
     * bare); {@code error} itself when it is neither, or wraps nothing.
     */
    public static Throwable cause(Throwable error) {
        Throwable e = error;
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }
}
