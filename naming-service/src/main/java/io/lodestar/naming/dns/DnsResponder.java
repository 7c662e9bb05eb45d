package io.lodestar.naming.dns;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xbill.DNS.AAAARecord;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.Address;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Header;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Opcode;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.SRVRecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.TextParseException;
import org.xbill.DNS.Type;

/**
 * Answers one parsed DNS query from a {@link DnsRecordSource}, authoritatively for the zone.
 *
 * <p>What it answers (see the package doc for the name scheme):
 * <ul>
 *   <li>a service name: A/AAAA with the addresses of its serving instances (healthy, enabled,
 *       weight above 0; {@link DnsTarget#serves}), SRV with one record per serving instance
 *       (priority 0, weight by {@link SrvWeights}, port, target named by {@link
 *       QueryName#instanceLabel}, its A/AAAA in the additional section), ANY with A and AAAA
 *       (a subset, as RFC 8482 allows); any other type: no data; under the RFC 2782 form
 *       ({@code _x._proto.<service>...}) SRV only;
 *   <li>an SRV target name: A/AAAA of that instance while it serves, else NXDOMAIN;
 *   <li>a service the source does not know, an instance name not serving, or a name outside the
 *       scheme: NXDOMAIN; a known service with no serving instance, or a type it has no records
 *       of: NOERROR with an empty answer (both with the zone's SOA, whose minimum is the TTL, so
 *       resolvers cache the absence only that long);
 *   <li>the zone's apex: its SOA; a namespace or group name (one or two labels): NOERROR, no data;
 *   <li>a name outside the zone, a class other than IN, or a zone transfer: REFUSED; an opcode
 *       other than QUERY: NOTIMP; not exactly one question: FORMERR; EDNS version above 0: BADVERS;
 *       a source that throws: SERVFAIL.
 * </ul>
 * Every answer echoes the question as sent (case included), is marked authoritative, copies RD,
 * and carries an OPT record offering {@code maxUdpPayload} when the query had one.
 *
 * <p>Thread-safe and stateless: called on every I/O thread of the server at once.
 */
final class DnsResponder {
    private static final Logger LOG = LoggerFactory.getLogger(DnsResponder.class);
    private static final long WARN_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final DnsRecordSource source;
    private final Name zone;
    private final long ttl;
    private final int maxUdpPayload;
    private final SOARecord soa;
    /** When a failure was last logged at WARN: a failing source fails every query, so say it now and then. */
    private final AtomicLong lastWarnNanos = new AtomicLong(System.nanoTime() - WARN_EVERY_NANOS);

    DnsResponder(DnsRecordSource source, DnsServerSettings settings) {
        this.source = source;
        try {
            this.zone = Name.fromString(settings.zone(), Name.root);
            this.soa = new SOARecord(
                    zone,
                    DClass.IN,
                    settings.ttl().toSeconds(),
                    Name.fromString("ns", zone),
                    Name.fromString("hostmaster", zone),
                    1,
                    3600,
                    600,
                    86400,
                    settings.ttl().toSeconds());
        } catch (TextParseException e) {
            throw new IllegalArgumentException("not a DNS name: " + settings.zone(), e);
        }
        this.ttl = settings.ttl().toSeconds();
        this.maxUdpPayload = settings.maxUdpPayload();
    }

    /** The response to {@code query} (never null). */
    Message answer(Message query) {
        Header qh = query.getHeader();
        Message response = new Message(qh.getID());
        Header h = response.getHeader();
        h.setFlag(Flags.QR);
        h.setOpcode(qh.getOpcode());
        if (qh.getFlag(Flags.RD)) {
            h.setFlag(Flags.RD);
        }
        List<Record> questions = query.getSection(Section.QUESTION);
        if (questions.size() == 1) {
            response.addRecord(questions.get(0), Section.QUESTION);
        }
        OPTRecord opt = query.getOPT();
        if (opt != null) {
            if (opt.getVersion() > 0) {
                // BADVERS is an extended rcode: its upper bits travel in the OPT record
                response.addRecord(new OPTRecord(maxUdpPayload, Rcode.BADVERS >>> 4, 0, 0), Section.ADDITIONAL);
                return response;
            }
            response.addRecord(new OPTRecord(maxUdpPayload, 0, 0, 0), Section.ADDITIONAL);
        }
        if (qh.getOpcode() != Opcode.QUERY) {
            return rcode(response, Rcode.NOTIMP);
        }
        if (questions.size() != 1) {
            return rcode(response, Rcode.FORMERR);
        }
        Record question = questions.get(0);
        int type = question.getType();
        QueryName name = QueryName.parse(question.getName(), zone);
        if (name.kind() == QueryName.Kind.OUTSIDE
                || (question.getDClass() != DClass.IN && question.getDClass() != DClass.ANY)
                || type == Type.AXFR
                || type == Type.IXFR) {
            return rcode(response, Rcode.REFUSED);
        }
        h.setFlag(Flags.AA);
        try {
            return answerInZone(response, question, name);
        } catch (RuntimeException e) {
            logFailure(question, e);
            // drop whatever was added before the failure; keep the question and the OPT record
            OPTRecord ours = response.getOPT();
            response.removeAllRecords(Section.ANSWER);
            response.removeAllRecords(Section.AUTHORITY);
            response.removeAllRecords(Section.ADDITIONAL);
            if (ours != null) {
                response.addRecord(ours, Section.ADDITIONAL);
            }
            h.unsetFlag(Flags.AA);
            return rcode(response, Rcode.SERVFAIL);
        }
    }

