#!/usr/bin/env python3
"""Stops librdmacm's rsocket connection service thread in a process until stdin closes (RsocketPeerGoneTest).

  stop-cm-service.py PID FD

The thread is the one in poll(2) on its control socket and rdma_cm channels, among them FD's (an rsocket's number
is its rdma_cm channel's descriptor). It is stopped alone, with ptrace (PTRACE_SEIZE + PTRACE_INTERRUPT), and let go
(PTRACE_DETACH) when stdin closes or this process ends. Prints "STOPPED TID" or "NOT FOUND ..." and exits 1.
"""
import ctypes
import os
import struct
import sys

PTRACE_DETACH, PTRACE_SEIZE, PTRACE_INTERRUPT = 17, 0x4206, 0x4207
SYS_POLL = "7"


def link(pid, fd):
    try:
        return os.readlink(f"/proc/{pid}/fd/{fd}")
    except OSError:
        return ""


def service_thread(pid, fd):
    seen = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/syscall") as f:
                sc = f.read().split()
        except OSError:
            continue
        if len(sc) < 3 or sc[0] != SYS_POLL:
            continue
        ptr, n = int(sc[1], 16), int(sc[2], 16)
        if not 2 <= n <= 4096:
            continue
        with open(f"/proc/{pid}/mem", "rb") as m:
            m.seek(ptr)
            raw = m.read(8 * n)
        fds = [struct.unpack_from("i", raw, 8 * i)[0] for i in range(n)]
        seen.append((tid, fds[:8]))
        if fd in fds[1:] and link(pid, fds[0]).startswith("socket:") and \
                all("rdma_cm" in link(pid, f) for f in fds[1:]):
            return int(tid)
    print(f"NOT FOUND: no thread polls the rdma_cm channel {fd}; poll threads: {seen}", flush=True)
    sys.exit(1)


def main():
    pid, fd = sys.argv[1], int(sys.argv[2])
    tid = service_thread(pid, fd)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    if libc.ptrace(PTRACE_SEIZE, tid, None, None) or libc.ptrace(PTRACE_INTERRUPT, tid, None, None):
        print(f"NOT FOUND: ptrace {tid}: {os.strerror(ctypes.get_errno())}", flush=True)
        sys.exit(1)
    print(f"STOPPED {tid}", flush=True)
    sys.stdin.read()
    libc.ptrace(PTRACE_DETACH, tid, None, None)


if __name__ == "__main__":
    main()
