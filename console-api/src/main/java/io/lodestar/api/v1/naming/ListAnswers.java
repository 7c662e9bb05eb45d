package io.lodestar.api.v1.naming;

import io.lodestar.api.answer.NamingJson;
import io.lodestar.api.http.Answer;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.query.ListVersion;
import io.lodestar.naming.query.ServiceView;
import io.lodestar.naming.service.NamingService;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The instance-list answers as written, kept and written again while the service's {@link
 * ListVersion} stays equal. Clients poll their lists every few seconds and almost always get the
 * same answer; computing it (a store scan, the selection, the checksum, the JSON) cost more than
 * half of such a request. A kept answer has the {@code lastRefTime} of when it was computed, which
 * the 1.x client only compares to the push it had. Empty answers are never kept, so that queries
 * for names that do not exist cannot fill the cache. At most {@link #CAPACITY} answers are
 * kept; past that the cache starts over, which costs one computation per list and bounds its memory
 * whatever names clients ask for.
 */
final class ListAnswers {
    static final int CAPACITY = 4_096;

    private record Query(ServiceKey service, String clusters, boolean healthyOnly) {}

    private record Answer(ListVersion version, byte[] json) {}

    private final ConcurrentHashMap<Query, Answer> answers = new ConcurrentHashMap<>();
    private final NamingService naming;

    ListAnswers(NamingService naming) {
        this.naming = naming;
    }

    /**
     * The list's JSON; {@code clusters} is the client's string (echoed), {@code filter} the set it
     * names, already validated.
     */
    byte[] json(ServiceKey service, String clusters, Set<String> filter, boolean healthyOnly) {
        Query query = new Query(service, clusters, healthyOnly);
        ListVersion version = naming.listVersion(service); // before the list: never newer than it
        Answer kept = answers.get(query);
        if (kept != null && kept.version().equals(version)) {
            return kept.json();
        }
        ServiceView view = naming.list(service, filter, healthyOnly);
        byte[] json = NamingJson.listJson(view, clusters).getBytes(StandardCharsets.UTF_8);
        if (!view.hosts().isEmpty()) {
            if (answers.size() >= CAPACITY) {
                answers.clear();
            }
            answers.put(query, new Answer(version, json));
        }
        return json;
    }
}
