/**
 * A DNS interface to the registry: A, AAAA and SRV records of the healthy, enabled instances of
 * a service, over UDP and TCP (port 8853 by default), for clients that cannot speak the Nacos
 * API.
 *
 * <p>Name scheme (the zone is {@code lodestar.} by default):
 * {@code <service>.<group>.<namespace>.lodestar.} — e.g. {@code orders.DEFAULT_GROUP.public.lodestar.}
 * — answers A/AAAA with the instances' addresses and SRV with one record per instance whose
 * target is {@code <ip-with-dashes>-<port>.<service>.<group>.<namespace>.lodestar.} (itself
 * answering A/AAAA). The RFC 2782 form {@code _<anything>._<proto>.<service>.<group>.<namespace>.lodestar.}
 * is accepted too, for clients that always build SRV names that way. Labels match ignoring ASCII
 * case.
 *
 * <p>Not every legal Nacos name is addressable: a DNS label holds at most 63 bytes and a whole
 * name 255, so longer service, group or namespace names cannot be asked for; a {@code .} in a
 * name splits it into two labels, so names with dots (and Nacos's {@code group@@service} form)
 * are not addressable by ordinary resolvers (only by tools that can send an escaped {@code \.}
 * inside a label). {@code _} and {@code -} are fine; other punctuation ({@code :}, {@code @})
 * is valid on the wire but rejected by many client libraries that accept only host-name
 * characters. Such services are still served over the HTTP API.
 */
package io.lodestar.naming.dns;
