package io.lodestar.config.service;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.config.BetaConfig;
import io.lodestar.config.Config;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.PublishRequest;
import java.io.UncheckedIOException;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Configs and betas stored by earlier builds read the same and re-encode to the same bytes. */
class StoredRecordCodecTest {
    private static final ConfigKey KEY = new ConfigKey("ns", "G", "d");

    /** ConfigCodec's output before FieldOutput, for {@link #config()}. */
    private static final String CONFIG_HEX =
            "0100000011c3bce282acf09f988020636f6e74656e7400026d3501000479616d6c0100036170700001000574312c743201000831302e302e302e310000000000000000010000000000000002";

    /** BetaCodec's output before FieldOutput, for {@link #beta()}. */
    private static final String BETA_HEX =
            "01000000076265746120c3bc00026d350002000831302e302e302e31000831302e302e302e3200010003626f6200000000000000030000000000000004";

    private static PublishRequest config() {
        return new PublishRequest(KEY, "ü€😀 content", "yaml", "app", null, "t1,t2", "10.0.0.1", null);
    }

    private static BetaConfig beta() {
        return new BetaConfig(KEY, "beta ü", "m5", List.of("10.0.0.1", "10.0.0.2"), null, "bob", 3L, 4L, 0, 0);
    }

    @Test
    void configStoredByEarlierBuildsDecodesAndReEncodesToTheSameBytes() {
        byte[] old = HexFormat.of().parseHex(CONFIG_HEX);
        Config c = ConfigCodec.decode(KEY, old, 7, 8);
        PublishRequest r = config();
        assertEquals(
                new Config(
                        KEY,
                        r.content(),
                        "m5",
                        r.type(),
                        r.appName(),
                        r.desc(),
                        r.tags(),
                        r.srcIp(),
                        r.srcUser(),
                        1L,
                        2L,
                        7,
                        8),
                c);
        PublishRequest again =
                new PublishRequest(KEY, c.content(), c.type(), c.appName(), c.desc(), c.tags(), c.srcIp(), c.srcUser());
        assertArrayEquals(old, ConfigCodec.encode(again, c.md5(), c.createTime(), c.modifyTime()));
    }

    @Test
    void betaStoredByEarlierBuildsDecodesAndReEncodesToTheSameBytes() {
        byte[] old = HexFormat.of().parseHex(BETA_HEX);
        BetaConfig b = BetaCodec.decode(KEY, old, 0, 0);
        assertEquals(beta(), b);
        assertArrayEquals(
                old,
                BetaCodec.encode(
                        b.content(), b.md5(), b.betaIps(), b.srcIp(), b.srcUser(), b.createTime(), b.modifyTime()));
    }

    @Test
    void aCorruptContentLengthIsRefusedNamingTheField() {
        byte[] stored = HexFormat.of().parseHex(CONFIG_HEX);
        stored[1] = 0x7f;
        stored[2] = (byte) 0xff;
        stored[3] = (byte) 0xff;
        stored[4] = (byte) 0xff;
        UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> ConfigCodec.decode(KEY, stored, 1, 1));
        assertTrue(e.getCause().getMessage().contains("content"), e.getCause().getMessage());
    }
}
