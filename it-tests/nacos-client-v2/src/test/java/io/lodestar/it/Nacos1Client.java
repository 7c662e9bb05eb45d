package io.lodestar.it;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.function.Consumer;

/**
 * The official nacos-client 1.4.x, which speaks only HTTP, in the same JVM as this module's 2.x or
 * 3.x client: the two share package and class names, so the 1.4 client lives in a class loader of
 * its own (its class path written by it-tests' build) and is driven by reflection.
 */
final class Nacos1Client implements AutoCloseable {
    private static final ClassLoader LOADER = loader();

    private final Object config;
    private final Object naming;

    Nacos1Client(String serverAddr) {
        Properties props = new Properties();
        props.put("serverAddr", serverAddr);
        Class<?> factory = type("com.alibaba.nacos.api.NacosFactory");
        this.config = call(factory, null, "createConfigService", new Class<?>[] {Properties.class}, props);
        this.naming = call(factory, null, "createNamingService", new Class<?>[] {Properties.class}, props);
    }

    String getConfig(String dataId, String group) {
        return (String) call(
                config, "getConfig", new Class<?>[] {String.class, String.class, long.class}, dataId, group, 3000L);
    }

    boolean publishConfig(String dataId, String group, String content) {
        return (Boolean) call(
                config,
                "publishConfig",
                new Class<?>[] {String.class, String.class, String.class},
                dataId,
                group,
                content);
    }

    /** Adds a listener that hands every content it is told of to {@code heard}. */
    void addListener(String dataId, String group, Consumer<String> heard) {
        Class<?> listener = type("com.alibaba.nacos.api.config.listener.Listener");
        Object proxy = proxy(listener, (method, args) -> {
            if (method.getName().equals("receiveConfigInfo")) {
                heard.accept((String) args[0]);
            }
            return null; // getExecutor: the client's own thread
        });
        call(config, "addListener", new Class<?>[] {String.class, String.class, listener}, dataId, group, proxy);
    }

    void registerInstance(String service, String ip, int port) {
        call(naming, "registerInstance", new Class<?>[] {String.class, String.class, int.class}, service, ip, port);
    }

    void deregisterInstance(String service, String ip, int port) {
        call(naming, "deregisterInstance", new Class<?>[] {String.class, String.class, int.class}, service, ip, port);
    }

    /** The service's instances as {@code ip:port}, as {@code getAllInstances} returns them. */
    List<String> instances(String service) {
        return addresses((List<?>) call(naming, "getAllInstances", new Class<?>[] {String.class}, service));
    }

    /** Subscribes; every {@code NamingEvent} hands its instances, as {@code ip:port}, to {@code heard}. */
    void subscribe(String service, Consumer<List<String>> heard) {
        Class<?> listener = type("com.alibaba.nacos.api.naming.listener.EventListener");
        Object proxy = proxy(listener, (method, args) -> {
            Object event = args[0];
            if (event.getClass().getSimpleName().equals("NamingEvent")) {
                heard.accept(addresses((List<?>) call(event, "getInstances", new Class<?>[0])));
            }
            return null;
        });
        call(naming, "subscribe", new Class<?>[] {String.class, listener}, service, proxy);
    }

    @Override
    public void close() {
        call(config, "shutDown", new Class<?>[0]);
        call(naming, "shutDown", new Class<?>[0]);
    }

    private static List<String> addresses(List<?> instances) {
        List<String> out = new ArrayList<>();
        for (Object i : instances) {
            out.add(call(i, "getIp", new Class<?>[0]) + ":" + call(i, "getPort", new Class<?>[0]));
        }
        return out;
    }

    private interface Handler {
        Object handle(Method method, Object[] args);
    }

    /** An implementation of the 1.4 client's callback interface; equal only to itself, as the client expects. */
    private static Object proxy(Class<?> type, Handler handler) {
        return Proxy.newProxyInstance(LOADER, new Class<?>[] {type}, (self, method, args) -> switch (method.getName()) {
            case "equals" -> self == args[0];
            case "hashCode" -> System.identityHashCode(self);
            case "toString" -> "Nacos1Client." + type.getSimpleName();
            default -> handler.handle(method, args);
        });
    }

    private static Object call(Object target, String method, Class<?>[] types, Object... args) {
        return call(target.getClass(), target, method, types, args);
    }

    private static Object call(Class<?> type, Object target, String method, Class<?>[] types, Object... args) {
        // the client finds its plug-ins through the context class loader (ServiceLoader), and the
        // threads it starts inherit it: it must be the 1.4 client's own
        Thread thread = Thread.currentThread();
        ClassLoader caller = thread.getContextClassLoader();
        thread.setContextClassLoader(LOADER);
        try {
            Method m = type.getMethod(method, types);
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("nacos-client 1.4 " + method + " failed: " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("nacos-client 1.4 has no " + method, e);
        } finally {
            thread.setContextClassLoader(caller);
        }
    }

    private static Class<?> type(String name) {
        try {
            return Class.forName(name, true, LOADER);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(name + " is not on nacos-client 1.4's class path", e);
        }
    }

    private static ClassLoader loader() {
        String file = System.getProperty("nacos-client-1.classpath");
        if (file == null) {
            throw new IllegalStateException(
                    "the system property nacos-client-1.classpath is not set (run through Maven)");
        }
        try {
            List<URL> urls = new ArrayList<>();
            for (String entry : Files.readString(Path.of(file)).trim().split(java.io.File.pathSeparator)) {
                urls.add(Path.of(entry).toUri().toURL());
            }
            // the platform loader as parent: nothing of the 2.x/3.x client's class path is visible
            return new URLClassLoader("nacos-client-1", urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
        } catch (MalformedURLException e) {
            throw new IllegalStateException(e);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("cannot read " + file + " (built by it-tests)", e);
        }
    }
}
