package io.lodestar.api.cli.client;

import io.lodestar.api.tls.ClientTrust;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The command line's HTTP client of the servers named by {@code --server}. A request goes to the
 * server that answered last (the first one to begin with); when a server cannot be reached (the
 * connection is refused or not made within {@value #CONNECT_SECONDS} s), the next one is tried, so a
 * request is never sent twice. Any other failure, or an answer of any status, ends the attempt.
 * With credentials it logs in once, on the first request, and sends the token as an {@code
 * Authorization: Bearer} header, never in a URL. Not thread-safe: one command, one thread.
 */
public final class LodestarClient {
    static final int CONNECT_SECONDS = 5;
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);
    private static final String LOGIN_PATH = "/nacos/v1/auth/users/login";

    private final HttpClient http;
    private final List<URI> servers;
    private final Credentials credentials;
    private final String loginPath;
    private int current;
    private String token;

    private LodestarClient(HttpClient http, List<URI> servers, Credentials credentials, String loginPath) {
        this.http = http;
        this.servers = servers;
        this.credentials = credentials;
        this.loginPath = loginPath;
    }

    /** A client for {@code options}; a bad option is a {@link CommandFailure} with {@link ExitCodes#USAGE}. */
    public static LodestarClient of(ClientOptions options) {
        return of(
                options.servers,
                options.tlsCaFile,
                Credentials.of(options.username, options.passwordFile, System.getenv()));
    }

    static LodestarClient of(List<String> servers, Path tlsCaFile, Credentials credentials) {
        return of(servers, tlsCaFile, credentials, LOGIN_PATH);
    }

    /**
     * A client of a server that is not necessarily Lodestar (the source of {@code migrate}), which
     * logs in at {@code loginPath} (Nacos 3.2 serves only {@code /nacos/v3/auth/user/login}).
     */
    public static LodestarClient of(List<String> servers, Path tlsCaFile, Credentials credentials, String loginPath) {
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(CONNECT_SECONDS));
        if (tlsCaFile != null) {
            try {
                builder.sslContext(ClientTrust.trusting(tlsCaFile));
            } catch (IllegalArgumentException e) {
                throw new CommandFailure(ExitCodes.USAGE, "--tls-ca-file: " + e.getMessage());
            }
        }
        List<URI> uris = new ArrayList<>();
        for (String s : servers) {
            uris.add(base(s.trim(), tlsCaFile != null));
        }
        if (uris.isEmpty()) {
            throw new CommandFailure(ExitCodes.USAGE, "--server: give at least one host:port");
        }
        return new LodestarClient(builder.build(), List.copyOf(uris), credentials, loginPath);
    }

    /** {@code server} with its scheme: as given, else https with a CA file and http without. */
    static URI base(String server, boolean tls) {
        String withScheme = server.startsWith("https://") || server.startsWith("http://")
                ? server
                : (tls ? "https://" : "http://") + server;
        try {
            URI uri = URI.create(
                    withScheme.endsWith("/") ? withScheme.substring(0, withScheme.length() - 1) : withScheme);
            if (uri.getHost() == null || uri.getPort() < 0 && !server.contains("://")) {
                throw new IllegalArgumentException("not host:port");
            }
            return uri;
        } catch (IllegalArgumentException e) {
            throw new CommandFailure(ExitCodes.USAGE, "--server: '" + server + "' is not host:port");
        }
    }

    public Call get(String path) {
        return new Call(this, "GET", path);
    }

    public Call post(String path) {
        return new Call(this, "POST", path);
    }

    public Call put(String path) {
        return new Call(this, "PUT", path);
    }

    public Call delete(String path) {
        return new Call(this, "DELETE", path);
    }

    /** The servers, in the order they are tried. */
    public List<URI> servers() {
        return servers;
    }

    /** The server that answered last, then the others in order: where a new connection should go first. */
    public List<URI> serversFromCurrent() {
        List<URI> order = new ArrayList<>();
        for (int i = 0; i < servers.size(); i++) {
            order.add(servers.get((current + i) % servers.size()));
        }
        return order;
    }

    /** Records that {@code server} answered, so the next request goes there first. */
    public void answeredBy(URI server) {
        current = Math.max(0, servers.indexOf(server));
    }

    /**
     * A client of {@code server} alone, sharing this one's credentials and token: for a question
     * whose answer is the node's own (no other server may answer in its place).
     */
    public LodestarClient pinnedTo(URI server) {
        LodestarClient pinned = new LodestarClient(http, List.of(server), credentials, loginPath);
        pinned.token = token;
        return pinned;
    }

    public HttpClient http() {
        return http;
    }

    /**
     * The token to send, logging in for it the first time (again with {@code fresh}, e.g. after a
     * reconnection, when it may have expired); null when nobody logs in.
     */
    public String token(boolean fresh) throws IOException, InterruptedException {
        if (credentials.token != null) {
            return credentials.token;
        }
        if (!credentials.logsIn()) {
            return null;
        }
        if (token == null || fresh) {
            token = login();
        }
        return token;
    }

    private String login() throws IOException, InterruptedException {
        char[] password = credentials.password();
        String form = "username=" + enc(credentials.username) + "&password=" + enc(new String(password));
        java.util.Arrays.fill(password, '\0');
        Reply reply = send("POST", loginPath, form, null, Map.of());
        if (!reply.ok()) {
            throw new CommandFailure(
                    ExitCodes.forStatus(reply.status()) == ExitCodes.REFUSED ? ExitCodes.REFUSED : ExitCodes.FAILED,
                    "cannot log in as " + credentials.username + ": "
                            + reply.text().trim());
        }
        return reply.json().path("accessToken").asText();
    }

    Reply send(Call call) throws IOException, InterruptedException {
        String query = form(call.query);
        String path = call.path + (query.isEmpty() ? "" : "?" + query);
        return send(
                call.method,
                path,
                call.method.equals("GET") || call.method.equals("DELETE") ? null : form(call.form),
                token(false),
                call.headers);
    }

    /**
     * GETs {@code path} with its body streamed into {@code target} when the answer is 2xx (never
     * held in memory); any other answer comes back as a {@link Reply} with its body, and {@code
     * target} is left as it was.
     */
    public Reply download(String path, java.nio.file.Path target) throws IOException, InterruptedException {
        return send(
                "GET",
                path,
                null,
                token(false),
                Map.of(),
                info -> info.statusCode() / 100 == 2
                        ? HttpResponse.BodySubscribers.mapping(
                                HttpResponse.BodySubscribers.ofFile(target), file -> new byte[0])
                        : HttpResponse.BodySubscribers.ofByteArray());
    }

    private Reply send(String method, String pathAndQuery, String form, String bearer, Map<String, String> headers)
            throws IOException, InterruptedException {
        return send(method, pathAndQuery, form, bearer, headers, HttpResponse.BodyHandlers.ofByteArray());
    }

    /** Asks each server in turn until one answers; the body as {@code body} reads it. */
    private Reply send(
            String method,
            String pathAndQuery,
            String form,
            String bearer,
            Map<String, String> headers,
            HttpResponse.BodyHandler<byte[]> body)
            throws IOException, InterruptedException {
        List<String> unreachable = new ArrayList<>();
        for (URI server : serversFromCurrent()) {
            HttpRequest.Builder request =
                    HttpRequest.newBuilder(URI.create(server + pathAndQuery)).timeout(REQUEST_TIMEOUT);
            if (form != null) {
                request.header("Content-Type", "application/x-www-form-urlencoded")
                        .method(method, HttpRequest.BodyPublishers.ofString(form));
            } else {
                request.method(method, HttpRequest.BodyPublishers.noBody());
            }
            if (bearer != null) {
                request.header("Authorization", "Bearer " + bearer);
            }
            headers.forEach(request::header);
            try {
                HttpResponse<byte[]> answer = http.send(request.build(), body);
                answeredBy(server);
                return new Reply(answer.statusCode(), answer.body());
            } catch (ConnectException | HttpConnectTimeoutException e) {
                unreachable.add(server.getAuthority() + " (" + describe(e) + ")");
            }
        }
        throw new CommandFailure(ExitCodes.FAILED, "cannot reach any server: " + String.join(", ", unreachable));
    }

    static String describe(IOException e) {
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }

    static String form(Map<String, String> params) {
        return params.entrySet().stream()
                .map(e -> enc(e.getKey()) + "=" + enc(e.getValue()))
                .collect(Collectors.joining("&"));
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
