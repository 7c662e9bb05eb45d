package io.lodestar.it;

import static io.lodestar.it.Http.params;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alibaba.nacos.api.NacosFactory;
import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.config.ConfigService;
import com.alibaba.nacos.api.config.listener.AbstractListener;
import com.alibaba.nacos.api.naming.NamingService;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The web console in a real browser (Debian's Chromium, driven through its own chromedriver; never
 * a downloaded one) against a real server with auth on: what an operator does, step by step, with
 * a screenshot of each page in {@code target/console-screenshots}. Any error the page logs fails
 * the test, but for the 4xx answers the page asked for and shows (a refused login, a
 * compare-and-set refused, the write-permission probes). Skipped, saying why, without Chromium;
 * ConsoleServingIT covers the serving then.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ConsoleBrowserIT {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path SHOTS = Path.of("target", "console-screenshots");
    private static final Duration WAIT = Duration.ofSeconds(20);
    /** What Chromium logs for an HTTP error answer: the page handled these (see the class comment). */
    private static final Pattern HANDLED_4XX =
            Pattern.compile(".*Failed to load resource: the server responded with a status of 4\\d\\d.*");

    static {
        NacosClientHome.init(); // before any nacos-client class loads
    }

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    private final List<AutoCloseable> closing = new ArrayList<>();
    private ChromeDriver driver;
    private WebDriverWait wait;
    private String base;

    @BeforeAll
    static void needsChromium() {
        Assumptions.assumeTrue(
                Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "no " + CHROMIUM + " or " + CHROMEDRIVER + ": install Debian's chromium and chromium-driver"
                        + " (.ci/run does) to drive the console in a browser");
    }

    @BeforeEach
    void startBrowser() throws Exception {
        Files.createDirectories(SHOTS);
        Path profile = Files.createTempDirectory("console-chromium");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments(
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--window-size=1280,800",
                "--user-data-dir=" + profile);
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability(ChromeOptions.LOGGING_PREFS, logs);
        // the driver named explicitly, so Selenium Manager never looks for (or downloads) one
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .build();
        driver = new ChromeDriver(service, options);
        wait = new WebDriverWait(driver, WAIT);
    }

    @AfterEach
    void stop(org.junit.jupiter.api.TestInfo test) throws Exception {
        for (AutoCloseable c : closing) {
            c.close();
        }
        if (driver != null) {
            // the page as the test left it: on a failure, what the browser showed
            shot("last-" + test.getTestMethod().map(m -> m.getName()).orElse("test"));
            driver.quit();
        }
    }

    @Test
    void anAdminManagesConfigsNamespacesAndServicesFromTheConsole() throws Exception {
        ServerProcess p = cluster.standalone("console", "--auth", "on").start();
        p.awaitReady();
        base = "http://" + p.httpAddress();
        String password = adminPassword(p);
        String token = ConsoleServingIT.login(p);

        // 1. log in
        logIn("nacos", password);
        shot("01-configs");

        // 2. a namespace
        click("nav-namespaces");
        click("create-namespace");
        type("ns-id", "ui-test");
        type("ns-name", "UI Test");
        type("ns-desc", "made by ConsoleBrowserIT");
        click("ns-save");
        waitText("namespace-table", "ui-test");
        shot("02-namespaces");

        // 3. publish a config in it
        chooseNamespace("UI Test");
        click("nav-configs");
        click("create-config");
        type("new-dataId", "app.yaml");
        choose("new-type", "yaml");
        typeCode("new-content", "port: 8080");
        click("new-publish");
        waitText("config-title", "app.yaml");
        waitCode("config-content", "port: 8080");
        assertEquals("port: 8080", apiContent(p, token));
        shot("03-config");

        // 4. find it by search
        click("nav-configs");
        type("search-dataId", "app");
        click("search");
        waitText("config-table", "app.yaml");
        shot("04-config-search");

        // 5. edit it, with the diff before publishing
        testId("config-link").click();
        waitCode("config-content", "port: 8080");
        click("edit-config");
        typeCode("config-editor", "port: 9090");
        click("review-config");
        waitText("publish-diff", "9090");
        assertTrue(text("publish-diff").contains("8080"), "the diff shows the stored version too");
        shot("05-edit-diff");
        click("confirm-publish");
        waitCode("config-content", "port: 9090");
        assertEquals("port: 9090", apiContent(p, token));

        // live: a publish through the API shows without a reload (the push channel)
        waitText("live-badge", "live");
        publishThroughApi(p, token, "port: 7070");
        waitCode("config-content", "port: 7070");

        // a concurrent edit is refused and shown, never overwritten
        click("edit-config");
        publishThroughApi(p, token, "port: 6060");
        waitText("stale-draft", "changed");
        typeCode("config-editor", "port: 5050");
        click("review-config");
        click("confirm-publish");
        waitText("cas-conflict", "nothing was written");
        assertEquals("port: 6060", apiContent(p, token));
        shot("05b-cas-conflict");

        // 6. history: at least two entries, a diff, and a rollback (through CAS)
        click("tab-history");
        wait.until(
                d -> d.findElements(By.cssSelector("[data-testid=history-row]")).size() >= 2);
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("[data-testid=history-diff]")));
        shot("06-history");
        List<WebElement> rows = driver.findElements(By.cssSelector("[data-testid=history-row]"));
        WebElement oldest = rows.get(rows.size() - 1);
        String oldestId = oldest.getAttribute("data-version");
        oldest.findElement(By.cssSelector("[data-testid=rollback]")).click();
        waitText("rollback-done", "Rolled back");
        String oldContent = Http.JSON
                .readTree(Http.get(
                                p.httpAddress(),
                                "/nacos/v1/cs/history?nid=" + oldestId + "&dataId=app.yaml&group=DEFAULT_GROUP"
                                        + "&tenant=ui-test&accessToken=" + token)
                        .body())
                .get("content")
                .asText();
        assertEquals(oldContent, apiContent(p, token), "the rollback republished version " + oldestId);

        // 7. a real nacos-client listens: its long-poll is listed, holding the stored md5
        click("tab-listeners");
        By clientRow = By.cssSelector("[data-testid=listener-row][data-protocol=http-long-poll][data-current=true]");
        ConfigService client = NacosFactory.createConfigService(clientProps(p, password));
        closing.add(client::shutDown);
        client.addListener("app.yaml", "DEFAULT_GROUP", new AbstractListener() {
            @Override
            public void receiveConfigInfo(String configInfo) {}
        });
        wait.until(d -> {
            click("listeners-refresh");
            return !d.findElements(clientRow).isEmpty();
        });
        shot("07-listeners");

        // 8. an instance registered through the API appears without a reload
        driver.get(base + "/services/detail?serviceName=ui-svc&groupName=DEFAULT_GROUP&namespaceId=ui-test");
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("[data-testid=instance-table]")));
        Http.Response reg = Http.postForm(
                p.httpAddress(),
                "/nacos/v1/ns/instance",
                params(
                        "serviceName", "ui-svc",
                        "namespaceId", "ui-test",
                        "ip", "10.0.0.7",
                        "port", "8080",
                        "ephemeral", "false",
                        "metadata", "zone=a",
                        "accessToken", token));
        assertEquals(200, reg.status(), reg.body());
        By row = By.cssSelector("[data-testid=instance-row][data-instance='10.0.0.7:8080']");
        wait.until(ExpectedConditions.visibilityOfElementLocated(row));
        assertTrue(
                driver.findElement(row)
                        .findElement(By.cssSelector("[data-testid=instance-held-by]"))
                        .getText()
                        .startsWith("stored"),
                "a persistent instance is shown as kept by the store");
        shot("08-service-instances");

        // 9. disabled from the console: the API's answer changes
        driver.findElement(row)
                .findElement(By.cssSelector("[data-testid=toggle-enabled]"))
                .click();
        wait.until(d -> textContent(d.findElement(row)).contains("disabled"));
        JsonNode one = Http.JSON.readTree(Http.get(
                        p.httpAddress(),
                        "/nacos/v1/ns/instance?serviceName=ui-svc&namespaceId=ui-test&ip=10.0.0.7&port=8080"
                                + "&clusterName=DEFAULT&accessToken=" + token)
                .body());
        assertFalse(one.get("enabled").asBoolean(), one.toString());
        JsonNode list = Http.JSON.readTree(Http.get(
                        p.httpAddress(),
                        "/nacos/v1/ns/instance/list?serviceName=ui-svc&namespaceId=ui-test&accessToken=" + token)
                .body());
        assertEquals(0, list.get("hosts").size(), "a disabled instance is not listed: " + list);
        shot("09-instance-disabled");
        // a real nacos-client subscribes: it is listed among the service's subscribers
        NamingService naming = NacosFactory.createNamingService(clientProps(p, password));
        closing.add(naming::shutDown);
        naming.subscribe("ui-svc", event -> {});
        By subscriber = By.cssSelector("[data-testid=subscriber-row][data-protocol=udp-push]");
        wait.until(d -> {
            d.navigate().refresh(); // who subscribes is shown as of the page's load, not pushed
            return !new WebDriverWait(d, Duration.ofSeconds(2))
                    .until(ExpectedConditions.presenceOfElementLocated(
                            By.cssSelector("[data-testid=subscriber-table]")))
                    .findElements(subscriber)
                    .isEmpty();
        });
        shot("09b-service-subscribers");

        click("nav-services");
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("[data-testid=service-table]")));
        waitText("service-table", "ui-svc");
        shot("10-services");
        // a namespace that holds configs cannot be deleted: the server's refusal is shown
        click("nav-namespaces");
        WebElement uiTest = wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.xpath("//*[@data-testid='namespace-row'][.//td[normalize-space()='ui-test']]")));
        uiTest.findElement(By.cssSelector("[data-testid=delete-namespace]")).click();
        click("confirm-delete-namespace");
        waitText("namespace-error", "still holds 1 config");
        waitText("namespace-table", "ui-test");
        shot("10b-namespace-not-empty");

        click("nav-cluster");
        waitText("member-table", "LEADER");
        shot("11-cluster");
        click("nav-users");
        waitText("users-table", "nacos");
        shot("12-users");

        assertNoConsoleErrors();
    }

    @Test
    void aWrongPasswordShowsAnErrorAndNoData() throws Exception {
        ServerProcess p = cluster.standalone("console-login", "--auth", "on").start();
        p.awaitReady();
        base = "http://" + p.httpAddress();
        adminPassword(p);
        driver.get(base + "/configs");
        type("login-user", "nacos");
        type("login-password", "not-the-password");
        click("login-submit");
        waitText("login-error", "Wrong user name or password");
        assertTrue(driver.findElements(By.cssSelector("[data-testid=config-table]"))
                .isEmpty());
        assertTrue(driver.findElements(By.cssSelector("[data-testid=whoami]")).isEmpty());
        shot("13-login-refused");
        assertNoConsoleErrors();
    }

    @Test
    void aReadOnlyUserSeesNoEditButtonsAndTheApiRefusesItsEdits() throws Exception {
        ServerProcess p = cluster.standalone("console-reader", "--auth", "on").start();
        p.awaitReady();
        base = "http://" + p.httpAddress();
        String token = ConsoleServingIT.login(p);
        String a = p.httpAddress();
        ok(Http.postForm(
                a,
                "/nacos/v1/auth/users",
                params("username", "reader", "password", "reader-pass-1", "accessToken", token)));
        ok(Http.postForm(
                a, "/nacos/v1/auth/roles", params("role", "readers", "username", "reader", "accessToken", token)));
        ok(Http.postForm(
                a,
                "/nacos/v1/auth/permissions",
                params("role", "readers", "resource", "public", "action", "r", "accessToken", token)));
        ok(Http.postForm(
                a,
                "/nacos/v1/cs/configs",
                params(
                        "dataId",
                        "shared.properties",
                        "group",
                        "DEFAULT_GROUP",
                        "type",
                        "properties",
                        "content",
                        "a=1",
                        "accessToken",
                        token)));
        ok(Http.postForm(
                a,
                "/nacos/v1/ns/instance",
                params(
                        "serviceName",
                        "ro-svc",
                        "ip",
                        "10.0.0.9",
                        "port",
                        "80",
                        "ephemeral",
                        "false",
                        "accessToken",
                        token)));

        logIn("reader", "reader-pass-1");
        waitText("config-table", "shared.properties");
        assertNoButton("create-config");
        assertNoButton("import");
        testId("config-link").click();
        waitCode("config-content", "a=1");
        assertNoButton("edit-config");
        assertNoButton("delete-config");
        shot("14-read-only-config");
        driver.get(base + "/services/detail?serviceName=ro-svc&groupName=DEFAULT_GROUP&namespaceId=");
        wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("[data-testid=instance-row][data-instance='10.0.0.9:80']")));
        assertNoButton("toggle-enabled");
        shot("15-read-only-service");

        Http.Response login = Http.postForm(
                a, "/nacos/v1/auth/users/login", params("username", "reader", "password", "reader-pass-1"));
        String readerToken = Http.JSON.readTree(login.body()).get("accessToken").asText();
        Http.Response edit = Http.postForm(
                a,
                "/nacos/v1/cs/configs",
                params(
                        "dataId",
                        "shared.properties",
                        "group",
                        "DEFAULT_GROUP",
                        "content",
                        "a=2",
                        "accessToken",
                        readerToken));
        assertEquals(403, edit.status(), "the API refuses the reader's edit anyway: " + edit.body());
        assertNoConsoleErrors();
    }

    // ---- steps

    private void logIn(String user, String password) {
        driver.get(base + "/");
        type("login-user", user);
        type("login-password", password);
        click("login-submit");
        waitText("whoami", user);
    }

    private void chooseNamespace(String name) {
        choose("namespace-select", name);
        wait.until(d -> testId("namespace-select").getAttribute("value").equals(name));
    }

    /** Picks {@code option} in the Mantine select {@code id}. */
    private void choose(String id, String option) {
        click(id);
        By item = By.xpath("//*[@role='option' and normalize-space()='" + option + "']");
        wait.until(ExpectedConditions.elementToBeClickable(item)).click();
    }

    private WebElement testId(String id) {
        return wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("[data-testid='" + id + "']")));
    }

    private void click(String id) {
        wait.until(ExpectedConditions.elementToBeClickable(By.cssSelector("[data-testid='" + id + "']")))
                .click();
    }

    private void type(String id, String text) {
        WebElement e = testId(id);
        e.clear();
        e.sendKeys(text);
    }

    /** Replaces the text of the CodeMirror editor {@code id}. */
    private void typeCode(String id, String text) {
        WebElement content = testId(id).findElement(By.cssSelector(".cm-content"));
        content.click();
        content.sendKeys(Keys.chord(Keys.CONTROL, "a"), Keys.DELETE);
        content.sendKeys(text);
        wait.until(d -> content.getText().equals(text));
    }

    private String text(String id) {
        return testId(id).getText();
    }

    /** Waits until {@code id} holds {@code part} (as the DOM has it, before CSS changes its case). */
    private void waitText(String id, String part) {
        new WebDriverWait(driver, WAIT)
                .withMessage(() -> id + " to show '" + part + "'")
                .until(d -> {
                    List<WebElement> found = d.findElements(By.cssSelector("[data-testid='" + id + "']"));
                    return !found.isEmpty() && textContent(found.get(0)).contains(part);
                });
    }

    private static String textContent(WebElement e) {
        return String.valueOf(e.getDomProperty("textContent"));
    }

    /** Waits until the CodeMirror editor {@code id} holds {@code part} (its document, not its gutter). */
    private void waitCode(String id, String part) {
        By content = By.cssSelector("[data-testid='" + id + "'] .cm-content");
        new WebDriverWait(driver, WAIT)
                .withMessage(() -> id + " to hold '" + part + "', has: "
                        + driver.findElements(By.cssSelector("[data-testid='" + id + "']")).stream()
                                .map(e -> e.getDomProperty("outerHTML"))
                                .toList())
                .until(d -> {
                    List<WebElement> found = d.findElements(content);
                    return !found.isEmpty()
                            && String.valueOf(found.get(0).getDomProperty("textContent"))
                                    .contains(part);
                });
    }

    private void assertNoButton(String id) {
        assertTrue(
                driver.findElements(By.cssSelector("[data-testid='" + id + "']"))
                        .isEmpty(),
                "a read-only user sees no '" + id + "' button");
    }

    private void shot(String name) throws Exception {
        File png = driver.getScreenshotAs(OutputType.FILE);
        Files.copy(png.toPath(), SHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
    }

    /** Errors the page logged (exceptions, CSP refusals, failed requests but the handled 4xx). */
    private void assertNoConsoleErrors() {
        List<String> errors = new ArrayList<>();
        for (LogEntry e : driver.manage().logs().get(LogType.BROWSER)) {
            if (e.getLevel().intValue() >= Level.SEVERE.intValue()
                    && !HANDLED_4XX.matcher(e.getMessage()).matches()) {
                errors.add(e.getMessage());
            }
        }
        assertEquals(List.of(), errors, "errors in the browser's console");
    }

    // ---- the API, as a second client

    private static String adminPassword(ServerProcess p) throws Exception {
        Path file = p.dataDir.resolve("initial-admin-password");
        return io.lodestar.kv.testing.Await.result(
                Duration.ofSeconds(30),
                "the admin's password file",
                () -> Files.exists(file) ? Files.readString(file).trim() : null);
    }

    private static String apiContent(ServerProcess p, String token) throws Exception {
        return Http.get(
                        p.httpAddress(),
                        "/nacos/v1/cs/configs?dataId=app.yaml&group=DEFAULT_GROUP&tenant=ui-test&accessToken="
                                + URLEncoder.encode(token, StandardCharsets.UTF_8))
                .body();
    }

    private static void publishThroughApi(ServerProcess p, String token, String content) throws Exception {
        ok(Http.postForm(
                p.httpAddress(),
                "/nacos/v1/cs/configs",
                params(
                        "dataId",
                        "app.yaml",
                        "group",
                        "DEFAULT_GROUP",
                        "tenant",
                        "ui-test",
                        "type",
                        "yaml",
                        "content",
                        content,
                        "accessToken",
                        token)));
    }

    private static Properties clientProps(ServerProcess p, String password) {
        Properties props = new Properties();
        props.put(PropertyKeyConst.SERVER_ADDR, p.httpAddress());
        props.put(PropertyKeyConst.NAMESPACE, "ui-test");
        props.put(PropertyKeyConst.USERNAME, "nacos");
        props.put(PropertyKeyConst.PASSWORD, password);
        return props;
    }

    private static void ok(Http.Response r) {
        assertEquals(200, r.status(), r.body());
    }
}
