"""An independent recount of a program's network activity, one transfer at a time, by loops.

Written from the rules in words (``supermesh.sim.energy.activity``'s docstring), not from its
code: a node has a router unless it is a chiplet whose links all go to router nodes; channels are
the arcs between nodes with routers; a transfer's bytes are cut into packets and flits as the
timing preset cuts them; the sender's router and a receiving chiplet's own router switch them.
"""

from __future__ import annotations

import math

from supermesh.sim.program import Program


def recount(G, program: Program, params) -> tuple[dict, dict, dict, int]:
    """(routers by ports, channels by length, flit hops by length, flits switched)."""

    def kind(v):
        return G.nodes[v].get("kind", "compute")

    def hangs(v):
        ends = set(G.successors(v)) | set(G.predecessors(v))
        return kind(v) != "router" and ends and all(kind(u) == "router" for u in ends)

    has = {v for v in G if not hangs(v)}
    routers: dict[int, int] = {}
    for v in has:
        p = max(G.out_degree(v), G.in_degree(v)) + (0 if kind(v) == "router" else 1)
        routers[p] = routers.get(p, 0) + 1
    channels: dict[float, int] = {}
    for u, v, d in G.edges(data=True):
        if u in has and v in has:
            length = float(d.get("latency", 1.0))
            channels[length] = channels.get(length, 0) + 1
    hops: dict[float, int] = {}
    switched = 0
    for phase in program.phases:
        for b in range(phase.size):
            u, v, k = program.arcs[int(phase.arc[b])]
            left, flits = int(phase.payload[b]), 0
            while left > 0:
                packet = min(left, params.packet_bytes)
                flits += math.ceil(packet / params.flit_bytes) + params.header_flits
                left -= packet
            flits *= int(phase.count[b])
            if u in has and v in has:
                length = float(G.edges[u, v, k].get("latency", 1.0))
                hops[length] = hops.get(length, 0) + flits
            switched += flits * ((u in has) + (v in has and kind(v) != "router"))
    return routers, channels, {k: v for k, v in hops.items() if v}, switched