    private Message answerInZone(Message response, Record question, QueryName name) {
        Name qname = question.getName();
        int type = question.getType();
        switch (name.kind()) {
            case APEX:
                if (type == Type.SOA || type == Type.ANY) {
                    response.addRecord(soa.withName(qname), Section.ANSWER);
                    return response;
                }
                return noData(response);
            case EMPTY_NON_TERMINAL:
                return noData(response);
            case SERVICE:
            case INSTANCE:
                break;
            default:
                return nxDomain(response);
        }
        Optional<List<DnsTarget>> instances = source.instances(name.namespace(), name.group(), name.service());
        if (instances.isEmpty()) {
            return nxDomain(response);
        }
        List<DnsTarget> serving =
                instances.get().stream().filter(DnsTarget::serves).toList();
        if (name.kind() == QueryName.Kind.INSTANCE) {
            Optional<DnsTarget> instance = serving.stream()
                    .filter(t -> QueryName.instanceLabel(t.ip(), t.port()).equalsIgnoreCase(name.instance()))
                    .findFirst();
            if (instance.isEmpty()) {
                return nxDomain(response);
            }
            serving = instance.stream().toList();
        }
        // the RFC 2782 form (_x._proto.<service>...) names SRV records only
        boolean srvForm = name.kind() == QueryName.Kind.SERVICE && !qname.equals(name.serviceName());
        if (!srvForm && (type == Type.A || type == Type.AAAA || type == Type.ANY)) {
            addAddresses(response, qname, serving, type);
        } else if (type == Type.SRV && name.kind() == QueryName.Kind.SERVICE) {
            addServices(response, qname, name.serviceName(), serving);
        }
        return response.getSection(Section.ANSWER).isEmpty() ? noData(response) : response;
    }

    /** A/AAAA records of the instances' IP literals (each address once) of the asked type(s). */
    private void addAddresses(Message response, Name owner, List<DnsTarget> instances, int type) {
        Set<InetAddress> seen = new LinkedHashSet<>();
        for (DnsTarget t : instances) {
            InetAddress address = ipLiteral(t.ip());
            if (address != null) {
                seen.add(address);
            }
        }
        for (InetAddress address : seen) {
            boolean v4 = address instanceof Inet4Address;
            if (v4 && (type == Type.A || type == Type.ANY)) {
                response.addRecord(new ARecord(owner, DClass.IN, ttl, address), Section.ANSWER);
            } else if (!v4 && (type == Type.AAAA || type == Type.ANY)) {
                response.addRecord(new AAAARecord(owner, DClass.IN, ttl, address), Section.ANSWER);
            }
        }
    }

    /** One SRV record per instance, and the A/AAAA of each target named under the service. */
    private void addServices(Message response, Name owner, Name serviceName, List<DnsTarget> instances) {
        int[] weights = SrvWeights.of(instances.stream().map(DnsTarget::weight).toList());
        List<Record> glue = new ArrayList<>();
        for (int i = 0; i < instances.size(); i++) {
            DnsTarget t = instances.get(i);
            InetAddress address = ipLiteral(t.ip());
            Name target;
            try {
                // an instance registered by host name is its own target; the client resolves it
                target = address != null
                        ? Name.fromString(QueryName.instanceLabel(t.ip(), t.port()), serviceName)
                        : Name.fromString(t.ip(), Name.root);
            } catch (TextParseException e) {
                LOG.debug("no SRV target name for {}:{} under {}: {}", t.ip(), t.port(), serviceName, e.getMessage());
                continue; // the whole name would pass 255 bytes, or the host name is no DNS name
            }
            response.addRecord(new SRVRecord(owner, DClass.IN, ttl, 0, weights[i], t.port(), target), Section.ANSWER);
            if (address instanceof Inet4Address) {
                glue.add(new ARecord(target, DClass.IN, ttl, address));
            } else if (address != null) {
                glue.add(new AAAARecord(target, DClass.IN, ttl, address));
            }
        }
        // (Message.toWire writes the OPT record last wherever it sits in the section)
        glue.forEach(r -> response.addRecord(r, Section.ADDITIONAL));
    }

    private void logFailure(Record question, RuntimeException e) {
        long now = System.nanoTime();
        long last = lastWarnNanos.get();
        if (now - last >= WARN_EVERY_NANOS && lastWarnNanos.compareAndSet(last, now)) {
            LOG.warn("answering {} failed (SERVFAIL; further failures within 10 s are logged at DEBUG)", question, e);
        } else {
            LOG.debug("answering {} failed", question, e);
        }
    }

    /** The address an IP literal names, without any name lookup; null for a host name. */
    private static InetAddress ipLiteral(String ip) {
        try {
            return Address.getByAddress(ip);
        } catch (UnknownHostException e) {
            return null;
        }
    }

    private Message nxDomain(Message response) {
        response.addRecord(soa, Section.AUTHORITY);
        return rcode(response, Rcode.NXDOMAIN);
    }

    private Message noData(Message response) {
        response.addRecord(soa, Section.AUTHORITY);
        return response;
    }

    private static Message rcode(Message response, int rcode) {
        response.getHeader().setRcode(rcode);
        return response;
    }
}
