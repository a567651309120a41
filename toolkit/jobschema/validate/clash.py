"""Which captures of a history rule each other out: when every capture is accepted by some version
of its API but no version accepts them all, the fewest captures that no version accepts together.

Each capture rules out the versions that do not accept it; a set of captures conflicts when together
they rule out every version. The fewest such captures are a smallest cover of the versions by what
each capture rules out: with a handful of versions (Run:ai's seven, AIHC's two) that is a search over
sets of versions, linear in the number of captures (captures accepted by the same versions are one
choice, the first of them stands for the others). Ties go to the captures that come first in input
order, so the answer is deterministic.

>>> from jobschema.validate.accepted import judge_paths
>>> judged = judge_paths([
...     "tests/examples/versions/mig-profile-in-2.24.json",
...     "schemas/examples/runai-distributed-workload/mpi-job.json",
... ])
>>> [verdict.source.rsplit("/", 1)[-1] for verdict in conflicting(judged)]
['mig-profile-in-2.24.json', 'mpi-job.json']
"""

from __future__ import annotations

from jobschema.validate.accepted import Judgement, Verdict


def conflicting(judged: Judgement) -> tuple[Verdict, ...]:
    """The fewest captures of ``judged`` that no version accepts together, in input order; none when
    some version accepts every capture, or when a capture is accepted by no version at all (it rules
    every version out alone: its own lines say why)."""
    known = judged.versions
    if judged.accepted_by_all or not judged.verdicts or any(not v.accepted for v in judged.verdicts):
        return ()
    every = (1 << len(known)) - 1
    firsts: dict[int, int] = {}  # the versions a capture rules out -> the first capture doing so
    for index, verdict in enumerate(judged.verdicts):
        out = every & ~sum(1 << known.index(v) for v in verdict.accepted if v in known)
        firsts.setdefault(out, index)
    choices = sorted(firsts.items(), key=lambda item: item[1])
    # breadth first over the versions ruled out: the fewest captures, then the earliest ones
    reached: dict[int, tuple[int, ...]] = {0: ()}  # versions ruled out -> the earliest captures doing so
    for _size in range(len(known)):  # (each capture of a fewest set rules out a version more)
        grown: dict[int, tuple[int, ...]] = {}
        for mask, picked in reached.items():
            for out, index in choices:
                if out & ~mask == 0:
                    continue  # (it rules out nothing more: no fewest set needs it here)
                key, chosen = mask | out, tuple(sorted((*picked, index)))
                if key not in grown or chosen < grown[key]:
                    grown[key] = chosen
        if every in grown:
            return tuple(judged.verdicts[index] for index in grown[every])
        reached = grown
    return ()
