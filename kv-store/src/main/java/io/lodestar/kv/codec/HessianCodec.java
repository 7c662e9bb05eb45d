package io.lodestar.kv.codec;

import com.alipay.hessian.ClassNameResolver;
import com.caucho.hessian.io.Hessian2Input;
import com.caucho.hessian.io.Hessian2Output;
import com.caucho.hessian.io.SerializerFactory;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Hessian 2 encoding restricted to an allowlist of classes. Thread-safe.
 *
 * <p>The allowlisted classes should hold only primitives, strings, byte arrays and other
 * allowlisted classes (or arrays of them): JDK collections would need their own entries.
 */
public final class HessianCodec {
    private final SerializerFactory factory;

    public HessianCodec(Set<Class<?>> allowed) {
        ClassNameResolver resolver = new ClassNameResolver();
        resolver.addFilter(new AllowlistClassNameFilter(
                allowed.stream().map(Class::getName).collect(Collectors.toSet())));
        this.factory = new SerializerFactory();
        this.factory.setClassNameResolver(resolver);
    }

    public byte[] encode(Object value) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        Hessian2Output out = new Hessian2Output(bytes);
        out.setSerializerFactory(factory);
        try {
            out.writeObject(value);
            out.close();
        } catch (IOException e) {
            throw new CodecException("cannot encode " + value.getClass().getName(), e);
        }
        return bytes.toByteArray();
    }

    /** Decodes one object and checks it is a {@code type}. */
    public <T> T decode(byte[] data, Class<T> type) {
        Hessian2Input in = new Hessian2Input(new ByteArrayInputStream(data));
        in.setSerializerFactory(factory);
        Object value;
        try {
            value = in.readObject();
            in.close();
        } catch (IOException | RuntimeException e) {
            throw new CodecException("cannot decode payload: " + e.getMessage(), e);
        } catch (StackOverflowError | OutOfMemoryError e) {
            // A damaged list length or nesting depth makes Hessian allocate an array of that length
            // or recurse without bound; the failed allocation or the unwound stack leaves nothing
            // behind, so this is a malformed payload, not a broken JVM.
            throw new CodecException("cannot decode payload: " + e, e);
        }
        if (!type.isInstance(value)) {
            throw new CodecException(
                    "expected " + type.getName() + " but payload holds "
                            + (value == null ? "null" : value.getClass().getName()),
                    null);
        }
        return type.cast(value);
    }
}
