"""A replay sharded over a pool's hosts (replay/shards.py): whole fingerprints split by cost,
deterministically, and the shards' results merged into the one comparison, which on the same seeded
data is the unsharded replay's report; each fingerprint read net of its own host's per-statement cost.
Decided on seeded round values with the real functions (compare, report_document)."""

import pytest

from tests.replay.test_statement_cost import FINGERPRINTS_US, NULL_US, SHIFT_US, _replay, _statements
from upgradelab.cli.replay import summary_lines
from upgradelab.measurement import SourceStatement, VariantReplay
from upgradelab.measurement.sources import parse_source
from upgradelab.replay import shards as shards_module
from upgradelab.replay.compare import compare
from upgradelab.replay.document import report_document
from upgradelab.replay.shards import Merged, ShardMismatch, merge, split


def _cut(replay: VariantReplay, indexes: list[int]) -> VariantReplay:
    """What a host that ran only `indexes` (and the null statement after them) reports."""
    assert replay.null_statement is not None
    kept = [*indexes, replay.null_statement]
    out = VariantReplay(
        replay.name,
        replay.version,
        None,
        [],
        [replay.outcomes[i] for i in kept],
        [replay.times[i] for i in kept],
        clock=replay.clock,
    )
    out.null_statement = len(indexes)
    return out


def _variants() -> list[VariantReplay]:
    """a (baseline), b (every statement 45 us dearer, fingerprint 6 three times slower on top) and
    c (an A/A control: a again, another seed)."""
    slower = [us + SHIFT_US for us in FINGERPRINTS_US]
    slower[6] *= 3
    return [
        _replay("a", FINGERPRINTS_US, NULL_US, 1),
        _replay("b", slower, NULL_US + SHIFT_US, 2),
        _replay("c", FINGERPRINTS_US, NULL_US, 3),
    ]


def test_split_keeps_fingerprints_whole_in_source_order_balanced_by_cost_and_deterministic() -> None:
    statements = parse_source(
        "".join(f"SELECT c_{chr(97 + i % 5)} FROM t WHERE k = {i};\n" for i in range(20))
    ).statements
    assert len({s.fingerprint_id for s in statements}) == 5
    shards = split(statements, 2)
    assert split(statements, 2) == shards
    assert sorted(i for shard in shards for i in shard) == list(range(20))
    for shard in shards:
        assert shard == sorted(shard)
    homes = {
        s.fingerprint_id: {n for n, shard in enumerate(shards) if i in shard}
        for i, s in enumerate(statements)
    }
    assert all(len(home) == 1 for home in homes.values())
    assert sorted(len(shard) for shard in shards) == [8, 12]  # 5 fingerprints of 4: 2 and 3
    # by time: the dearest fingerprint alone on one host, the other four on the other
    dearest = statements[0].fingerprint_id
    costs = {s.fingerprint_id: 10.0 if s.fingerprint_id == dearest else 1.0 for s in statements}
    by_time = split(statements, 2, costs)
    assert by_time[0] == [i for i, s in enumerate(statements) if s.fingerprint_id == dearest]
    assert split(statements, 7)[5:] == [[], []]
    with pytest.raises(ValueError, match="shards"):
        split(statements, 0)


def test_the_merged_report_of_two_shards_is_the_unsharded_replays_report() -> None:
    statements = _statements()
    full = _variants()
    unsharded = compare(statements, full, aa_control="c")
    shards = split(statements, 2)
    assert all(shards)
    merged = merge(statements, shards, [[_cut(r, shard) for r in full] for shard in shards])
    sharded = compare(statements, merged.replays, aa_control="c", null_of=merged.null_of)
    assert [r.model_dump() for r in sharded] == [r.model_dump() for r in unsharded]
    groups = [r.variants["b"].group for r in unsharded]
    assert groups[6] == "slower" and "slower: per-statement cost only" in groups  # not vacuous
    assert report_document(statements, merged.replays, sharded, aa_control="c").model_dump() == (
        report_document(statements, full, unsharded, aa_control="c").model_dump()
    )


EXTRA_US = 2 * SHIFT_US  # what every statement costs more on b on the second host


