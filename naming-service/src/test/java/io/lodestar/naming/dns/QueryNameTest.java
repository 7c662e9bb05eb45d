package io.lodestar.naming.dns;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.lodestar.naming.dns.QueryName.Kind;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.Name;

class QueryNameTest {
    private static final Name ZONE = Name.fromConstantString("lodestar.");

    private static QueryName parse(String name) {
        return QueryName.parse(Name.fromConstantString(name), ZONE);
    }

    @Test
    void aServiceNameIsServiceGroupNamespace() {
        QueryName q = parse("order_service.DEFAULT_GROUP.public.lodestar.");
        assertEquals(Kind.SERVICE, q.kind());
        assertEquals("order_service", q.service());
        assertEquals("DEFAULT_GROUP", q.group());
        assertEquals("public", q.namespace());
        assertEquals(Name.fromConstantString("order_service.DEFAULT_GROUP.public.lodestar."), q.serviceName());
    }

    @Test
    void anInstanceNameHasOneMoreLabel() {
        QueryName q = parse("127-0-0-1-8080.orders.g.ns.lodestar.");
        assertEquals(Kind.INSTANCE, q.kind());
        assertEquals("127-0-0-1-8080", q.instance());
        assertEquals("orders", q.service());
        assertEquals(Name.fromConstantString("orders.g.ns.lodestar."), q.serviceName());
    }

    @Test
    void theRfc2782FormNamesTheService() {
        QueryName q = parse("_http._tcp.orders.g.ns.lodestar.");
        assertEquals(Kind.SERVICE, q.kind());
        assertEquals("orders", q.service());
        assertEquals(Name.fromConstantString("orders.g.ns.lodestar."), q.serviceName());
        assertEquals(Kind.NONE, parse("a.b.orders.g.ns.lodestar.").kind());
    }

    @Test
    void otherNames() {
        assertEquals(Kind.APEX, parse("LODESTAR.").kind());
        assertEquals(Kind.EMPTY_NON_TERMINAL, parse("public.lodestar.").kind());
        assertEquals(
                Kind.EMPTY_NON_TERMINAL, parse("DEFAULT_GROUP.public.lodestar.").kind());
        assertEquals(Kind.NONE, parse("a.b.c.d.e.f.lodestar.").kind());
        assertEquals(Kind.OUTSIDE, parse("example.com.").kind());
        assertEquals(Kind.OUTSIDE, parse("lodestar.example.com.").kind());
    }

    @Test
    void anEscapedDotStaysInsideItsLabel() {
        QueryName q = parse("a\\.b.g.ns.lodestar.");
        assertEquals(Kind.SERVICE, q.kind());
        assertEquals("a.b", q.service());
    }

    @Test
    void instanceLabelsReplaceSeparatorsWithDashes() {
        assertEquals("127-0-0-7-8080", QueryName.instanceLabel("127.0.0.7", 8080));
        assertEquals("2001-db8--1-8080", QueryName.instanceLabel("2001:db8::1", 8080));
    }
}
