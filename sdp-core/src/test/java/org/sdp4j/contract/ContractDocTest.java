package org.sdp4j.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

/** Every limitation key in code has its row in docs/transport-contract.md, and every row a key in code. */
class ContractDocTest {
    @Test
    void everyKeyHasARowAndEveryRowAKey() {
        Map<String, String> rows = ContractDoc.rows();
        Set<String> keys = Arrays.stream(Limitation.values()).map(Limitation::key)
                .collect(Collectors.toCollection(TreeSet::new));
        for (String k : keys) {
            assertTrue(rows.containsKey(k), () -> "limitation '" + k + "' has no row in " + ContractDoc.DOC);
            assertTrue(!rows.get(k).isBlank(), () -> "the row of '" + k + "' names no transport");
        }
        assertEquals(keys, new TreeSet<>(rows.keySet()), "rows in " + ContractDoc.DOC + " without a Limitation key");
    }
}
