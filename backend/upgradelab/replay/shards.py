"""A replay's statements split over the hosts of a worker pool, and the hosts' results merged back
into the one comparison (issue 51, item 4).

Split (`split`): whole fingerprints, never a statement apart from its fingerprint's others, so every
fingerprint is timed on one host only and every pair of its variants stays on one machine (each
host runs every variant for its shard). The fingerprints are placed by their cost, the heaviest
first, each on the shard with the least cost so far (longest processing time first; ties: the
fingerprint first in the source, then the lowest shard): deterministic for the same statements,
and within 4/3 of the best balance. A fingerprint's cost is its statements' count by default: a
timed execution costs about the same whatever the statement (issue 51 measured ~56 ms of
bookkeeping per execution beside a few ms of the statements' own time), and a replay stores no
capture-time cost per statement; `costs` (seconds per fingerprint id) sizes them by time instead.
Each shard lists its statements' indexes in source order.

Merge (`merge`): per variant, one VariantReplay whose statement i is the source's statement i, read
from the shard that ran it (outcomes, times, client_times, work, stages, repeats), with every
shard's null statement (`DO 0`, statement_cost.py) appended after the user's statements, in shard
order; `null_of[i]` is the index of the null statement timed on statement i's host, so compare.py
reads each fingerprint net of its own host's per-statement cost, and Benjamini-Hochberg and the
summary run once over every fingerprint of every shard. The merged variant's own `null_statement`
is the first shard's; `null_shards` says which shard timed each null statement, so the report's
per-statement cost has a line per variant and host (document.statement_costs), each read on that
host's own null statement: each host's floor is its own measurement, and no one line speaks for all.
"""

from dataclasses import dataclass, field, replace
from typing import Any

from upgradelab.measurement import SourceStatement, VariantReplay

# The per-statement lists of a VariantReplay, indexed like its statements (the null statement last
# where the engine keeps one for it: stages keep the user's statements only).
_PER_STATEMENT = ("outcomes", "times", "client_times", "work", "stages", "repeats")


class ShardMismatch(ValueError):
    """The shards' results cannot be merged into one comparison (the message says which field)."""


def split(
    statements: list[SourceStatement], shards: int, costs: dict[str, float] | None = None
) -> list[list[int]]:
    """`shards` lists of statement indexes (0-based, into `statements`; each in source order; a
    fingerprint's statements all in one list; a list may be empty when there are fewer fingerprints
    than shards). costs: seconds per fingerprint id (a fingerprint missing from it costs its
    statements' count x the smallest cost given); None: each statement costs 1 (module docstring).
    ValueError when `shards` < 1."""
    if shards < 1:
        raise ValueError(f"shards: at least 1, got {shards}")
    by_fingerprint: dict[str, list[int]] = {}
    for index, statement in enumerate(statements):
        by_fingerprint.setdefault(statement.fingerprint_id, []).append(index)
    unit = min(costs.values(), default=1.0) if costs else 1.0
    weight = {
        fid: costs[fid] if costs and fid in costs else unit * len(indexes)
        for fid, indexes in by_fingerprint.items()
    }
    order = sorted(by_fingerprint, key=lambda fid: (-weight[fid], by_fingerprint[fid][0]))
    loads = [0.0] * shards
    out: list[list[int]] = [[] for _ in range(shards)]
    for fid in order:
        lightest = min(range(shards), key=lambda shard: (loads[shard], shard))
        loads[lightest] += weight[fid]
        out[lightest].extend(by_fingerprint[fid])
    return [sorted(indexes) for indexes in out]


@dataclass
class Merged:
    """The shards' results as one replay: per variant its merged VariantReplay (the variants'
    order), per user statement the index of its host's null statement (None: none timed there), and
    per null statement's index the shard (its place in `shards`) that timed it."""

    replays: list[VariantReplay]
    null_of: list[int | None]
    null_shards: dict[int, int] = field(default_factory=dict)


