/**
 * The registry domain (namespaces, services, clusters, instances; Distro for ephemeral instances,
 * the kv-store for persistent ones). Built by the naming-service issue; this module only holds its
 * place in the build until then.
 */
package io.lodestar.naming;
