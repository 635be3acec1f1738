#!/usr/bin/env python3
"""Checks one step's capture of the two-host wire (qemu filter-dump: libpcap, Ethernet), python3 stdlib only.

  pcapcheck.py FILE --a 10.9.9.1 --b 10.9.9.2 --rdma PORT   RoCEv2 (UDP 4791) frames both ways between a and b,
                                                            and no TCP payload to or from PORT
  pcapcheck.py FILE --a ... --b ... --tcp PORT              TCP payload to PORT (a->b) and from it (b->a)
  pcapcheck.py FILE --a ... --b ... --roce --tcp PORT       both: RoCEv2 both ways and TCP payload on PORT (a step
                                                            that runs the same client over rsockets and over TCP)
  pcapcheck.py FILE --a ... --b ... --upgrade PORT          RoCEv2 both ways; TCP payload only on PORT and at most
                                                            UPGRADE_MAX (256) bytes each way per TCP connection
                                                            (UCX across hosts: the TCP connection carries only the
                                                            upgrade handshake and the end-of-stream marker)
  pcapcheck.py FILE --a ... --b ... --smc PORT              RoCEv2 both ways; TCP payload only on PORT and at most
                                                            SMC_CLC_MAX (1024) bytes each way per TCP connection
                                                            (SMC-R: the TCP connection carries only the CLC
                                                            handshake, proposal/accept/confirm, a few hundred bytes)

PORT may be given more than once. Prints one line of counts (the evidence) and, on failure, why; exit 0 when the
expectation holds, 1 when it does not, 2 when the file is not a capture this tool reads. The file is untrusted
input: every length is checked before it is used.
"""
import argparse
import ipaddress
import struct
import sys

ROCEV2 = 4791
UPGRADE_MAX = 256
SMC_CLC_MAX = 1024


def frames(path):
    with open(path, "rb") as f:
        head = f.read(24)
        if len(head) < 24:
            raise ValueError(f"{path}: {len(head)} bytes, shorter than a pcap header")
        magic = head[:4]
        if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
            end = "<"
        elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
            end = ">"
        else:
            raise ValueError(f"{path}: not a libpcap file (magic {magic.hex()})")
        linktype = struct.unpack(end + "I", head[20:24])[0]
        if linktype != 1:
            raise ValueError(f"{path}: link type {linktype}, not Ethernet (1)")
        n = 0
        while True:
            rec = f.read(16)
            if not rec:
                return
            if len(rec) < 16:
                raise ValueError(f"{path}: record {n} header truncated")
            incl, orig = struct.unpack(end + "II", rec[8:16])
            if incl > 262144:
                raise ValueError(f"{path}: record {n} claims {incl} bytes")
            data = f.read(incl)
            if len(data) < incl:
                raise ValueError(f"{path}: record {n} truncated")
            n += 1
            yield data


