package io.lodestar.naming;

import io.lodestar.error.InvalidRequestException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;

/**
 * Which page of an ordered listing a client asked for. {@code pageNo} counts from 1 and {@code
 * pageSize} may be any positive int: Nacos's clients ask for "everything" with {@code pageSize}
 * {@link Integer#MAX_VALUE} (Spring Cloud's {@code DiscoveryClient.getServices()} does, through
 * {@code getServicesOfServer(1, Integer.MAX_VALUE, group)}), so neither is capped. The offset is
 * computed in {@code long}, where {@code (pageNo - 1) * pageSize} cannot overflow, and a page is
 * sized by what exists, never by {@code pageSize}.
 *
 * @throws InvalidRequestException naming {@code pageNo} or {@code pageSize} when it is below 1
 */
public record PageRequest(int pageNo, int pageSize) {

    public PageRequest {
        if (pageNo < 1) {
            throw new InvalidRequestException("pageNo", "must be at least 1");
        }
        if (pageSize < 1) {
            throw new InvalidRequestException("pageSize", "must be at least 1");
        }
    }

    /** How many items come before this page; at most about 2^62, so never negative. */
    public long offset() {
        return (long) (pageNo - 1) * pageSize;
    }

    /**
     * This page of {@code all}, in its iteration order: empty past the end, and never larger than
     * what {@code all} holds after the offset.
     */
    public <T> List<T> of(Collection<T> all) {
        long offset = offset();
        if (offset >= all.size()) {
            return List.of();
        }
        int from = (int) offset;
        int count = Math.min(all.size() - from, pageSize);
        List<T> page = new ArrayList<>(count);
        Iterator<T> it = all.iterator();
        for (int i = 0; i < from; i++) {
            it.next();
        }
        while (page.size() < count) {
            page.add(it.next());
        }
        return page;
    }
}
