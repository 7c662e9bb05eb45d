package io.lodestar.api.request;

import io.lodestar.config.ConfigKey;
import io.lodestar.config.PublishRequest;
import io.lodestar.config.listen.ListeningEntry;
import io.lodestar.config.service.ConfigSearch;
import io.lodestar.config.transfer.ConfigTransfer;
import io.lodestar.config.transfer.ImportPolicy;
import java.util.List;
import java.util.function.Supplier;

/** Every config operation, typed: what each protocol's parser builds and its handler executes. */
public sealed interface ConfigOp extends Scoped {
    /** The content a client is served (a gray release it is in, else the stable config). */
    record Read(ConfigKey key) implements ConfigOp {
        @Override
        public List<Resource> resources() {
            return List.of(Resource.config(key));
        }
    }

    /** The stable config with every stored field ({@code show=all}). */
    record Detail(ConfigKey key) implements ConfigOp {
        @Override
        public List<Resource> resources() {
            return List.of(Resource.config(key));
        }
    }

    record Remove(ConfigKey key) implements ConfigOp {
        @Override
        public List<Resource> resources() {
            return List.of(Resource.config(key));
        }
    }

    /**
     * A create-or-update: of the stable config, compared against {@code casMd5} when it is given, or
     * of a gray release for the clients at {@code betaIps} (executed by the one publish rule,
     * {@code ConfigService.publish(request, casMd5, betaIps)}). An empty {@code casMd5} is none;
     * {@code betaIps} is null for a stable publish (an empty list is refused by the publish).
     */
    record Publish(PublishRequest request, String casMd5, String betaIps) implements ConfigOp {
        public Publish {
            casMd5 = casMd5 == null || casMd5.isEmpty() ? null : casMd5;
        }

        @Override
        public List<Resource> resources() {
            return List.of(Resource.config(request.key()));
        }
    }

    /** A gray release's query ({@code stop=false}) or its end ({@code stop=true}). */
    record Beta(ConfigKey key, boolean stop) implements ConfigOp {
        @Override
        public List<Resource> resources() {
            return List.of(Resource.config(key));
        }
    }

    /** The gray release's content becomes the stable config. */
    record Promote(ConfigKey key) implements ConfigOp {
        @Override
        public List<Resource> resources() {
            return List.of(Resource.config(key));
        }
    }

    /** A page of a namespace's configs; on every group and dataId unless the search names one exactly. */
    record Search(ConfigSearch.Query query, int pageNo, int pageSize) implements ConfigOp {
        @Override
        public List<Resource> resources() {
            return List.of(Resource.configs(query.tenant(), query.group(), query.dataId()));
        }
    }

    /** A page of a config's history ({@code nid} null), one entry ({@code nid}). */
    record History(ConfigKey key, Long nid, int pageNo, int pageSize) implements ConfigOp {
        @Override
        public List<Resource> resources() {
            return List.of(Resource.config(key));
        }
    }

    /** The history entry just before {@code id}. */
    record HistoryPrevious(ConfigKey key, long id) implements ConfigOp {
        @Override
        public List<Resource> resources() {
            return List.of(Resource.config(key));
        }
    }

    /** Publishes the content of history entry {@code nid} again. */
    record Rollback(ConfigKey key, long nid) implements ConfigOp {
        @Override
        public List<Resource> resources() {
            return List.of(Resource.config(key));
        }
    }

    /**
     * Listens to {@code entries}: a long-poll ({@code timeoutMs} and {@code noHangup}), or a gRPC
     * connection's batch ({@code listen} false stops listening).
     */
    record Listen(List<ListeningEntry> entries, boolean listen, long timeoutMs, boolean noHangup) implements ConfigOp {
        public Listen {
            entries = List.copyOf(entries);
        }

        @Override
        public List<Resource> resources() {
            return entries.stream().map(e -> Resource.config(e.key())).toList();
        }
    }

    /** A zip of a namespace's configs. */
    record Export(ConfigTransfer.ExportQuery query, boolean v2) implements ConfigOp {
        @Override
        public List<Resource> resources() {
            return List.of(Resource.transfer(query.tenant()));
        }
    }

    /** Configs from a zip into a namespace; {@code archive} reads the upload, once the request is authorized. */
    record Import(String namespace, ImportPolicy policy, Supplier<byte[]> archive) implements ConfigOp {
        @Override
        public List<Resource> resources() {
            return List.of(Resource.transfer(namespace));
        }
    }
}
