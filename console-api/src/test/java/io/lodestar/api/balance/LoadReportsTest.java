package io.lodestar.api.balance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.lodestar.api.json.Json;
import io.lodestar.kv.cluster.ClusterView;
import io.lodestar.kv.cluster.MemberState;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a member's load report is read as, and which members clients can be sent to. */
class LoadReportsTest {
    private static final ClusterView.Member B =
            new ClusterView.Member("10.0.0.2:7848", "10.0.0.2:8848", MemberState.FOLLOWER);

    @Test
    void aReportReadsBackAsTheMembersLoad() throws Exception {
        MemberLoad load = LoadReports.decode(B, LoadReports.encode(new LoadReports.Own(42, true, true)));
        assertEquals(new MemberLoad("10.0.0.2:7848", "10.0.0.2:8848", 42, true), load);
        assertNull(
                LoadReports.decode(B, LoadReports.encode(new LoadReports.Own(42, true, false))),
                "a member whose gRPC port is not HTTP + 1000 is left out");
    }

    @Test
    void aMalformedReportIsRefused() throws Exception {
        for (String bad : new String[] {
            "{}",
            "{\"connections\":-1,\"ready\":true,\"redirectable\":true}",
            "{\"connections\":\"many\",\"ready\":true,\"redirectable\":true}",
            "{\"connections\":1e20,\"ready\":true,\"redirectable\":true}",
        }) {
            assertThrows(IllegalArgumentException.class, () -> LoadReports.decode(B, Json.MAPPER.readTree(bad)), bad);
        }
        MemberLoad notSaid = LoadReports.decode(
                B, Json.MAPPER.readTree("{\"connections\":3,\"ready\":\"yes\",\"redirectable\":true}"));
        assertEquals(false, notSaid.ready(), "ready only when it says true");
    }

    @Test
    void membersSharingAHostPauseTheBalance() {
        assertNull(ConnectionBalancer.sharedHost(
                List.of(new MemberLoad("a", "10.0.0.1:8848", 1, true), new MemberLoad("b", "10.0.0.2:8848", 1, true))));
        assertEquals(
                "127.0.0.1",
                ConnectionBalancer.sharedHost(List.of(
                        new MemberLoad("a", "127.0.0.1:8848", 1, true),
                        new MemberLoad("b", "127.0.0.1:18848", 1, true))));
    }
}
