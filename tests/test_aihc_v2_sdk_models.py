"""The aihc-v2-job schema against the models of Baidu's Python SDK (baiducloud-python-sdk-aihc, the
client AIHC v2 integrations use): every member each model's ``to_dict`` writes is a property of the
schema's matching definition, and answers the SDK's own models build from random values pass the
schema (warnings allowed where a value is not a known one; the semantic rules judge how the random
values fit together, so they are left out here)."""

from __future__ import annotations

import importlib
import inspect
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobschema.schemas import registry
from jobschema.validate import validate_payload

pytest.importorskip("baiducloud_python_sdk_aihc", reason="the test extra brings Baidu's AIHC SDK")

#: SDK model (module, class) -> the schema definition that describes what its to_dict writes.
MODELS = {
    ("describe_job_response", "DescribeJobResponse"): "#",
    ("job_item", "JobItem"): "JobFields",
    ("job_spec", "JobSpec"): "JobSpec",
    ("pod", "Pod"): "Pod",
    ("data_source", "DataSource"): "DataSource",
    ("label", "Label"): "KeyValue",
    ("job_time_line", "JobTimeLine"): "JobTimeLine",
    ("resource", "Resource"): "Resource",
    ("env", "Env"): "NameValue",
    ("image_config", "ImageConfig"): "ImageConfig",
    ("option", "Option"): "DataSourceOptions",
}
SCHEMA = registry.load("aihc-v2-job").document


def _model(module: str, name: str) -> type:
    return getattr(importlib.import_module(f"baiducloud_python_sdk_aihc.models.{module}"), name)


def _written(model: type) -> list[str]:
    """The JSON members ``to_dict`` writes (``result['key'] = ...``), read from its source; a
    response's ``metadata`` is the SDK's record of the HTTP answer (headers), not a member."""
    found = re.findall(r"result\['(\w+)'\]", inspect.getsource(model.to_dict))
    return [key for key in found if key != "metadata"]


def _properties(definition: str) -> set[str]:
    if definition == "#":
        return set(SCHEMA["properties"])
    found = set(SCHEMA["$defs"][definition].get("properties", {}))
    return found | (set(SCHEMA["$defs"]["JobItem"]["properties"]) if definition == "JobFields" else set())


@pytest.mark.parametrize(("model", "definition"), list(MODELS.items()), ids=str)
def test_every_member_the_sdk_writes_is_in_the_schema(model: tuple[str, str], definition: str) -> None:
    written = _written(_model(*model))
    assert written, model
    assert sorted(set(written) - _properties(definition)) == []


# --- random answers built by the SDK's models -------------------------------------------------------------

_TYPE = re.compile(r":type (\w+): ([\w\[\]]+)")
_TIME = st.datetimes(min_value=__import__("datetime").datetime(2020, 1, 1)).map(
    lambda t: t.strftime("%Y-%m-%dT%H:%M:%SZ")
)
_CLASSES = {name: module for (module, name) in MODELS}


#: Members the API always sends: a list item's key and value, the job's id, name and status (the SDK's
#: models let them be None; an answer never does). The rest may be absent.
ALWAYS = {"name", "key", "value", "quantity", "mount_path", "condition_type", "jobid", "status"}


def _value(name: str, kind: str, depth: int) -> st.SearchStrategy[Any]:  # noqa: PLR0911 - one per kind
    if kind.startswith("List["):
        inner = kind[5:-1]
        return st.lists(_value(name, inner, depth + 1), max_size=3 if depth < 2 else 0)
    if kind[:1].isupper():  # a model of its own: every one the SDK nests is walked above
        return _instance(kind, depth + 1)
    if kind == "int":
        return st.integers(0, 64)
    if kind == "float":
        return st.floats(0, 64, allow_nan=False)
    if kind == "bool":
        return st.booleans()
    if name.endswith("_at") or name == "time":
        return _TIME
    if "ip" in name.split("_"):
        return st.ip_addresses(v=4).map(str)
    return st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=12)


def _instance(name: str, depth: int = 0) -> st.SearchStrategy[Any]:
    model = _model(_CLASSES[name], name)
    types = dict(_TYPE.findall(model.__init__.__doc__ or ""))
    fields = {param: _value(param, kind, depth) for param, kind in types.items()}
    optional = {
        param: strategy if param in ALWAYS else st.none() | strategy for param, strategy in fields.items()
    }
    return st.fixed_dictionaries(optional).map(lambda kwargs: model(**kwargs))


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(
    job=_instance("JobItem"),
    request_id=st.uuids().map(str),
)
def test_answers_built_by_the_sdk_models_validate(job: Any, request_id: str) -> None:
    from baiducloud_python_sdk_aihc.models.describe_job_response import DescribeJobResponse

    answer = DescribeJobResponse(request_id=request_id, job=job).to_dict()
    answer.pop("metadata", None)
    result = validate_payload(answer, "aihc-v2-job")
    # The schema accepts every shape the SDK writes; the semantic rules (aihc-v2-*: pod names repeated,
    # a terminal status without finishedAt, ...) judge how random values fit together, not the shape.
    shape = [f for f in result.findings if f.severity == "error" and not f.rule.startswith("aihc-v2-")]
    assert shape == [], shape
