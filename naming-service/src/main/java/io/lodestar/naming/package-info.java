/**
 * The registry domain: namespaces, services, clusters and instances, behind {@link
 * io.lodestar.naming.service.NamingService}.
 *
 * <p>Packages: {@code model} (keys, instances, specs, input rules), {@code ephemeral} (in-memory
 * instances, their mutations, heartbeat expiry), {@code persistent} (instances and service
 * definitions in the replicated store, and the change feed that reports them), {@code query}
 * (selecting a list answer, checksums), {@code notify} (the change-notification thread), {@code
 * service} (the registry itself, composing the others). Plain Java:
 * HTTP and Nacos's JSON live in console-api.
 */
package io.lodestar.naming;
