package io.lodestar.kv.raftport;

import com.alipay.sofa.jraft.rpc.RpcClient;
import com.alipay.sofa.jraft.rpc.impl.BoltRaftRpcFactory;
import com.alipay.sofa.jraft.util.SPI;

/**
 * JRaft's bolt RPC factory, except that its clients complete the Raft port's handshake. Found by
 * JRaft's service loader, which prefers it to the stock factory by its higher priority.
 */
@SPI(priority = 1)
public final class AuthenticatingRaftRpcFactory extends BoltRaftRpcFactory {
    @Override
    public RpcClient createRpcClient(ConfigHelper<RpcClient> helper) {
        RpcClient client = new AuthenticatingRpcClient();
        if (helper != null) {
            helper.config(client);
        }
        return client;
    }
}
