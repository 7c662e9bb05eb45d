package io.lodestar.api.cli.naming;

import io.lodestar.api.cli.client.Call;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Which instance: its service, {@code --ip}, {@code --port}, {@code --cluster}, and whether it is ephemeral. */
final class InstanceOptions {
    @Mixin
    ServiceOptions service;

    @Option(names = "--ip", required = true, paramLabel = "IP", description = "The instance's address.")
    String ip;

    @Option(names = "--port", required = true, paramLabel = "PORT", description = "The instance's port.")
    int port;

    @Option(
            names = "--cluster",
            defaultValue = "DEFAULT",
            paramLabel = "NAME",
            description = "The instance's cluster (default: ${DEFAULT-VALUE}).")
    String cluster;

    @Option(
            names = "--ephemeral",
            description = "An ephemeral instance, which the server removes 30 s after its last heartbeat (this"
                    + " command sends none). Default: persistent, kept until deregistered.")
    boolean ephemeral;

    Call on(Call call) {
        return service.on(call)
                .param("ip", ip)
                .param("port", String.valueOf(port))
                .param("clusterName", cluster)
                .param("ephemeral", String.valueOf(ephemeral));
    }

    @Override
    public String toString() {
        return ip + ":" + port + " (" + service + ", cluster " + cluster + ")";
    }
}