def _two_hosts() -> tuple[list[SourceStatement], list[list[int]], list[list[VariantReplay]], Merged]:
    """The statements split over two hosts, a and b on each (b EXTRA_US dearer per statement on the
    second host only), and their merge."""
    statements = _statements()
    shards = split(statements, 2)
    on_host = [
        [_replay("a", FINGERPRINTS_US, NULL_US, 1), _replay("b", FINGERPRINTS_US, NULL_US, 2)],
        [
            _replay("a", FINGERPRINTS_US, NULL_US, 3),
            _replay("b", [us + EXTRA_US for us in FINGERPRINTS_US], NULL_US + EXTRA_US, 4),
        ],
    ]
    results = [[_cut(r, shard) for r in host] for shard, host in zip(shards, on_host, strict=True)]
    return statements, shards, on_host, merge(statements, shards, results)


def test_each_fingerprint_is_read_net_of_its_own_hosts_per_statement_cost() -> None:
    """Host 1 pays 90 us more per statement on b (its null statement says so), host 0 nothing: a
    cheap fingerprint on host 1 is slower by that cost only, which host 0's null statement, read
    for every fingerprint, would have called a change of its own."""
    statements, shards, _, merged = _two_hosts()
    assert merged.null_of == [len(statements) + (1 if i in shards[1] else 0) for i in range(len(statements))]
    own = compare(statements, merged.replays, null_of=merged.null_of)
    first_hosts = compare(statements, merged.replays)  # every fingerprint against host 0's DO 0
    cheap = [i for i in shards[1] if EXTRA_US / FINGERPRINTS_US[i] > 0.15]
    assert cheap, shards
    for i in cheap:
        assert own[i].variants["b"].group == "slower: per-statement cost only", i
        assert first_hosts[i].variants["b"].group == "slower", i
    for i in shards[0]:
        assert own[i].variants["b"].group == "same", i


def test_shards_that_disagree_on_a_variants_server_are_refused_naming_it() -> None:
    statements = _statements()
    full = _variants()
    shards = split(statements, 2)
    results = [[_cut(r, shard) for r in full] for shard in shards]
    results[1][1].version = "2"
    with pytest.raises(ShardMismatch, match="shard 1: variant 'b' version '2'"):
        merge(statements, shards, results)
    with pytest.raises(ShardMismatch, match="ran on no shard"):
        merge(statements, [shards[0], []], [results[0], []])


def test_the_report_has_a_per_statement_cost_line_per_variant_and_host_each_its_own() -> None:
    """The same two hosts as above: b's per-statement cost is +0 us on host 0 and +90 us on host 1.
    One line for b read on host 0's null statement only would say "no significant difference" for
    the statements of both; the report says each host's, named, as that host alone would have."""
    statements, shards, on_host, merged = _two_hosts()
    assert merged.null_shards == {len(statements): 0, len(statements) + 1: 1}
    spread = shards_module.spread(statements, shards, merged, ["celery@one", "local@two"])
    own = compare(statements, merged.replays, null_of=merged.null_of)
    document = report_document(statements, merged.replays, own, spread=spread)
    lines = document.per_statement_cost
    assert [(line.variant, line.host) for line in lines] == [("b", "celery@one"), ("b", "local@two")]
    for line, host, name in zip(lines, on_host, ["celery@one", "local@two"], strict=True):
        alone = report_document(statements, host, compare(statements, host)).per_statement_cost
        assert len(alone) == 1 and alone[0].host is None
        assert line.model_dump() == {
            **alone[0].model_dump(),
            "host": name,
            "text": f"on {name}: {alone[0].text}",
        }
    assert lines[0].ratio is not None and lines[0].ratio.verdict == "no significant difference", lines[0].text
    assert lines[1].ratio is not None and lines[1].ratio.verdict == "regression", lines[1].text
    assert 80 < (lines[1].difference_us or 0) < 100 and abs(lines[0].difference_us or 99) < 10
    # unsharded (no hosts): one line per variant, as before
    assert [line.host for line in report_document(statements, merged.replays, own).per_statement_cost] == [
        None
    ]
    # each fingerprint names its host; the report says where each shard's fingerprints ran
    hosts = {f.fingerprint_id: f.host for f in document.fingerprints}
    for shard, name in zip(shards, ["celery@one", "local@two"], strict=True):
        assert {hosts[statements[i].fingerprint_id] for i in shard} == {name}
    fingerprints = [len({statements[i].fingerprint_id for i in shard}) for shard in shards]
    assert spread.fingerprints == fingerprints and spread.rounds == [20, 20]
    assert document.sharding is not None and document.sharding.startswith(
        f"spread over 2 hosts, each running every variant for its own fingerprints (shard 1 on "
        f"celery@one: {fingerprints[0]} fingerprints, 20 rounds; shard 2 on local@two: {fingerprints[1]}"
    ), document.sharding
    assert document.sharding in summary_lines(document)  # the CLI's report says it too
