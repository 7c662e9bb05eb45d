package io.lodestar.naming.model;

/**
 * Identifies an instance inside a service: cluster, ip and port (a blank cluster is {@value
 * Instance#DEFAULT_CLUSTER}). Two registrations with the same address are the same instance.
 */
public record InstanceAddress(String cluster, String ip, int port) {

    public InstanceAddress {
        cluster = cluster == null || cluster.isBlank() ? Instance.DEFAULT_CLUSTER : cluster;
        NamingValidation.checkCluster("clusterName", cluster);
        NamingValidation.checkIp(ip);
        NamingValidation.checkPort(port);
    }

    /** {@code ip:port}, with an IPv6 address in brackets. */
    public String hostPort() {
        return (ip.indexOf(':') >= 0 ? "[" + ip + "]" : ip) + ":" + port;
    }

    @Override
    public String toString() {
        return cluster + "/" + hostPort();
    }
}
