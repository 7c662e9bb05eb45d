package io.lodestar.naming.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ServiceKeyTest {

    @Test
    void blankNamespaceAndGroupTakeNacosDefaults() {
        ServiceKey k = ServiceKey.of("", null, "orders");
        assertEquals("public", k.namespace());
        assertEquals("DEFAULT_GROUP", k.group());
        assertEquals("orders", k.service());
        assertEquals("DEFAULT_GROUP@@orders", k.groupedName());
    }

    @Test
    void groupedServiceNameCarriesItsGroup() {
        ServiceKey k = ServiceKey.of("dev", null, "PAY@@orders");
        assertEquals(new ServiceKey("dev", "PAY", "orders"), k);
        assertEquals(k, ServiceKey.of("dev", "PAY", "PAY@@orders"), "a separate group that agrees is fine");
        assertEquals(k, ServiceKey.parse("dev", "PAY@@orders"));
    }

    @Test
    void separateGroupAppliesToABareName() {
        assertEquals(new ServiceKey("public", "PAY", "orders"), ServiceKey.of(null, "PAY", "orders"));
    }

    @Test
    void groupedNameRoundTrips() {
        ServiceKey k = new ServiceKey("dev", "G", "a@b");
        assertEquals(k, ServiceKey.parse("dev", k.groupedName()));
    }
}