def merge(
    statements: list[SourceStatement], shards: list[list[int]], results: list[list[VariantReplay]]
) -> Merged:
    """One comparison's replays from the shards' (module docstring). shards: split()'s indexes per
    shard; results[k]: shard k's VariantReplay per variant (the same variants in the same order on
    every shard, each over shard k's statements in order plus its null statement); an empty shard
    has none ([]). ShardMismatch when the shards disagree on the variants, their server version,
    flavor, clock or passes (a comparison across them would not be like with like), or a shard's
    results do not cover its statements."""
    ran = [(indexes, replays) for indexes, replays in zip(shards, results, strict=True) if indexes]
    if not ran:
        raise ShardMismatch("shards: none ran a statement")
    first = ran[0][1]
    for number, (indexes, replays) in enumerate(ran):
        names = [r.name for r in replays]
        if names != [r.name for r in first]:
            raise ShardMismatch(f"shard {number}: variants {names}, not {[r.name for r in first]}")
        for one, other in zip(first, replays, strict=True):
            for column in ("version", "flavor", "clock", "passes"):
                if getattr(one, column) != getattr(other, column):
                    raise ShardMismatch(
                        f"shard {number}: variant {one.name!r} {column} {getattr(other, column)!r}, "
                        f"another shard's {getattr(one, column)!r}"
                    )
            if len(other.outcomes) < len(indexes):
                raise ShardMismatch(
                    f"shard {number}: variant {one.name!r} has {len(other.outcomes)} outcomes "
                    f"for {len(indexes)} statements"
                )
    count = len(statements)
    located: list[tuple[int, int] | None] = [None] * count  # statement -> (shard, its index there)
    for number, (indexes, _) in enumerate(ran):
        for local, index in enumerate(indexes):
            located[index] = (number, local)
    if any(place is None for place in located):
        missing = [index for index, place in enumerate(located) if place is None]
        raise ShardMismatch(f"shards: statements {missing[:5]} ran on no shard")
    nulls = [replays[0].null_statement for _, replays in ran]
    null_index: dict[int, int] = {}
    for number, null in enumerate(nulls):
        if null is not None:
            null_index[number] = count + len(null_index)
    null_of = [null_index.get(place[0]) for place in located if place is not None]
    merged = []
    for variant in range(len(first)):
        fields: dict[str, Any] = {}
        for name in _PER_STATEMENT:
            lists = [getattr(replays[variant], name) for _, replays in ran]
            if any(len(kept) < len(indexes) for kept, (indexes, _) in zip(lists, ran, strict=True)):
                fields[name] = []  # a shard kept none (stages off on its server): none merged
                continue
            values = [lists[place[0]][place[1]] for place in located if place is not None]
            for number, null in enumerate(nulls):
                if null is not None and null < len(lists[number]):
                    values.append(lists[number][null])
            fields[name] = values
        base = first[variant]
        merged.append(replace(base, null_statement=null_index.get(0), **fields))
    numbers = [number for number, indexes in enumerate(shards) if indexes]  # ran's shard numbers
    return Merged(merged, null_of, {null: numbers[number] for number, null in null_index.items()})


@dataclass(frozen=True)
class Spread:
    """Where a sharded replay's statements ran, for its report (document.report_document): `hosts`
    each shard's worker (Celery node name) in shard order; `null_hosts` each merged null statement's
    index -> the host that timed it; `fingerprint_hosts` each fingerprint id -> its host;
    `fingerprints` and `rounds` each shard's fingerprint count and rounds (the most any of its
    statements was timed: its schedule is the one planned from the replay's id for that many rounds,
    execution/schedule.py plan, every shard's the first rounds of the longest)."""

    hosts: list[str]
    null_hosts: dict[int, str]
    fingerprint_hosts: dict[str, str]
    fingerprints: list[int]
    rounds: list[int]


def spread(
    statements: list[SourceStatement], shards: list[list[int]], merged: Merged, hosts: list[str]
) -> Spread:
    """The Spread of `merged` (merge's, of these statements and shards), `hosts` naming each shard's
    worker in shard order."""
    passes = max(merged.replays[0].passes, 1) if merged.replays else 1
    nulls = {shard: null for null, shard in merged.null_shards.items()}

    def rounds(indexes: list[int]) -> int:
        return max((len(r.times[i]) // passes for r in merged.replays for i in indexes), default=0)

    return Spread(
        hosts=list(hosts),
        null_hosts={null: hosts[shard] for null, shard in merged.null_shards.items()},
        fingerprint_hosts={
            statements[i].fingerprint_id: hosts[shard]
            for shard, indexes in enumerate(shards)
            for i in indexes
        },
        fingerprints=[len({statements[i].fingerprint_id for i in indexes}) for indexes in shards],
        rounds=[
            rounds([*indexes, *([nulls[shard]] if shard in nulls else [])])
            for shard, indexes in enumerate(shards)
        ],
    )
