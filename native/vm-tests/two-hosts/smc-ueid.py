#!/usr/bin/env python3
"""Sets or lists the kernel's SMC User EIDs over generic netlink, as smc-tools' `smcr ueid add|show` does
(smc-tools is not in Debian bookworm). SMC-Rv2 between two hosts needs one UEID in common; without it each
connection falls back to TCP by the protocol.

  smc-ueid.py add NAME    adds NAME (upper-cased, blank-padded to 32 characters, as smc-tools does)
  smc-ueid.py show        prints each UEID, one per line
  smc-ueid.py flush       removes every UEID

Needs the smc module (it registers the SMC_GEN_NETLINK family) and CAP_NET_ADMIN for add and flush. Exit 0 on
success, 1 with the kernel's error otherwise. python3 stdlib only."""
import os
import socket
import struct
import sys

NETLINK_GENERIC = 16
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 1, 4, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
SMC_NETLINK_DUMP_UEID, SMC_NETLINK_ADD_UEID, SMC_NETLINK_FLUSH_UEID = 9, 10, 12
SMC_NLA_EID_TABLE_ENTRY = 1
EID_LEN = 32


def attr(kind, data):
    n = 4 + len(data)
    return struct.pack("=HH", n, kind) + data + b"\0" * ((4 - n % 4) % 4)


def attrs(buf):
    out = {}
    while len(buf) >= 4:
        n, kind = struct.unpack("=HH", buf[:4])
        if n < 4 or n > len(buf):
            break
        out.setdefault(kind & 0x3fff, []).append(buf[4:n])
        buf = buf[(n + 3) & ~3:]
    return out


def request(s, family, cmd, flags, payload=b"", seq=[0]):
    seq[0] += 1
    body = struct.pack("=BBH", cmd, 1, 0) + payload
    s.send(struct.pack("=IHHII", 16 + len(body), family, flags, seq[0], 0) + body)
    replies = []
    while True:
        data = s.recv(65536)
        off = 0
        while off + 16 <= len(data):
            n, kind, _, _, _ = struct.unpack("=IHHII", data[off:off + 16])
            if n < 16 or off + n > len(data):
                raise OSError("smc-ueid: truncated netlink message")
            msg = data[off + 16:off + n]
            off += (n + 3) & ~3
            if kind == NLMSG_ERROR:
                err = struct.unpack("=i", msg[:4])[0]
                if err:
                    raise OSError(-err, os.strerror(-err))
                return replies
            if kind == NLMSG_DONE:
                return replies
            replies.append(attrs(msg[4:]))
        if not flags & NLM_F_DUMP and not flags & NLM_F_ACK:
            return replies


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("add", "show", "flush") or (sys.argv[1] == "add") != (len(sys.argv) == 3):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    s.settimeout(5)
    try:
        fam = request(s, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_REQUEST | NLM_F_ACK,
                      attr(CTRL_ATTR_FAMILY_NAME, b"SMC_GEN_NETLINK\0"))
        ids = [a[CTRL_ATTR_FAMILY_ID][0] for a in fam if CTRL_ATTR_FAMILY_ID in a]
        if not ids:
            raise OSError("no SMC_GEN_NETLINK family (is the smc module loaded?)")
        smc = struct.unpack("=H", ids[0][:2])[0]
        if sys.argv[1] == "add":
            name = sys.argv[2].upper()
            if not 0 < len(name) <= EID_LEN or not name[0].isalnum() or \
                    any(not (c.isalnum() or c in ".-") for c in name) or not name.isascii():
                raise OSError(f"bad UEID {sys.argv[2]!r}: 1 to {EID_LEN} of A-Z 0-9 . -, starting with a letter or digit")
            request(s, smc, SMC_NETLINK_ADD_UEID, NLM_F_REQUEST | NLM_F_ACK,
                    attr(SMC_NLA_EID_TABLE_ENTRY, name.ljust(EID_LEN).encode() + b"\0"))
        elif sys.argv[1] == "flush":
            request(s, smc, SMC_NETLINK_FLUSH_UEID, NLM_F_REQUEST | NLM_F_ACK)
        else:
            for a in request(s, smc, SMC_NETLINK_DUMP_UEID, NLM_F_REQUEST | NLM_F_DUMP):
                for e in a.get(SMC_NLA_EID_TABLE_ENTRY, []):
                    print(e.rstrip(b"\0").decode("ascii", "replace").rstrip())
    except OSError as e:
        print(f"smc-ueid {' '.join(sys.argv[1:])}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
