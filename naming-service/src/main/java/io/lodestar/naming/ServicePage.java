package io.lodestar.naming;

import java.util.List;

/**
 * One page of a service listing.
 *
 * @param count the number of services in the group, all pages together
 * @param names the page's service names without their group prefix, sorted
 */
public record ServicePage(int count, List<String> names) {

    public ServicePage {
        names = List.copyOf(names);
    }
}
