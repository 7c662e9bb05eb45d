package io.lodestar.api.console;

import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import io.javalin.http.NotFoundResponse;
import io.javalin.http.staticfiles.Location;
import io.lodestar.api.http.JavalinExchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The web console: the bundle built from {@code console-api/src/main/console} into the jar's
 * {@code /console}, served at {@code /} to anyone (the page holds no data; every API call it makes
 * carries the user's token and is checked as any other). Client-side routes ({@code /configs/detail}
 * ...) that a browser asks for as a page get {@code index.html}; API paths never do. Every answer
 * carries a Content-Security-Policy that lets the page load and connect to its own origin only.
 */
public final class ConsoleRoutes {
    private static final Logger LOG = LoggerFactory.getLogger(ConsoleRoutes.class);

    /** Where the bundle is on the classpath. */
    static final String DIRECTORY = "/console";

    static final String INDEX = DIRECTORY + "/index.html";

    /** Out of habit (Nacos serves its console there): answered with a redirect to {@code /}. */
    public static final String NACOS_PATH = "/nacos";

    /**
     * Self only: scripts, styles, fonts, images and connections (fetch and the push channel's
     * WebSocket, which CSP 3's 'self' covers) from the node's own origin; inline styles because
     * Mantine and CodeMirror set their themes in style elements; no frames, no plugins, no base.
     */
    public static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
            + "img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
            + "frame-ancestors 'none'; form-action 'self'";

    private static final Map<String, String> PAGE_HEADERS = Map.of(
            "Content-Security-Policy", CSP,
            "X-Content-Type-Options", "nosniff",
            "Referrer-Policy", "no-referrer",
            "X-Frame-Options", "DENY",
            "Cache-Control", "no-cache");

    /** Vite names each asset by its content's hash, so a browser may keep it for good. */
    private static final Map<String, String> ASSET_HEADERS = Map.of(
            "Content-Security-Policy", CSP,
            "X-Content-Type-Options", "nosniff",
            "Cache-Control", "public, max-age=31536000, immutable");

    private ConsoleRoutes() {}

    /** Adds the static files and the client-route fallback to {@code config}; nothing when the jar has no bundle. */
    public static void configure(JavalinConfig config) {
        byte[] index = index();
        if (index == null) {
            LOG.warn("no web console in this build ({} is not on the classpath): / answers 404", INDEX);
            return;
        }
        config.staticFiles.add(files -> {
            files.hostedPath = "/assets";
            files.directory = DIRECTORY + "/assets";
            files.location = Location.CLASSPATH;
            files.headers = ASSET_HEADERS;
        });
        config.staticFiles.add(files -> {
            files.hostedPath = "/";
            files.directory = DIRECTORY;
            files.location = Location.CLASSPATH;
            files.headers = PAGE_HEADERS;
        });
        // Javalin asks this only for a GET that accepts text/html and that nothing else answered
        config.spaRoot.addHandler("/", ctx -> page(ctx, index));
    }

    /** The redirect from Nacos's console path; its access is declared open in {@code AccessRules}. */
    public static void install(Javalin app) {
        app.get(NACOS_PATH, ctx -> ctx.redirect("/", HttpStatus.FOUND));
    }

    private static void page(Context ctx, byte[] index) {
        String path = ctx.path();
        if (JavalinExchange.isApiPath(path)) {
            throw new NotFoundResponse("Endpoint " + ctx.method() + " " + path + " not found");
        }
        PAGE_HEADERS.forEach(ctx::header);
        ctx.contentType("text/html; charset=utf-8").result(index);
    }

    private static byte[] index() {
        try (InputStream in = ConsoleRoutes.class.getResourceAsStream(INDEX)) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
