"""MSCCL XML: a schedule as an algorithm file the MSCCL and RCCL runtimes load.

Mapping (every tree of every set is kept; nothing falls back to a single tree)

- Ranks: the schedule's ranks (its compute chiplets), which must be ``0 .. ngpus-1``; a tree
  through a relay chiplet (memory, I/O) is refused, since MSCCL has no non-rank nodes.
- Channels: a link ``(src, dst, key)`` uses channel ``key + K*q``, where ``K`` is the number of
  parallel links (1 on a mesh, 2 on SuperMesh) and ``q`` the link's channel group (below). So
  the two parallel links of a SuperMesh pair are two MSCCL connections, as MSCCL uses channels
  for parallel connections between the same two GPUs.
- Threadblocks: one *send* threadblock per used link and channel at its source
  (``send=dst recv=-1``) and one *recv* threadblock at its destination (``send=-1 recv=src``),
  plus one local threadblock (``send=-1 recv=-1 chan=0``) holding the out-of-place copies of
  AllGather and Broadcast roots. Each threadblock therefore has at most one peer, and each
  (peer, channel) connection belongs to exactly one threadblock per direction.
- Steps: the steps of a link's two threadblocks are that link's FIFO, (entry, chunk slot) pairs
  ordered by (phase, set, slot, FIFO step), one step per chunk slot, ``cnt="1"``; the sender
  and the receiver list the same sequence, so sends and receives match in order. Step types:
  in-tree phases (``rs``, ``reduce``): a leaf sends its input chunk (``s``); a node with
  children receives from its first child with ``rrc`` (own input + received -> accumulator),
  from each further child with ``rrc`` on the accumulator (depending on the previous child's
  step, so reductions into one buffer never race), and sends the accumulator (``s``, depending
  on the last child's ``rrc``). Out-tree phases (``ag``, ``bcast``): the root sends
  (AllReduce: its reduced output chunk, depending on its last ``rs``-phase ``rrc``), others
  receive with ``r`` into the output and send to each child with ``s`` depending on that
  ``r``. Every step has at most one dependency, so no ``nop`` is needed and step numbers equal
  the runtime's transfer indices; ``hasdep="1"`` marks every step another one waits for.
- Buffers (``B`` blocks: trees for AllReduce / Broadcast / Reduce, ranks for ReduceScatter /
  AllGather, roots for a weighted AllReduce; ``S`` chunk slots per block and loop): block
  ``b``, slot ``c`` lives at input and output index ``b*S + c``, except ReduceScatter output
  ``c`` and AllGather input ``c``. Partial sums of ReduceScatter and Reduce at non-root
  chiplets go to scratch (``s_chunks``); AllReduce accumulates in the output. Every program is
  valid in place and out of place (AllToAll: out of place, below).
- Weighted tables (several trees per root, each carrying ``n`` of its block's ``C`` chunks,
  :mod:`supermesh.trees.schedule.build`): every tree is kept, with ``n*S/C`` slots per loop, side by
  side inside its root's block in tree order (so its share of every loop is exactly its share
  of the table). ``S`` must make every ``n*S/C`` whole. When trees of different counts share a
  link, a loop cannot repeat the table's FIFO order (chunk index, step), so ``S = C``: one loop
  is the whole table; if that overfills a threadblock the export raises ``SpecError`` (use
  equal shares, ``pack_throughput(parts=K)``, or a larger ``max_steps``) instead of writing
  another order. Where several trees of a set share a link, each node reduces its children's
  chunks in the order a run of the table delivers them (see
  :meth:`~supermesh.export.msccl_steps.StepBuilder.follow_execution`), which keeps the program
  free of dependency cycles.
- Loops: ``nchunksperloop = B*S``. The runtime repeats the program over the buffer, so slot
  ``c`` carries chunks ``c, c+S, c+2S, ...`` of each tree (weighted: ``c, c+n*S/C, ...``);
  threadblocks run ahead into the next iteration, so the pipeline continues across loop
  iterations. ``S`` is the largest value up to ``Schedule.chunks`` that keeps every
  threadblock within ``max_steps``; if a link carries more than ``max_steps`` entries even with
  the smallest ``S``, consecutive sets are split into channel groups (more channels, each with
  its own FIFO). The runtime splits each loop's data into ``nchunksperloop`` equal chunks, so
  messages should be a multiple of that many elements.
- AllToAll (route tables): ``B = n`` blocks in and out; the chunks rank ``i`` sends to rank
  ``j`` leave input block ``j`` and land in output block ``i``; relays keep them in scratch
  until they forward them; every rank copies its own block ``i`` from input to output (one
  ``cpy``). Route hops are out-tree steps (``s`` at the sender, ``r`` at the receiver). Such a
  program is out of place only (``inplace="0"``): a block arriving early would overwrite an
  input block not yet sent.
- AllReduce's global barrier is not expressed: MSCCL keeps the data dependencies only (a root
  starts sending a chunk once it has reduced it); the barrier is a timing rule of the simulator,
  not needed for correctness.

Limits checked (:class:`MscclLimits`, defaults the stricter of MSCCL and RCCL): steps per
threadblock (``MSCCL_MAX_NUM_STEPS``: 64 in RCCL, 256 in MSCCL), channels (``MAXCHANNELS`` 32),
threadblocks per GPU (all must be resident at once: 108), send / recv threadblocks per channel
(``MSCCL_MAX_NUM_THREAD_BLOCKS_PER_CHANNEL`` 32), ``cnt < 72`` (``MSCCL_MAX_COUNT``), XML
elements the parser keeps for one rank (algo + gpus + its threadblocks and steps <= 4096), children
of one element (1024), 16-bit offsets. The text has no XML declaration or comments and writes
``/>`` without a space, as the runtimes' hand-written parser expects.

References
----------
.. [1] M. Cowan et al., "MSCCLang: Microsoft Collective Communication Language", ASPLOS 2023.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from supermesh.errors import SpecError
from supermesh.export.msccl_steps import Step, StepBuilder, Threadblock, plan_slots
from supermesh.trees.schedule.model import Schedule

__all__ = [
    "MscclLimits",
    "MscclProgram",
    "Step",
    "Threadblock",
    "msccl_program",
    "msccl_text",
    "msccl_xml",
]

MAX_BYTES = 2**40
"""Default ``maxBytes``: 1 TiB, i.e. no practical upper limit."""


@dataclass(frozen=True)
class MscclLimits:
    """Runtime limits an exported program must respect (see the module docstring)."""

    max_steps: int = 64
    max_channels: int = 32
    max_threadblocks: int = 108
    max_tbs_per_channel: int = 32
    max_count: int = 71
    max_nodes: int = 4096
    max_subs: int = 1024
    max_offset: int = 32767


@dataclass
class MscclProgram:
    """A whole algorithm: attributes of ``<algo>`` and, per GPU, buffers and threadblocks."""

    name: str
    proto: str
    coll: str
    ngpus: int
    nchunksperloop: int
    nchannels: int
    slots: int
    min_bytes: int
    max_bytes: int
    gpus: dict[int, dict[str, int]]
    tbs: dict[int, list[Threadblock]]


def msccl_program(
    schedule: Schedule,
    *,
    ranks: list[int] | None = None,
    chunks_per_loop: int | None = None,
    limits: MscclLimits | None = None,
    name: str | None = None,
    proto: str = "Simple",
    min_bytes: int = 0,
    max_bytes: int = MAX_BYTES,
) -> MscclProgram:
    """Translate a schedule into MSCCL threadblocks and steps (mapping in the module docstring).

    Parameters
    ----------
    schedule : Schedule
        From :func:`supermesh.trees.schedule.build.build_schedule`.
    ranks : list of int, optional
        The GPUs (default: the schedule's ranks, its compute chiplets); must be ``0 .. n-1``.
    chunks_per_loop : int, optional
        Chunk slots per block per loop iteration ``S`` (default: the largest that fits; see
        :func:`~supermesh.export.msccl_steps.plan_slots` for weighted tables).
    limits : MscclLimits, optional
        Runtime limits (default :class:`MscclLimits()`).
    name, proto, min_bytes, max_bytes
        ``<algo>`` attributes (``proto`` one of ``Simple``, ``LL``, ``LL128``).

    Returns
    -------
    MscclProgram

    Raises
    ------
    SpecError
        If a relay chiplet is not a rank, ranks are not ``0 .. n-1``, a limit is exceeded, or
        a weighted table's tree counts cannot be looped exactly within the limits.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import Tree, TreePacking, TreeSet
    >>> from supermesh.trees.schedule.build import build_schedule
    >>> t = Tree(0, ((0, 1, 0), (0, 2, 0), (1, 3, 0)), 2)
    >>> p = TreePacking("mesh:2x2", "out", "optimal", sets=(TreeSet((t,)),))
    >>> prog = msccl_program(build_schedule(build("mesh:2x2"), "allreduce", p, chunks=4))
    >>> prog.nchunksperloop, [(tb.send, tb.recv, len(tb.steps)) for tb in prog.tbs[3]]
    (4, [(-1, 1, 4), (1, -1, 4)])
    """
    lim = limits or MscclLimits()
    if proto not in ("Simple", "LL", "LL128"):
        raise SpecError(f"protocol {proto!r} is not Simple, LL or LL128")
    ranks = list(schedule.ranks) if ranks is None else ranks
    if ranks != list(range(len(ranks))):
        raise SpecError("MSCCL ranks must be 0 .. n-1", hint="renumber the chiplets")
    outside = sorted({n for e in schedule.entries for n in (e.src, e.dst)} - set(ranks))
    if outside:
        raise SpecError(
            f"chiplet {outside[0]} relays data but is not a rank; MSCCL has no relay nodes",
            hint="use trees that span only compute chiplets for the MSCCL export",
        )
    slots, group = plan_slots(schedule, chunks_per_loop, lim.max_steps)
    nkeys = 1 + max((e.key for e in schedule.entries), default=0)
    builder = StepBuilder(schedule, len(ranks), slots)
    builder.reserve({e.id: e.key + nkeys * group[e.set_index] for e in schedule.entries})
    arcs = [(e.phase, e.set_index, e.arc) for e in schedule.entries]
    if len(arcs) != len(set(arcs)):  # trees of one set share a link
        builder.follow_execution()
    for e in schedule.entries:
        for c in range(builder.slots(e)):
            builder.fill(e, c)
    builder.local_copies()
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name or f"supermesh-{schedule.topology}")[:63]
    prog = MscclProgram(
        name=safe or "supermesh",
        proto=proto,
        coll=schedule.collective,
        ngpus=len(ranks),
        nchunksperloop=builder.blocks * slots,
        nchannels=1 + max((tb.chan for tbs in builder.tbs.values() for tb in tbs), default=0),
        slots=slots,
        min_bytes=min_bytes,
        max_bytes=max_bytes,
        gpus={g: builder.buffers(g) for g in ranks},
        tbs={g: builder.numbered(g) for g in ranks},
    )
    _check_limits(prog, lim)
    return prog


def _check_limits(prog: MscclProgram, lim: MscclLimits) -> None:
    """Raise SpecError naming the first runtime limit the program exceeds."""
    hint = "use fewer chunks per loop, or a smaller topology / fewer tree sets"
    if prog.nchannels > lim.max_channels:
        raise SpecError(f"{prog.nchannels} channels exceed the limit {lim.max_channels}", hint=hint)
    if prog.ngpus > lim.max_subs:
        raise SpecError(f"{prog.ngpus} GPUs exceed the XML parser limit {lim.max_subs}")
    for g, tbs in prog.tbs.items():
        if len(tbs) > min(lim.max_threadblocks, lim.max_subs):
            raise SpecError(
                f"GPU {g} needs {len(tbs)} threadblocks, over the limit {lim.max_threadblocks}",
                hint=hint,
            )
        nsteps = sum(len(tb.steps) for tb in tbs)
        if 1 + prog.ngpus + len(tbs) + nsteps > lim.max_nodes:
            raise SpecError(
                f"GPU {g}: {nsteps} steps make the XML larger than the parser's "
                f"{lim.max_nodes} elements per rank",
                hint=hint,
            )
        for chan in {tb.chan for tb in tbs}:
            for peer in ("send", "recv"):
                n = sum(1 for tb in tbs if tb.chan == chan and getattr(tb, peer) >= 0)
                if n > lim.max_tbs_per_channel:
                    raise SpecError(f"GPU {g} channel {chan} has {n} {peer} threadblocks")
        for tb in tbs:
            if len(tb.steps) > lim.max_steps:
                raise SpecError(
                    f"GPU {g} threadblock {tb.id} has {len(tb.steps)} steps, over the limit "
                    f"{lim.max_steps}",
                    hint=hint,
                )
            for st in tb.steps:
                if not 1 <= st.cnt <= lim.max_count:
                    raise SpecError(f"a step count {st.cnt} is over the limit {lim.max_count}")
                if max(st.srcoff, st.dstoff) > lim.max_offset:
                    raise SpecError(f"a buffer offset exceeds {lim.max_offset}", hint=hint)


def _element(tag: str, attrs: Mapping[str, object], close: bool = False) -> str:
    body = " ".join(f'{k}="{v}"' for k, v in attrs.items())
    return f"<{tag} {body}{'/' if close else ''}>"


def msccl_text(prog: MscclProgram) -> str:
    """The XML text of a program (two-space indent, no declaration, ``/>`` without a space).

    Parameters
    ----------
    prog : MscclProgram
        From :func:`msccl_program`.

    Returns
    -------
    str
        ``<algo ...>`` with one ``<gpu>`` per rank, its ``<tb>`` and their ``<step/>``.

    Examples
    --------
    See :func:`msccl_xml`.
    """
    algo = {
        "name": prog.name, "proto": prog.proto, "nchannels": prog.nchannels,
        "nchunksperloop": prog.nchunksperloop, "ngpus": prog.ngpus, "coll": prog.coll,
        "inplace": int(prog.coll != "alltoall"), "outofplace": 1,
        "minBytes": prog.min_bytes, "maxBytes": prog.max_bytes,
    }  # fmt: skip
    lines = [_element("algo", algo)]
    for g in sorted(prog.gpus):
        lines.append("  " + _element("gpu", {"id": g, **prog.gpus[g]}))
        for tb in prog.tbs[g]:
            attrs = {"id": tb.id, "send": tb.send, "recv": tb.recv, "chan": tb.chan}
            lines.append("    " + _element("tb", attrs))
            for i, st in enumerate(tb.steps):
                step = {"s": i, "type": st.type, "srcbuf": st.srcbuf, "srcoff": st.srcoff}
                step |= {"dstbuf": st.dstbuf, "dstoff": st.dstoff, "cnt": st.cnt}
                step |= {"depid": st.depid, "deps": st.deps, "hasdep": st.hasdep}
                lines.append("      " + _element("step", step, close=True))
            lines.append("    </tb>")
        lines.append("  </gpu>")
    lines.append("</algo>")
    return "\n".join(lines) + "\n"


def msccl_xml(schedule: Schedule, **options: object) -> str:
    """The MSCCL XML text of a schedule: :func:`msccl_text` of :func:`msccl_program`.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import Tree, TreePacking, TreeSet
    >>> from supermesh.trees.schedule.build import build_schedule
    >>> t = Tree(0, ((0, 1, 0), (1, 3, 0), (3, 2, 0)), 3)
    >>> p = TreePacking("mesh:2x2", "out", "optimal", sets=(TreeSet((t,)),))
    >>> xml = msccl_xml(build_schedule(build("mesh:2x2"), "broadcast", p, chunks=2))
    >>> xml.splitlines()[0][:60]
    '<algo name="supermesh-mesh_2x2" proto="Simple" nchannels="1"'
    """
    return msccl_text(msccl_program(schedule, **options))  # type: ignore[arg-type]
