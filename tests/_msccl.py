"""An MSCCL XML validator written from the RCCL/MSCCL parser's rules, and a symbolic executor.

Shared by the export, schedule and CLI tests (``validate``, ``execute``, ``check_result``).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict, deque

ALGO_ATTRS = ("name", "proto", "nchannels", "nchunksperloop", "ngpus", "coll", "inplace",
              "outofplace", "minBytes", "maxBytes")  # fmt: skip
STEP_ATTRS = ("s", "type", "srcbuf", "srcoff", "dstbuf", "dstoff", "cnt", "depid", "deps",
              "hasdep")  # fmt: skip
SENDS = {"s", "rcs", "rrs", "rrcs"}
RECVS = {"r", "rcs", "rrs", "rrc", "rrcs"}
# which offsets the parser bounds-checks per type (checkSrc, checkDst), plus the local ones
CHECKED = {"s": "s", "r": "d", "rcs": "d", "rrs": "s", "rrc": "sd", "rrcs": "sd", "cpy": "sd",
           "re": "sd", "nop": ""}  # fmt: skip
MAX_STEPS, MAX_CHANNELS, MAX_TBS, MAX_COUNT, MAX_NODES = 64, 32, 108, 72, 4096


def validate(text: str) -> ET.Element:
    """Check everything the runtime parser needs; return the parsed ``<algo>``."""
    assert not text.startswith("<?xml")  # the hand-written parser rejects a declaration
    assert " />" not in text
    assert "\t" not in text
    algo = ET.fromstring(text)
    assert algo.tag == "algo"
    for a in ALGO_ATTRS:
        assert a in algo.attrib, f"algo lacks {a}"
    assert algo.get("proto") in ("Simple", "LL", "LL128")
    assert algo.get("coll") in (
        "allreduce",
        "reducescatter",
        "allgather",
        "broadcast",
        "reduce",
        "alltoall",
    )
    assert algo.get("inplace") in ("0", "1")
    assert algo.get("outofplace") in ("0", "1")
    assert 0 <= int(algo.get("minBytes")) <= int(algo.get("maxBytes"))
    assert len(algo.get("name")) <= 63
    ngpus, nchannels = int(algo.get("ngpus")), int(algo.get("nchannels"))
    assert 1 <= nchannels <= MAX_CHANNELS
    gpus = algo.findall("gpu")
    assert sorted(int(g.get("id")) for g in gpus) == list(range(ngpus))
    conns_send, conns_recv = {}, {}
    for g in gpus:
        gid = int(g.get("id"))
        size = {b: int(g.get(f"{b}_chunks")) for b in "ios"}
        assert min(size.values()) >= 0
        tbs = g.findall("tb")
        assert [int(t.get("id")) for t in tbs] == list(range(len(tbs)))
        assert len(tbs) <= MAX_TBS
        nsteps = sum(len(t.findall("step")) for t in tbs)
        assert 1 + ngpus + len(tbs) + nsteps <= MAX_NODES
        depended = set()
        for t in tbs:
            send, recv, chan = int(t.get("send")), int(t.get("recv")), int(t.get("chan"))
            assert gid not in (send, recv)
            assert -1 <= send < ngpus
            assert -1 <= recv < ngpus
            assert 0 <= chan < nchannels
            steps = t.findall("step")
            assert [int(s.get("s")) for s in steps] == list(range(len(steps)))
            assert len(steps) <= MAX_STEPS
            if send >= 0:
                assert (gid, send, chan) not in conns_send, "two tbs share a send connection"
                conns_send[(gid, send, chan)] = [int(s.get("cnt")) for s in steps
                                                 if s.get("type") in SENDS]  # fmt: skip
            if recv >= 0:
                assert (recv, gid, chan) not in conns_recv, "two tbs share a recv connection"
                conns_recv[(recv, gid, chan)] = [int(s.get("cnt")) for s in steps
                                                 if s.get("type") in RECVS]  # fmt: skip
            for s in steps:
                for a in STEP_ATTRS:
                    assert a in s.attrib, f"step lacks {a}"
                typ = s.get("type")
                assert typ in CHECKED
                assert typ not in SENDS or send >= 0
                assert typ not in RECVS or recv >= 0
                assert 1 <= int(s.get("cnt")) < MAX_COUNT
                assert s.get("hasdep") in ("0", "1")
                for side, buf, off in (("s", "srcbuf", "srcoff"), ("d", "dstbuf", "dstoff")):
                    assert s.get(buf) in ("i", "o", "s")
                    if side in CHECKED[typ]:
                        lo, hi = int(s.get(off)), int(s.get(off)) + int(s.get("cnt"))
                        assert lo >= 0
                        assert hi <= size[s.get(buf)], f"{buf} out of bounds on GPU {gid}"
                depid, deps = int(s.get("depid")), int(s.get("deps"))
                if depid >= 0:
                    assert depid < len(tbs)
                    assert 0 <= deps < len(tbs[depid].findall("step"))
                    depended.add((depid, deps))
                else:
                    assert deps == -1
        for ti, t in enumerate(tbs):
            for s in t.findall("step"):
                assert (s.get("hasdep") == "1") == ((ti, int(s.get("s"))) in depended)
    assert conns_send.keys() == conns_recv.keys(), "a connection has only one end"
    for conn, cnts in conns_send.items():
        assert cnts == conns_recv[conn], f"sends and receives of {conn} do not match"
    return algo


def execute(algo: ET.Element, iterations: int = 2, capacity: int = 1) -> dict:
    """Run the program symbolically; values are frozensets of (rank, iteration, input index)."""
    gpus = {int(g.get("id")): g.findall("tb") for g in algo.findall("gpu")}
    steps = {(g, t): tb.findall("step") for g, tbs in gpus.items() for t, tb in enumerate(tbs)}
    peer = {(g, t): (int(tb.get("send")), int(tb.get("recv")), int(tb.get("chan")))
            for g, tbs in gpus.items() for t, tb in enumerate(tbs)}  # fmt: skip
    done = dict.fromkeys(steps, 0)  # steps finished, counted over all iterations
    queue = defaultdict(deque)  # (src gpu, dst gpu, chan) -> messages in flight
    buf = {}

    def read(g, it, b, off):
        return buf.get((g, it, b, off), frozenset({(g, it, off)}) if b == "i" else None)

    total = sum(len(s) for s in steps.values()) * iterations
    while sum(done.values()) < total:
        progress = False
        for key, seq in steps.items():
            n = len(seq)
            if done[key] == n * iterations:
                continue
            g, _ = key
            it, i = divmod(done[key], n)
            s = seq[i]
            depid = int(s.get("depid"))
            if (
                depid >= 0
                and done[(g, depid)] < it * len(steps[(g, depid)]) + int(s.get("deps")) + 1
            ):
                continue
            send, recv, chan = peer[key]
            typ, cnt = s.get("type"), int(s.get("cnt"))
            if typ in RECVS and len(queue[(recv, g, chan)]) == 0:
                continue
            if typ in SENDS and len(queue[(g, send, chan)]) >= capacity:
                continue
            src = [(s.get("srcbuf"), int(s.get("srcoff")) + j) for j in range(cnt)]
            dst = [(s.get("dstbuf"), int(s.get("dstoff")) + j) for j in range(cnt)]
            got = queue[(recv, g, chan)].popleft() if typ in RECVS else None
            if typ == "s":
                out = [read(g, it, *a) for a in src]
                assert all(v is not None for v in out), f"GPU {g} sends an unset chunk"
                queue[(g, send, chan)].append(out)
            elif typ == "r":
                for a, v in zip(dst, got, strict=True):
                    buf[(g, it, *a)] = v
            elif typ == "rrc":
                for a, b, v in zip(src, dst, got, strict=True):
                    mine = read(g, it, *a)
                    assert not (mine & v), f"GPU {g} adds a contribution twice"
                    buf[(g, it, *b)] = mine | v
            elif typ == "cpy":
                for a, b in zip(src, dst, strict=True):
                    buf[(g, it, *b)] = read(g, it, *a)
            else:
                raise AssertionError(f"unexpected step type {typ}")
            done[key] += 1
            progress = True
        assert progress, "the program deadlocks"
    assert not any(queue.values()), "messages left undelivered"
    return buf


def check_result(algo: ET.Element, buf: dict, root: int | None = None) -> None:
    coll, n = algo.get("coll"), int(algo.get("ngpus"))
    per_loop = int(algo.get("nchunksperloop"))
    for it in range(2):
        for g in range(n):
            if coll == "allreduce":
                for x in range(per_loop):
                    assert buf[(g, it, "o", x)] == {(r, it, x) for r in range(n)}
            elif coll == "reducescatter":
                S = per_loop // n
                for c in range(S):
                    assert buf[(g, it, "o", c)] == {(r, it, g * S + c) for r in range(n)}
            elif coll == "allgather":
                S = per_loop // n
                for x in range(per_loop):
                    assert buf[(g, it, "o", x)] == {(x // S, it, x % S)}
            elif coll == "broadcast":
                for x in range(per_loop):
                    assert buf[(g, it, "o", x)] == {(root, it, x)}
            elif coll == "reduce" and g == root:
                for x in range(per_loop):
                    assert buf[(g, it, "o", x)] == {(r, it, x) for r in range(n)}
