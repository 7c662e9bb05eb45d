package io.lodestar.api.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.lodestar.api.request.Names;
import io.lodestar.api.request.Resource;
import io.lodestar.error.InvalidRequestException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** How a permission's pattern matches what a request names. */
class ResourcesTest {
    @ParameterizedTest(name = "{0} on {1}:{2}:{3}/{4} -> {5}")
    @CsvSource(
            delimiter = '|',
            value = {
                "team-a              | config | team-a | G    | db     | true",
                "team-a              | naming | team-a | G    | orders | true",
                "team-a              | config | team-b | G    | db     | false",
                "team-*              | config | team-b | G    | db     | true",
                "public              | config | ''     | G    | db     | true",
                "public              | config | PUBLIC | G    | db     | true",
                "team-a:G:*          | config | team-a | G    | db     | true",
                "team-a:G:*          | config | team-a | G2   | db     | false",
                "team-a:G:config/*   | naming | team-a | G    | db     | false",
                "team-a:*:config/a-* | config | team-a | X    | a-1    | true",
                "team-a:*:config/a-* | config | team-a | X    | b-1    | false",
                "team-a:G*:*         | config | team-a | ''   | ''     | false", // a search over every group
                "team-a:*:*          | config | team-a | ''   | ''     | true",
                "*                   | config | team-a | G    | db     | true",
                "cluster             | config | team-a | G    | db     | false",
                "transfer:team-a     | config | team-a | G    | db     | false",
                "team-a:G:config/a:b | config | team-a | G    | a:b    | true", // a dataId may hold a colon
            })
    void aPatternMatchesWithinEachPart(
            String pattern, String kind, String ns, String group, String name, boolean expected) {
        Resources.checkPattern(pattern);
        Resource r = kind.equals("config")
                ? Resource.configs(ns, group, name)
                : new Resource(
                        "naming", Names.canonical(ns), group.isEmpty() ? "*" : group, name.isEmpty() ? "*" : name);
        assertEquals(expected, Resources.matches(pattern, r));
    }

    @ParameterizedTest
    @CsvSource({"cluster, true", "*, false", "team-a, false"})
    void clusterAdministrationIsMatchedByItsOwnPatternOnly(String pattern, boolean expected) {
        assertEquals(expected, Resources.matches(pattern, Resource.cluster()));
    }

    @ParameterizedTest
    @CsvSource({"transfer:team-a, true", "transfer:*, true", "team-a, false", "*, false", "transfer:team-b, false"})
    void importAndExportAreMatchedByTransferPatternsOnly(String pattern, boolean expected) {
        assertEquals(expected, Resources.matches(pattern, Resource.transfer("team-a")));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {"a:b", "a:b:secrets/x", "a:b:config"})
    void aPatternOfNoKnownShapeIsRefused(String pattern) {
        assertThrows(InvalidRequestException.class, () -> Resources.checkPattern(pattern));
    }

    @ParameterizedTest
    @CsvSource({
        "'', '', true",
        "*, aXbYc, true",
        "a*b*c, aXbYc, true",
        "a*b*d, aXbYc, false",
        "*x, aXbYc, false",
        "**, '', true",
        "a, ab, false",
        "ab, a, false"
    })
    void aGlobIsAnchoredAtBothEnds(String pattern, String text, boolean expected) {
        assertEquals(expected, Resources.glob(pattern, text));
    }
}
