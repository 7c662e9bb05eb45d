package io.lodestar.api.http;

import io.javalin.Javalin;
import io.javalin.http.HandlerType;
import io.lodestar.api.request.RequestChecks;
import io.lodestar.api.request.Scoped;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * Where the routes that act on configs and services are added: each is a parser, which reads the
 * request once into a typed request, and a handler, which executes that typed request. Between the
 * two the checks authorize the typed request ({@link RequestChecks#authorize}), so the check, the
 * handler and the audit line all read one object. The routes that act on no resource (logging in,
 * health, the cluster, users) go to Javalin directly.
 */
public final class Routes {
    /** Reads a request once into its typed request; throws to refuse it as bad input. */
    @FunctionalInterface
    public interface Parser<T extends Scoped> {
        T parse(Exchange request);
    }

    /** Executes a typed request and answers it; it sees the answer, never the request's parameters. */
    @FunctionalInterface
    public interface Handler<T extends Scoped> {
        void serve(T request, Answer answer) throws Exception;
    }

    private final Javalin app;
    private final FastPaths fast;
    private final RequestChecks checks;
    private final Set<String> typed = new TreeSet<>();

    public Routes(Javalin app, FastPaths fast, RequestChecks checks) {
        this.app = app;
        this.fast = fast;
        this.checks = checks;
    }

    /** The server, for the routes that act on no resource. */
    public Javalin app() {
        return app;
    }

    /** Serves {@code method path} by {@code parse}, then the checks, then {@code serve}. */
    public <T extends Scoped> Routes add(HandlerType method, String path, Parser<T> parse, Handler<T> serve) {
        return add(method, path, parse, serve, UnaryOperator.identity());
    }

    /** As {@link #add(HandlerType, String, Parser, Handler)}, with the endpoint wrapped by {@code answering} (v2's error form). */
    public <T extends Scoped> Routes add(
            HandlerType method, String path, Parser<T> parse, Handler<T> serve, UnaryOperator<Endpoint> answering) {
        app.addHttpHandler(method, path, JavalinExchange.handler(answering.apply(endpoint(parse, serve))));
        typed.add(method.name() + ' ' + path);
        return this;
    }

    /**
     * Also takes the {@code method path} requests that {@code takes} accepts in front of Javalin
     * ({@link FastPaths}), by the same parser and handler; call after {@link #add}.
     */
    public <T extends Scoped> Routes fast(
            HandlerType method, String path, Predicate<ServletExchange> takes, Parser<T> parse, Handler<T> serve) {
        if (!typed.contains(method.name() + ' ' + path)) {
            throw new IllegalStateException(method + " " + path + " is taken in front of a route that does not exist");
        }
        fast.add(method.name(), path, takes, endpoint(parse, serve));
        return this;
    }

    /** The operations added here, as {@code METHOD path}. */
    public Set<String> typed() {
        return Set.copyOf(typed);
    }

    private <T extends Scoped> Endpoint endpoint(Parser<T> parse, Handler<T> serve) {
        return exchange -> {
            T request = parse.parse(exchange);
            checks.authorize(exchange, request);
            serve.serve(request, exchange);
        };
    }
}
