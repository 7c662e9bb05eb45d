package io.lodestar.naming.dns;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class SrvWeightsTest {

    @Test
    void theHeaviestGetsTheMaximumAndTheOthersTheirShare() {
        assertArrayEquals(new int[] {32768, 49151, 65535}, SrvWeights.of(List.of(1.0, 1.5, 2.0)));
        assertArrayEquals(new int[] {65535, 65535}, SrvWeights.of(List.of(1.0, 1.0)));
        assertArrayEquals(new int[] {65535}, SrvWeights.of(List.of(0.01)));
    }

    @Test
    void theExtremesOfTheNacosRangeStayAtLeastOne() {
        assertArrayEquals(new int[] {1, 65535}, SrvWeights.of(List.of(0.01, 10_000.0)));
        assertArrayEquals(new int[] {7, 65535}, SrvWeights.of(List.of(1.0, 10_000.0)));
    }
}
