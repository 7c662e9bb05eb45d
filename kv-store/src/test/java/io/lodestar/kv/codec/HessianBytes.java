package io.lodestar.kv.codec;

import com.caucho.hessian.io.Hessian2Output;
import com.caucho.hessian.io.SerializerFactory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/** Writes Hessian 2 bytes by hand, as an attacker would: names classes without loading them. */
final class HessianBytes {
    private HessianBytes() {}

    @FunctionalInterface
    interface Writer {
        void write(Hessian2Output out) throws IOException;
    }

    /** Hessian 2 bytes written by a plain, unrestricted {@link Hessian2Output}. */
    static byte[] hessian(Writer body) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Hessian2Output out = new Hessian2Output(bytes);
        out.setSerializerFactory(new SerializerFactory());
        try {
            body.write(out);
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * Writes an object as Hessian's JavaSerializer would, naming {@code className} without loading
     * it; a field value that is a {@link Writer} writes itself.
     */
    static void writeObjectNamed(Hessian2Output out, String className, Map<String, Object> fields) throws IOException {
        if (out.writeObjectBegin(className) == -1) {
            out.writeClassFieldLength(fields.size());
            for (String name : fields.keySet()) {
                out.writeString(name);
            }
            out.writeObjectBegin(className);
        }
        for (Object value : fields.values()) {
            if (value instanceof Writer w) {
                w.write(out);
            } else {
                out.writeObject(value);
            }
        }
    }

    /** A map that keeps the order its fields are given in, as Hessian writes them. */
    static Map<String, Object> orderedMap(Object... keysAndValues) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }

    /** Every message down a cause chain, for an assertion's failure text. */
    static String messages(Throwable e) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            all.append(t).append(" | ");
        }
        return all.toString();
    }
}
