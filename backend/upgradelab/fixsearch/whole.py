"""A global remedy's side effects on the whole replay, on the search's servers (effects.py says what
is checked and why; measure.py how a global remedy's arm runs): per other fingerprint of the replay,
its sampled statements on the variant as it is and with the setting (SET SESSION for the arm's turns),
both captured (results compared), then `side_rounds` rounds of the two arms interleaved pass by pass
(the replay's round_turns), read on the pair's clock and decided by the replay's verdict. A
statistics candidate's arm runs on the second instance of the variant that holds its statistics
(second.py), against the variant as it is on the first, as its own measurement did."""

import pymysql

from upgradelab.fixsearch.candidates import Candidate
from upgradelab.fixsearch.effects import FingerprintEffect, SideEffects, check_all, judge_effect
from upgradelab.fixsearch.measure import ON_SECOND, PairOracle, new_arm, results_equal
from upgradelab.fixsearch.search import SearchCancelled
from upgradelab.measurement import pair_clock, pass_values
from upgradelab.targets.statement_timeout import StatementInterrupted


def side_effects(oracle: PairOracle, candidate: Candidate) -> SideEffects:
    """`candidate` (a global remedy) checked on the replay's other fingerprints (oracle.others),
    `oracle.side_rounds` rounds each, none started after `oracle.side_minutes`; SearchCancelled once
    interrupted."""
    by_id = {fingerprint_id: (text, statements) for fingerprint_id, text, statements in oracle.others}
    variant, passes = oracle.variant, oracle.passes

    def measure(fingerprint_id: str) -> FingerprintEffect:
        if oracle.interrupt.is_set:
            raise SearchCancelled()
        text, statements = by_id[fingerprint_id]
        as_is = new_arm(variant, "variant", statements, passes)
        if candidate.source in ON_SECOND:
            remedied = new_arm(oracle.second_side(candidate), candidate.name, statements, passes)
        else:
            remedied = new_arm(variant, candidate.name, statements, passes, candidate.settings)
        try:
            oracle.capture_arm(as_is)
            oracle.capture_arm(remedied)
        except pymysql.MySQLError as error:
            return FingerprintEffect(fingerprint_id, text, None, True, 0, f"the server refused it: {error}")
        oracle.run_rounds([as_is, remedied], oracle.side_rounds)
        clock = pair_clock(as_is.replay.clock, remedied.replay.clock)
        indexes = list(range(len(statements)))
        equal = results_equal(as_is.replay.outcomes, remedied.replay.outcomes, statements)
        before = pass_values(as_is.replay, indexes, clock)
        after = pass_values(remedied.replay, indexes, clock)
        return judge_effect(fingerprint_id, text, before, after, equal, oracle.side_rounds)

    fingerprints = [(fingerprint_id, text) for fingerprint_id, text, _ in oracle.others]
    try:
        return check_all(fingerprints, measure, rounds=oracle.side_rounds, minutes=oracle.side_minutes)
    except StatementInterrupted as stopped:
        raise SearchCancelled() from stopped
