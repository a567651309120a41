"""The annotation trie: :func:`nodes_along` reports, on the way to one place, exactly the nodes (and
in the order) that :func:`match_paths` reports at each place on that way, reading nothing else."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from jobschema.schemas import registry
from jobschema.schemas.annotated import compile_pruned, match_paths, nodes_along
from tests.support import CAPTURES, all_examples, case_id, load_json

CASES = [case for case in all_examples() if case[1].suffix == ".json"]


def _by_place(trie: Any, payload: Any) -> dict[tuple[Any, ...], list[int]]:
    places: dict[tuple[Any, ...], list[int]] = defaultdict(list)
    for path, _, node in match_paths(trie, payload):
        places[tuple(path)].append(id(node))
    return places


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_nodes_along_a_place_are_those_match_paths_reports_on_the_way(case: tuple[str, Path]) -> None:
    schema, path = case
    trie = compile_pruned(registry.load(schema).document)
    payload = load_json(path)
    places = _by_place(trie, payload)
    for place in places:
        along: dict[int, list[int]] = defaultdict(list)
        for depth, node in nodes_along(trie, payload, place):
            along[depth].append(id(node))
        expected = {
            depth: places[place[:depth]] for depth in range(len(place) + 1) if place[:depth] in places
        }
        assert dict(along) == expected
        spelled = tuple(str(token) if isinstance(token, int) else token for token in place)
        assert [(d, n) for d, n in nodes_along(trie, payload, spelled)] == list(
            nodes_along(trie, payload, place)
        )


def test_nodes_along_stops_where_the_payload_does() -> None:
    trie = compile_pruned(registry.load("aihc-job-detail").document)
    payload = load_json(CAPTURES / "aihc-job-detail" / "multi-pod-pytorch.json")
    deep = max((tuple(path) for path, _, _ in match_paths(trie, payload) if 3 in path), key=len)
    pods = deep.index(3)
    reached = list(nodes_along(trie, payload, deep[:pods]))
    assert len(list(nodes_along(trie, payload, deep))) > len(reached)
    for gone in (99, "99", "²", -1, True):
        assert list(nodes_along(trie, payload, (*deep[:pods], gone, *deep[pods + 1 :]))) == reached
