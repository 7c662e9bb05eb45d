package io.lodestar.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.lodestar.error.InvalidRequestException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PageRequestTest {
    private static final TreeSet<String> SEVEN = new TreeSet<>(List.of("a", "b", "c", "d", "e", "f", "g"));

    @Test
    void pagesCoverEveryItemOnceInOrder() {
        for (int size = 1; size <= 8; size++) {
            List<String> seen = new ArrayList<>();
            for (int no = 1; no <= 8; no++) {
                List<String> page = new PageRequest(no, size).of(SEVEN);
                assertEquals(Math.max(0, Math.min(size, 7 - (no - 1) * size)), page.size(), no + "/" + size);
                seen.addAll(page);
            }
            assertEquals(List.copyOf(SEVEN), seen, "page size " + size);
        }
    }

    @Test
    void theLargestPageSizeAnswersEverythingSizedByWhatExists() {
        assertEquals(List.copyOf(SEVEN), new PageRequest(1, Integer.MAX_VALUE).of(SEVEN));
        assertEquals(List.of(), new PageRequest(2, Integer.MAX_VALUE).of(SEVEN));
        assertEquals(List.of(), new PageRequest(1, Integer.MAX_VALUE).of(new TreeSet<String>()));
    }

    @Test
    void theLargestPageNumberAndSizeDoNotOverflowTheOffset() {
        PageRequest last = new PageRequest(Integer.MAX_VALUE, Integer.MAX_VALUE);
        assertEquals((long) (Integer.MAX_VALUE - 1) * Integer.MAX_VALUE, last.offset());
        assertEquals(List.of(), last.of(SEVEN));
        assertEquals(List.of(), new PageRequest(Integer.MAX_VALUE, 1).of(SEVEN));
        // as an int product, (65537 - 1) * 65536 wraps to 0 and would answer the first page again
        assertEquals(List.of(), new PageRequest(65_537, 65_536).of(SEVEN));
    }

    @Test
    void aPageSizeLargerThanTheRestAnswersTheRest() {
        List<Integer> thousand = IntStream.range(0, 1000).boxed().toList();
        assertEquals(thousand.subList(999, 1000), new PageRequest(1000, 1).of(thousand));
        assertEquals(thousand.subList(600, 1000), new PageRequest(2, 600).of(thousand));
        assertEquals(thousand, new PageRequest(1, 1001).of(thousand));
    }

    @Test
    void aPageNumberOrSizeBelowOneIsRefusedNamingTheField() {
        assertEquals(
                "pageNo",
                assertThrows(InvalidRequestException.class, () -> new PageRequest(0, 10))
                        .field());
        assertEquals(
                "pageNo",
                assertThrows(InvalidRequestException.class, () -> new PageRequest(-1, 10))
                        .field());
        assertEquals(
                "pageSize",
                assertThrows(InvalidRequestException.class, () -> new PageRequest(1, 0))
                        .field());
        assertEquals(
                "pageSize",
                assertThrows(InvalidRequestException.class, () -> new PageRequest(1, Integer.MIN_VALUE))
                        .field());
    }
}
