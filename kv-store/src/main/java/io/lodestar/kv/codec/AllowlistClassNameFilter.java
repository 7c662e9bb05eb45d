package io.lodestar.kv.codec;

import com.alipay.hessian.ClassNameFilter;
import java.io.IOException;
import java.util.Set;

/**
 * Admits only the named classes (and arrays of them) when Hessian resolves a type name, before
 * the class is loaded or any instance created. Every other name fails the whole decode: the
 * resolver's exception propagates, so Hessian cannot fall back to a map in its place.
 */
final class AllowlistClassNameFilter implements ClassNameFilter {
    private final Set<String> allowed;

    AllowlistClassNameFilter(Set<String> allowed) {
        this.allowed = Set.copyOf(allowed);
    }

    @Override
    public int order() {
        return 0;
    }

    @Override
    public String resolve(String className) throws IOException {
        // arrays: Hessian names them "[a.B", the JVM "[La.B;"
        String element = className;
        while (element.startsWith("[")) {
            element = element.substring(1);
        }
        if (element.startsWith("L") && element.endsWith(";")) {
            element = element.substring(1, element.length() - 1);
        }
        if (!allowed.contains(element)) {
            throw new IOException("class not allowed in payload: " + className);
        }
        return className;
    }
}
