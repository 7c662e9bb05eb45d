package com.alipay.sofa.jraft.rpc.impl.core;

import com.alipay.sofa.jraft.error.RaftError;
import com.alipay.sofa.jraft.rpc.RaftServerService;
import com.alipay.sofa.jraft.rpc.RpcRequestClosure;
import com.alipay.sofa.jraft.rpc.RpcRequests.InstallSnapshotRequest;
import com.alipay.sofa.jraft.rpc.RpcRequests.InstallSnapshotResponse;
import com.alipay.sofa.jraft.util.RpcFactoryHelper;
import com.google.protobuf.Message;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * JRaft's InstallSnapshot processor, refusing (EBUSY, naming why) while this node's disk is nearly
 * full: a snapshot download that fills the disk would fail half-way and leave its files behind. The
 * leader retries the install later, and it goes ahead once space is freed.
 */
public final class DiskGuardedInstallSnapshotRequestProcessor extends InstallSnapshotRequestProcessor {
    private final Supplier<String> diskRefusal;

    public DiskGuardedInstallSnapshotRequestProcessor(Executor executor, Supplier<String> diskRefusal) {
        super(executor);
        this.diskRefusal = diskRefusal;
    }

    @Override
    public Message processRequest0(RaftServerService service, InstallSnapshotRequest request, RpcRequestClosure done) {
        String refusal = diskRefusal.get();
        if (refusal != null) {
            return RpcFactoryHelper.responseFactory()
                    .newResponse(InstallSnapshotResponse.getDefaultInstance(), RaftError.EBUSY, "%s", refusal);
        }
        return super.processRequest0(service, request, done);
    }
}
