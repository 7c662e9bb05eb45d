/**
 * The Raft port's connection handshake: every connection proves the cluster secret before any
 * message on it is dispatched, and the server proves it back before the client sends anything
 * else. JRaft's own RPCs (replication, votes, snapshots, its CLI) and the node-to-node channel
 * share the port, so all of them sit behind it.
 *
 * <p>The server side is {@link io.lodestar.kv.raftport.AuthenticatedRpcServer}; the client side is
 * {@link io.lodestar.kv.raftport.AuthenticatingRpcClient}, which JRaft obtains through {@link
 * io.lodestar.kv.raftport.AuthenticatingRaftRpcFactory} (its RPC factory SPI) and which finds its
 * node's {@link io.lodestar.kv.raftport.PeerCredentials} in the options it is initialised with.
 */
package io.lodestar.kv.raftport;
