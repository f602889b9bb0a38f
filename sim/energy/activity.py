"""What a run did to the network, as energy sees it: routers, channels, flits moved and switched.

:func:`network_activity` reads it from the topology and the simulated transfer list (a
:class:`~supermesh.sim.program.Program`), so every algorithm the simulator runs gets its energy the
same way: tree pipelines, throughput packings, baselines and any program added later.

Which nodes have routers
    A node of kind ``router`` (a concentrating router) is one. A chiplet has a router of its own
    unless every link it has goes to a ``router`` node: then it hangs on that router (its local
    port) and has none. A router's ports are its links (the most in either direction) plus, for a
    chiplet's own router, the chiplet's local port.

Channels
    Every arc between two nodes that have routers is a channel (one direction of a die-to-die
    link): it leaks for the whole run and costs link energy per flit hop, both scaled by its
    length in chiplet pitches (the arc attribute named by ``length``, 1 if absent). An arc between
    a chiplet and the router it hangs on is that router's local port: no link energy.

Flits
    A transfer of ``b`` bytes over an arc is cut into packets as the timing preset cuts it
    (``ceil(packet / flit)`` flits plus the head flits per packet, the last packet short), the same
    flits the timing serialises. Over a channel each flit is one *flit hop* (the reference's
    "flits"). Routers *switch* it: the sender's router puts it on the arc (a chiplet without a
    router hands it to its router's local port, which switches it when it forwards), and the
    receiver's router takes it off if the receiver is a chiplet with its own router (a
    concentrating router switches it when it sends it on). So a hop between two chiplets costs two
    switch traversals, a chiplet -> router -> router -> chiplet path two in all.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np

from supermesh.errors import InputFileError, TopologyError
from supermesh.sim.presets import SimParams
from supermesh.sim.program import Program
from supermesh.topologies.model import Arc

__all__ = ["NetworkActivity", "network_activity", "packet_flits", "router_ports"]


@dataclass(frozen=True)
class NetworkActivity:
    """What the network held and moved during one run (no time, no energy constants).

    Attributes
    ----------
    routers : tuple of (ports, count)
        Routers by number of ports, ascending.
    channels : tuple of (length, count)
        Channels by length in chiplet pitches, ascending.
    link_flits : tuple of (length, flits)
        Flit hops over channels of each length, ascending (lengths with no flits left out).
    router_flits : int
        Flits switched, summed over routers.
    flit_bits : int
        Bits per flit.

    Examples
    --------
    >>> a = NetworkActivity(((5, 64),), ((1.0, 224),), ((1.0, 1000),), 2000, 2048)
    >>> a.flits, a.n_routers, a.n_channels
    (1000, 64, 224)
    >>> NetworkActivity.from_json(a.to_json()) == a
    True
    """

    routers: tuple[tuple[int, int], ...]
    channels: tuple[tuple[float, int], ...]
    link_flits: tuple[tuple[float, int], ...]
    router_flits: int
    flit_bits: int

    @property
    def flits(self) -> int:
        """Flit hops over channels (each flit counted once per channel it crosses)."""
        return sum(f for _, f in self.link_flits)

    @property
    def n_routers(self) -> int:
        """Number of routers."""
        return sum(c for _, c in self.routers)

    @property
    def n_channels(self) -> int:
        """Number of channels."""
        return sum(c for _, c in self.channels)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict (the inverse of :meth:`from_json`)."""
        return {
            "routers": [{"ports": p, "count": c} for p, c in self.routers],
            "channels": [{"length": length, "count": c} for length, c in self.channels],
            "link_flits": [{"length": length, "flits": f} for length, f in self.link_flits],
            "router_flits": self.router_flits,
            "flit_bits": self.flit_bits,
        }

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> NetworkActivity:
        """The activity :meth:`to_json` wrote.

        Raises
        ------
        InputFileError
            A missing field or one of the wrong shape.
        """
        try:
            return cls(
                routers=tuple((int(r["ports"]), int(r["count"])) for r in doc["routers"]),
                channels=tuple((float(c["length"]), int(c["count"])) for c in doc["channels"]),
                link_flits=tuple((float(c["length"]), int(c["flits"])) for c in doc["link_flits"]),
                router_flits=int(doc["router_flits"]),
                flit_bits=int(doc["flit_bits"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InputFileError(
                f"not a network activity record: {exc!r}",
                hint="routers, channels, link_flits, router_flits and flit_bits are needed",
            ) from None


def router_ports(G: nx.MultiDiGraph) -> dict[int, int]:
    """Node -> ports of its router, for every node that has one (see the module docstring).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> sorted(set(router_ports(build("mesh:3x3")).values()))  # corner, border, centre
    [3, 4, 5]
    >>> ports = router_ports(build("cmesh:4x4"))  # 4 routers of 4 chiplets and 2 links
    >>> sorted(ports.items())
    [(16, 6), (17, 6), (18, 6), (19, 6)]
    """
    out: dict[int, int] = {}
    for v, data in G.nodes(data=True):
        links = max(G.out_degree(v), G.in_degree(v))
        if data.get("kind") == "router":
            out[v] = links
        elif not _hangs_on_router(G, v):
            out[v] = links + 1
    return out


def _hangs_on_router(G: nx.MultiDiGraph, v: int) -> bool:
    ends = set(G.successors(v)) | set(G.predecessors(v))
    return bool(ends) and all(G.nodes[u].get("kind") == "router" for u in ends)


def packet_flits(nbytes: np.ndarray, params: SimParams) -> np.ndarray:
    """Flits of transfers of ``nbytes`` each, packetised as the timing preset serialises them.

    Examples
    --------
    >>> from supermesh.sim.presets import get_preset
    >>> packet_flits(np.array([12288, 4096, 100, 0]), get_preset("booksim")).tolist()
    [51, 17, 2, 0]
    """
    size = np.asarray(nbytes, dtype=np.int64)
    per_packet = -(-params.packet_bytes // params.flit_bytes) + params.header_flits
    full, rest = np.divmod(size, params.packet_bytes)
    last = np.where(rest > 0, -(-rest // params.flit_bytes) + params.header_flits, 0)
    return full * per_packet + last


def network_activity(
    G: nx.MultiDiGraph, program: Program, params: SimParams, *, length: str = "latency"
) -> NetworkActivity:
    """Routers, channels and the flits a program moves on topology ``G``.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology the program runs on.
    program : Program
        The simulated transfers (any algorithm).
    params : SimParams
        The timing preset: how transfers are cut into packets and flits.
    length : str
        Arc attribute holding the link length in chiplet pitches (the interposer generators
        store it as ``latency``); 1 where absent.

    Returns
    -------
    NetworkActivity

    Raises
    ------
    TopologyError
        The program uses an arc the topology does not have, or a length is negative or not finite.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.sim.presets import get_preset
    >>> from supermesh.sim.program import PhaseBuilder
    >>> index = {}
    >>> pb = PhaseBuilder(index)
    >>> _ = pb.add((0, 1, 0), count=2, duration=1.0, payload=12288)  # 2 chunks: 2 x 51 flits
    >>> prog = Program(arcs=list(index), phases=[pb.build()])
    >>> a = network_activity(build("mesh:2x2"), prog, get_preset())
    >>> a.routers, a.channels, a.link_flits, a.router_flits
    (((3, 4),), ((1.0, 8),), ((1.0, 102),), 204)
    """
    ports = router_ports(G)
    channel_length: dict[Arc, float] = {}
    for u, v, k, data in G.edges(keys=True, data=True):
        if u in ports and v in ports:
            value = float(data.get(length, 1.0))
            if not np.isfinite(value) or value < 0:
                raise TopologyError(
                    f"arc {u}->{v} (key {k}) has {length}={data.get(length)!r}",
                    hint=f"a link length ({length}) is a finite number of chiplet pitches >= 0",
                )
            channel_length[(u, v, k)] = value
    flits = np.zeros(len(program.arcs), dtype=np.int64)
    for phase in program.phases:
        if phase.size:
            per_block = phase.count * packet_flits(phase.payload, params)
            flits += np.bincount(phase.arc, weights=per_block, minlength=len(program.arcs)).astype(
                np.int64
            )
    link: dict[float, int] = {}
    switched = 0
    for i, arc in enumerate(program.arcs):
        u, v, k = arc
        if not G.has_edge(u, v, key=k):
            raise TopologyError(
                f"the program uses arc {u}->{v} (key {k}), which the topology does not have",
                hint="simulate the program on the topology it was built for",
            )
        n = int(flits[i])
        if not n:
            continue
        if arc in channel_length:
            length_of = channel_length[arc]
            link[length_of] = link.get(length_of, 0) + n
        ejects = v in ports and G.nodes[v].get("kind") != "router"
        switched += n * (int(u in ports) + int(ejects))
    routers: dict[int, int] = {}
    for p in ports.values():
        routers[p] = routers.get(p, 0) + 1
    channels: dict[float, int] = {}
    for value in channel_length.values():
        channels[value] = channels.get(value, 0) + 1
    return NetworkActivity(
        routers=tuple(sorted(routers.items())),
        channels=tuple(sorted(channels.items())),
        link_flits=tuple(sorted(link.items())),
        router_flits=switched,
        flit_bits=8 * params.flit_bytes,
    )
