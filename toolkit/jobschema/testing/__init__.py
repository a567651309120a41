"""Contract-testing kit: hypothesis strategies of job payloads built from the bundled schemas.

>>> from hypothesis import given
>>> from jobschema.testing import invalid_payloads, payloads
>>> from jobschema.validate import validate_payload
>>> @given(payloads("aihc-job-detail"))
... def test_detail_is_valid(payload):
...     assert validate_payload(payload, "aihc-job-detail").errors == 0

``payloads(NAME)`` draws valid payloads of a bundled schema; ``payloads(NAME, version="2.19")`` only
what that version of its API may send (its schema, :func:`jobschema.schemas.versions.schema_for`:
no property or enum value of another version, that version's patterns and bounds). A generator
walks the schema itself
(:mod:`jobschema.testing.generate`), then a thin domain layer makes the cross-field facts of real jobs
hold (:mod:`jobschema.testing.aihc`, :mod:`jobschema.testing.runai`). ``invalid_payloads(NAME)`` draws
``(payload, pointer)``: one schema violation, made at ``pointer`` (:mod:`jobschema.testing.mutate`).
``from_schema(document)`` is the bare generator for a schema of your own.

Hypothesis is imported here, so import this module from tests only; ``import jobschema`` does not.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from jobschema.schemas import registry, versions
from jobschema.testing import aihc, runai
from jobschema.testing.generate import DENSE, SPARSE, Compiler, Density
from jobschema.testing.mutate import mutations
from jobschema.testing.values import pick

__all__ = ["SCHEMAS", "from_schema", "invalid_payloads", "payloads"]

#: The bundled schema names ``payloads`` and ``invalid_payloads`` accept.
SCHEMAS: tuple[str, ...] = registry.BUNDLED


def payloads(schema_name: str, version: str | None = None) -> SearchStrategy[dict[str, Any]]:
    """Valid, realistic payloads of the bundled schema ``schema_name`` (built once, then cached);
    with ``version`` (``"2.19"``), only what that version of the schema's API may send."""
    _check_type("schema_name", schema_name, str, "a bundled schema's name (str)")
    _check_type("version", version, str | None, "a str such as '2.19', or None")
    if schema_name not in SCHEMAS:
        raise ValueError(f"{schema_name}: not a bundled schema (one of {', '.join(SCHEMAS)})")
    if version is not None:
        api = versions.api_of(registry.load(schema_name).document) or ""
        known = versions.known(api) if api else ()
        if version not in known:
            raise ValueError(f"{schema_name}: no version {version} (known: {', '.join(known) or 'none'})")
    return _payloads(schema_name, version)


def invalid_payloads(schema_name: str) -> SearchStrategy[tuple[dict[str, Any], str]]:
    """``(payload, pointer)``: a valid payload broken by one mutation, reported at ``pointer``.

    The mutation is a wrong type, a value outside an ``enum`` or a numeric bound, a bad ``format``,
    a pattern or length mismatch, or a missing required property (``pointer`` is then the object
    that lacks it, where JSON Schema reports ``required``). Mutations may reach into the embedded
    raw-request document of AIHC pods; the pointer then continues inside it.
    """
    _check_type("schema_name", schema_name, str, "a bundled schema's name (str)")
    return _invalid(payloads(schema_name), schema_name)


def _check_type(name: str, value: Any, kind: Any, expected: str) -> None:
    """An argument of the wrong type is a ``TypeError`` naming it (not a ``ValueError`` that says a
    float ``2.19`` is not the known version ``2.19``)."""
    if not isinstance(value, kind):
        raise TypeError(f"{name}: expected {expected}, not {type(value).__name__}")


def from_schema(document: dict[str, Any]) -> SearchStrategy[Any]:
    """Values valid against ``document`` (any draft 2020-12 schema with local ``$ref`` only, parsed:
    a dict)."""
    _check_type("document", document, dict, "a parsed JSON Schema (a dict)")
    return Compiler(document, _embedded).root()


@cache
def _payloads(name: str, version: str | None = None) -> SearchStrategy[dict[str, Any]]:
    return st.one_of(_build(name, SPARSE, version), _build(name, DENSE, version))


def _build(name: str, density: Density, version: str | None = None) -> SearchStrategy[dict[str, Any]]:
    document = versions.schema_for(name, version) if version else registry.load(name).document
    if name == "aihc-job-detail":
        overrides = {aihc.PODS: st.builds(list), aihc.RAW_LOCATION: st.just("")}
        compiler = Compiler(document, _embedded, overrides, density=density)
        return aihc.job_details(compiler.root(), compiler.at("#/$defs/Pod"), _raw_factory(density))
    if name == "aihc-raw-request":
        return _raw_factory(density)()
    if name == "runai-distributed-workload":
        compiler = Compiler(document, _embedded, {runai.MASTER_SPEC: st.none()}, runai.ALWAYS, density)
        union = registry.load(name).document  # (a version without migProfile never asks for one)
        mig = pick(union["$defs"]["Compute"]["properties"]["migProfile"]["enum"])
        return runai.workloads(compiler.root(), compiler.at("#/$defs/MasterSpec"), mig)
    if name == "aihc-v2-job":
        from jobschema.apis.aihc_v2 import without_nulls
        from jobschema.testing import aihc_v2

        # (the schema lets an optional member be null, as the SDKs read it: absent; a server should
        # leave it out, so the answers drawn hold none)
        return aihc_v2.answers(Compiler(document, _embedded, density=density).root()).map(without_nulls)
    return Compiler(document, _embedded, density=density).root()


@cache
def _raw_factory(density: Density) -> Any:
    document = registry.load("aihc-raw-request").document
    compiler = Compiler(document, _embedded, {aihc.JOB_SPEC: st.builds(dict)}, density=density)
    return aihc.raw_requests(compiler.root(), compiler.at("#/$defs/ReplicaSpec"))


@cache
def _invalid(valid: SearchStrategy[dict[str, Any]], name: str) -> SearchStrategy[tuple[dict[str, Any], str]]:
    return mutations(valid, registry.load(name).document, _embedded_document)


def _embedded(name: str) -> SearchStrategy[str]:
    """The JSON text of a payload of bundled schema ``name`` (for ``x-jobschema-embedded-schema``)."""
    return st.deferred(lambda: payloads(name)).map(_dumps)


def _embedded_document(name: str) -> dict[str, Any]:
    return registry.load(name).document


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
