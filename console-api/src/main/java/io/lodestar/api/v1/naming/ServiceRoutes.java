package io.lodestar.api.v1.naming;

import static io.javalin.http.HandlerType.DELETE;
import static io.javalin.http.HandlerType.GET;
import static io.javalin.http.HandlerType.POST;
import static io.javalin.http.HandlerType.PUT;

import io.lodestar.api.answer.NamingJson;
import io.lodestar.api.http.Answer;
import io.lodestar.api.http.Routes;
import io.lodestar.naming.ServiceNotFoundException;
import io.lodestar.naming.ServicePage;
import io.lodestar.naming.health.PersistentHealthChecks;
import io.lodestar.naming.model.Service;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.service.NamingService;
import java.util.Set;

/**
 * {@code /nacos/v1/ns/service}: create, update, delete and read a service definition, and list a
 * group's services. Nacos's {@code selector} (label selectors over a CMDB) is accepted and
 * ignored: Lodestar has no CMDB, so every instance is listed to every client.
 */
public final class ServiceRoutes {
    private static final String PATH = InstanceRoutes.BASE + "/service";
    private static final String TEXT = "text/plain";

    private ServiceRoutes() {}

    public static void install(Routes routes, NamingService naming, PersistentHealthChecks health) {
        routes.add(
                        POST,
                        PATH,
                        NamingV1Requests::createService,
                        (op, answer) -> answer.answerWhenDone(
                                TEXT,
                                naming.createService(op.service(), op.spec()).thenApply(v -> "ok")))
                .add(
                        PUT,
                        PATH,
                        NamingV1Requests::updateService,
                        (op, answer) -> answer.answerWhenDone(
                                TEXT,
                                naming.updateService(op.service(), op.protectThreshold(), op.metadata())
                                        .thenApply(v -> "ok")))
                .add(
                        DELETE,
                        PATH,
                        NamingV1Requests::deleteService,
                        (op, answer) -> answer.answerWhenDone(
                                TEXT, naming.deleteService(op.service()).thenApply(v -> "ok")))
                .add(GET, PATH, NamingV1Requests::service, (op, answer) -> {
                    ServiceKey key = op.service();
                    Service service = naming.service(key).orElseThrow(() -> new ServiceNotFoundException(key));
                    answer.answerJson(NamingJson.service(
                            service,
                            naming.list(key, Set.of(), false).hosts(),
                            (instance, checker) -> health.notProbedBecause(key, instance, checker)));
                })
                .add(GET, PATH + "/list", NamingV1Requests::serviceList, (op, answer) -> {
                    ServicePage page = naming.listServices(op.namespace(), op.group(), op.pageNo(), op.pageSize());
                    answer.answerStream(Answer.JSON_TYPE, out -> NamingJson.writeServiceList(page, out));
                });
    }
}
