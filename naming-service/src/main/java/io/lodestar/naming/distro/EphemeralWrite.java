package io.lodestar.naming.distro;

import io.lodestar.kv.codec.FieldInput;
import io.lodestar.kv.codec.FieldOutput;
import io.lodestar.naming.model.BeatInfo;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.InstancePatch;
import io.lodestar.naming.model.ServiceKey;
import java.io.IOException;
import java.util.Optional;

/** A write to a service's ephemeral instances, as a non-owner forwards it to the service's owner. */
public sealed interface EphemeralWrite {
    ServiceKey service();

    /** {@code holder}: the member holding the instance for its client's connection, or null (see {@code Mutation.Register}). */
    record Register(ServiceKey service, Instance instance, String holder) implements EphemeralWrite {}

    /** {@code ifHeldBy}: remove only while that member holds the instance, or null (see {@code Mutation.Deregister}). */
    record Deregister(ServiceKey service, InstanceAddress address, String ifHeldBy) implements EphemeralWrite {}

    record Update(ServiceKey service, Instance instance) implements EphemeralWrite {}

    record Patch(ServiceKey service, InstanceAddress address, InstancePatch patch) implements EphemeralWrite {}

    record Beat(ServiceKey service, InstanceAddress address, Optional<BeatInfo> beat) implements EphemeralWrite {}

    static void write(FieldOutput out, EphemeralWrite w) throws IOException {
        if (w instanceof Register r) {
            out.writeByte(1);
            DistroCodec.writeKey(out, r.service());
            DistroCodec.writeInstance(out, r.instance());
            out.writeOptionalString(r.holder());
        } else if (w instanceof Deregister d) {
            out.writeByte(2);
            DistroCodec.writeKey(out, d.service());
            DistroCodec.writeAddress(out, d.address());
            out.writeOptionalString(d.ifHeldBy());
        } else if (w instanceof Update u) {
            out.writeByte(3);
            DistroCodec.writeKey(out, u.service());
            DistroCodec.writeInstance(out, u.instance());
        } else if (w instanceof Patch p) {
            out.writeByte(4);
            DistroCodec.writeKey(out, p.service());
            DistroCodec.writeAddress(out, p.address());
            DistroCodec.writePatch(out, p.patch());
        } else if (w instanceof Beat b) {
            out.writeByte(5);
            DistroCodec.writeKey(out, b.service());
            DistroCodec.writeAddress(out, b.address());
            DistroCodec.writeBeat(out, b.beat());
        }
    }

    static EphemeralWrite read(FieldInput in) throws IOException {
        byte op = in.readByte();
        return switch (op) {
            case 1 ->
                new Register(DistroCodec.readKey(in), DistroCodec.readInstance(in), in.readOptionalString("holder"));
            case 2 ->
                new Deregister(DistroCodec.readKey(in), DistroCodec.readAddress(in), in.readOptionalString("ifHeldBy"));
            case 3 -> new Update(DistroCodec.readKey(in), DistroCodec.readInstance(in));
            case 4 -> new Patch(DistroCodec.readKey(in), DistroCodec.readAddress(in), DistroCodec.readPatch(in));
            case 5 -> new Beat(DistroCodec.readKey(in), DistroCodec.readAddress(in), DistroCodec.readBeat(in));
            default -> throw new IOException("unknown ephemeral write " + op);
        };
    }
}
