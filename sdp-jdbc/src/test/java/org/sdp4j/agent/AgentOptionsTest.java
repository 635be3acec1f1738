package org.sdp4j.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class AgentOptionsTest {

    @Test
    void emptyMeansDefaults() {
        AgentOptions o = AgentOptions.parse(null);
        assertNull(o.conf());
        assertNull(o.log());
        assertFalse(o.tcpOnError());
        assertEquals(o, AgentOptions.parse(""));
    }

    @Test
    void allOptions() {
        AgentOptions o = AgentOptions.parse("conf=/etc/x.conf,log=7,onerror=tcp,program=db2app");
        assertEquals("/etc/x.conf", o.conf());
        assertEquals(7, o.log().minLevel());
        assertTrue(o.tcpOnError());
        assertEquals("db2app", o.program());
    }

    @Test
    void nettyNativeOrNio() {
        assertEquals(false, AgentOptions.parse(null).nettyNio());
        assertEquals(true, AgentOptions.parse("netty=nio").nettyNio());
        assertEquals(false, AgentOptions.parse("netty=native,log=7").nettyNio());
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> AgentOptions.parse("netty=epoll"));
        assertEquals("sdp4j agent option 'netty=epoll': expected native or nio", e.getMessage());
    }

    @Test
    void confPathMayContainCommas() {
        assertEquals("/tmp/a,b.conf", AgentOptions.parse("conf=/tmp/a,b.conf,log=5").conf());
    }

    @Test
    void badOptionsNameTheOption() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse("colour=red"))
                .getMessage().contains("'colour'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse("onerror=maybe"))
                .getMessage().contains("onerror=maybe"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse("conf="))
                .getMessage().contains("conf"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse("verbose"))
                .getMessage().contains("'verbose'"));
    }
}