def ipv4(frame):
    """(src, dst, proto, l4 bytes) of an IPv4 frame (one 802.1Q tag allowed), else None."""
    if len(frame) < 14:
        return None
    off, etype = 14, struct.unpack("!H", frame[12:14])[0]
    if etype == 0x8100 and len(frame) >= 18:
        off, etype = 18, struct.unpack("!H", frame[16:18])[0]
    if etype != 0x0800 or len(frame) < off + 20:
        return None
    ihl = (frame[off] & 0x0F) * 4
    total = struct.unpack("!H", frame[off + 2:off + 4])[0]
    if ihl < 20 or total < ihl or len(frame) < off + ihl:
        return None
    src = str(ipaddress.IPv4Address(frame[off + 12:off + 16]))
    dst = str(ipaddress.IPv4Address(frame[off + 16:off + 20]))
    return src, dst, frame[off + 9], frame[off + ihl:off + min(total, len(frame) - off)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--a", required=True)
    ap.add_argument("--b", required=True)
    ap.add_argument("--rdma", type=int, action="append", default=[], metavar="PORT")
    ap.add_argument("--tcp", type=int, action="append", default=[], metavar="PORT")
    ap.add_argument("--upgrade", type=int, action="append", default=[], metavar="PORT")
    ap.add_argument("--smc", type=int, action="append", default=[], metavar="PORT")
    ap.add_argument("--roce", action="store_true", help="RoCEv2 frames both ways, whatever else")
    ap.add_argument("--min", type=int, default=8, help="least RoCEv2 frames each way (default 8)")
    o = ap.parse_args()
    roce = {"ab": 0, "ba": 0}
    roce_bytes = {"ab": 0, "ba": 0}
    tcp_to = {}    # port -> payload bytes a->b to that port
    tcp_from = {}  # port -> payload bytes b->a from that port
    conns = {}     # (a's port, b's port) -> [payload a->b, payload b->a]
    other = 0
    total = 0
    try:
        for fr in frames(o.file):
            total += 1
            p = ipv4(fr)
            if p is None:
                other += 1
                continue
            src, dst, proto, l4 = p
            way = "ab" if (src, dst) == (o.a, o.b) else "ba" if (src, dst) == (o.b, o.a) else None
            if way is None:
                other += 1
                continue
            if proto == 17 and len(l4) >= 8 and struct.unpack("!H", l4[2:4])[0] == ROCEV2:
                roce[way] += 1
                roce_bytes[way] += len(l4) - 8
            elif proto == 6 and len(l4) >= 20:
                sport, dport = struct.unpack("!HH", l4[0:4])
                doff = (l4[12] >> 4) * 4
                payload = max(0, len(l4) - doff)
                if payload:
                    if way == "ab":
                        tcp_to[dport] = tcp_to.get(dport, 0) + payload
                        conns.setdefault((sport, dport), [0, 0])[0] += payload
                    else:
                        tcp_from[sport] = tcp_from.get(sport, 0) + payload
                        conns.setdefault((dport, sport), [0, 0])[1] += payload
            else:
                other += 1
    except (OSError, ValueError) as e:
        print(f"pcapcheck: {e}")
        return 2
    tcp = " ".join(f"tcp:{p} a->b {tcp_to.get(p, 0)} B, b->a {tcp_from.get(p, 0)} B"
                   for p in o.rdma + o.tcp + o.upgrade + o.smc)
    if o.upgrade or o.smc:
        tcp += " connections " + (", ".join(f"{ap}->{bp} {n[0]}/{n[1]} B" for (ap, bp), n in sorted(conns.items()))
                                  or "none with payload")
    print(f"pcapcheck {o.file}: {total} frames; RoCEv2 a->b {roce['ab']} ({roce_bytes['ab']} B), "
          f"b->a {roce['ba']} ({roce_bytes['ba']} B); {tcp}; other {other}")
    bad = []
    if o.upgrade or o.smc:
        for (ap, bp), n in sorted(conns.items()):
            if bp in o.tcp:
                continue  # a TCP port of the same step (a benchmark's tcp peer)
            if bp not in o.upgrade + o.smc:
                bad.append(f"TCP payload on port {bp} ({ap}->{bp}: {n[0]}/{n[1]} B), not an upgrade or SMC port")
            elif bp in o.upgrade and (n[0] > UPGRADE_MAX or n[1] > UPGRADE_MAX):
                bad.append(f"TCP connection {ap}->{bp} carried {n[0]}/{n[1]} B (a->b/b->a), more than the "
                           f"upgrade handshake and end-of-stream marker ({UPGRADE_MAX} B each way)")
            elif bp in o.smc and (n[0] > SMC_CLC_MAX or n[1] > SMC_CLC_MAX):
                bad.append(f"TCP connection {ap}->{bp} carried {n[0]}/{n[1]} B (a->b/b->a), more than SMC's CLC "
                           f"handshake ({SMC_CLC_MAX} B each way): the data went over TCP, not SMC-R")
    if o.rdma or o.roce or o.upgrade or o.smc:
        for w in ("ab", "ba"):
            if roce[w] < o.min:
                bad.append(f"only {roce[w]} RoCEv2 frames {w[0]}->{w[1]} (want >= {o.min})")
        for p in o.rdma:
            if tcp_to.get(p, 0) or tcp_from.get(p, 0):
                bad.append(f"TCP payload on port {p} on an RDMA step")
    for p in o.tcp:
        if not tcp_to.get(p, 0) or not tcp_from.get(p, 0):
            bad.append(f"no TCP payload both ways on port {p}")
    for b in bad:
        print("pcapcheck: FAIL: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
