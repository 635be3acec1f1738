#!/usr/bin/env python3
"""One capture of the two-host wire per step, driven by files the guests write (run by native/vm/two-hosts.sh).

  capture.py QMP_SOCKET NETDEV CTL_DIR PCAP_DIR

Guest a writes CTL_DIR/STEP.cap-start before a step and CTL_DIR/STEP.cap-stop after it. For each, this adds
(object-add) or removes (object-del) a qemu filter-dump on NETDEV through QMP, writing PCAP_DIR/STEP.pcap, then
answers with CTL_DIR/STEP.cap-on or STEP.cap-off ("ok" or the error). A filter on one guest's netdev sees every frame
of the wire, both directions. Ends when CTL_DIR/end appears or qemu closes QMP. Step names are checked (letters,
digits, '-', '_' only): the guests write that directory.
"""
import json
import os
import re
import socket
import sys
import time

NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,40}$")


class Qmp:
    def __init__(self, path, wait_s=300):
        end = time.time() + wait_s
        while True:
            try:
                self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.s.connect(path)
                break
            except OSError:
                self.s.close()
                if time.time() > end:
                    raise
                time.sleep(0.2)
        self.s.settimeout(60)
        self.f = self.s.makefile("rwb")
        self.reply()  # greeting
        self.cmd("qmp_capabilities")

    def reply(self):
        while True:
            line = self.f.readline()
            if not line:
                raise EOFError("qemu closed QMP")
            msg = json.loads(line)
            if "event" not in msg:
                return msg

    def cmd(self, name, **args):
        self.f.write(json.dumps({"execute": name, "arguments": args}).encode() + b"\n")
        self.f.flush()
        r = self.reply()
        if "error" in r:
            raise RuntimeError(f"{name}: {r['error'].get('desc', r['error'])}")
        return r.get("return")


def answer(ctl, name, what):
    tmp = os.path.join(ctl, f".{name}.tmp")
    with open(tmp, "w") as f:
        f.write(what + "\n")
    os.rename(tmp, os.path.join(ctl, name))


def main():
    qmp_path, netdev, ctl, pcaps = sys.argv[1:5]
    q = Qmp(qmp_path)
    done = set()
    print(f"capture: QMP connected ({qmp_path}), filter-dump on netdev {netdev}", flush=True)
    while not os.path.exists(os.path.join(ctl, "end")):
        for entry in sorted(os.listdir(ctl)):
            step, dot, kind = entry.partition(".")
            if entry in done or not dot or kind not in ("cap-start", "cap-stop"):
                continue
            done.add(entry)
            if not NAME.match(step):
                print(f"capture: ignoring {entry!r}: not a step name", flush=True)
                continue
            fid = "cap-" + step
            try:
                if kind == "cap-start":
                    q.cmd("object-add", **{"qom-type": "filter-dump", "id": fid, "netdev": netdev,
                                           "file": os.path.join(pcaps, step + ".pcap")})
                    answer(ctl, step + ".cap-on", "ok")
                else:
                    q.cmd("object-del", id=fid)
                    answer(ctl, step + ".cap-off", "ok")
                print(f"capture: {step}: {kind}", flush=True)
            except (RuntimeError, OSError) as e:
                print(f"capture: {step}: {kind} failed: {e}", flush=True)
                answer(ctl, step + (".cap-on" if kind == "cap-start" else ".cap-off"), f"error {e}")
        time.sleep(0.1)


if __name__ == "__main__":
    try:
        main()
    except EOFError as e:
        print(f"capture: {e}", flush=True)
