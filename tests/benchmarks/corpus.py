"""Seeded corpora for the benchmarks: realistic, varied, valid payloads of both APIs.

Every payload starts from a bundled capture in ``schemas/examples/`` and is varied from one
``random.Random(seed)``: names, ids (UUID4s drawn from that random), timestamps (shifted together so
their order holds), environment variables, resources, and for AIHC PyTorch jobs the number of pods
(pod names, IPs, ``RANK``/``WORLD_SIZE``, replica counts and the raw-request annotation follow).
The same seed always gives the same bytes, so anyone can regenerate the corpora and the numbers.
"""

from __future__ import annotations

import copy
import json
import random
import re
import string
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "schemas" / "examples"
SCHEMAS = ROOT / "schemas"
RUNAI = "runai-distributed-workload"
AIHC = "aihc-job-detail"
RAW_REQUEST_KEY = "aijob.cce.baidubce.com/raw-request"
SEED = 20250611

RUNAI_TEMPLATES = ("completed-job", "mpi-job", "pytorch-master-differs", "same-as-worker")
# (template, weight); the PyTorch template is the one whose pod count varies.
AIHC_TEMPLATES = (("created-job", 1), ("finished-job", 2), ("mpi-job", 2), ("multi-pod-pytorch", 5))
PYTORCH = "multi-pod-pytorch"

MODELS = (
    "llama3-8b-sft",
    "llama3-70b-lora",
    "qwen2-7b-pretrain",
    "qwen2-72b-dpo",
    "mixtral-8x7b-ft",
    "bert-large-mlm",
    "resnet152-imagenet",
    "whisper-large-asr",
    "deepseek-moe-16b",
    "glm4-9b-chat",
    "vit-h14-clip",
    "t5-xl-summarize",
)
USERS = (
    "maria.keller@example-lab.org",
    "jonas.weber@example-lab.org",
    "li.wei@example-lab.org",
    "ana.souza@example-lab.org",
    "hpc-bench@example-lab.org",
    "ml-pipelines@example-lab.org",
)
ENV_POOL = (
    ("NCCL_SOCKET_IFNAME", ("eth0", "bond0", "ib0")),
    ("NCCL_IB_GID_INDEX", ("3", "0")),
    ("NCCL_IB_TIMEOUT", ("22", "18")),
    ("NCCL_NET_GDR_LEVEL", ("2", "5")),
    ("TORCH_NCCL_ASYNC_ERROR_HANDLING", ("1", "0")),
    ("OMP_NUM_THREADS", ("4", "8", "16")),
    ("HF_HOME", ("/mnt/cluster/hf-cache", "/cache/hf")),
    ("HF_DATASETS_OFFLINE", ("1", "0")),
    ("WANDB_PROJECT", ("llm-ft", "pretrain", "eval")),
    ("WANDB_MODE", ("offline", "online")),
    ("TOKENIZERS_PARALLELISM", ("false", "true")),
    ("PYTORCH_CUDA_ALLOC_CONF", ("expandable_segments:True", "max_split_size_mb:512")),
    ("MAX_JOBS", ("8", "16")),
    ("LOG_LEVEL", ("INFO", "DEBUG", "WARNING")),
)
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z")
_ALNUM = string.ascii_lowercase + string.digits


@cache
def template_text(schema: str, name: str) -> str:
    """The bundled capture ``schemas/examples/<schema>/<name>.json`` as text."""
    return (EXAMPLES / schema / f"{name}.json").read_text(encoding="utf-8")


def schema_path(schema: str) -> Path:
    """The file of a bundled schema in the source tree."""
    return SCHEMAS / f"{schema}.schema.json"


class Generator:
    """Draws payloads from one seeded random: the same seed gives the same payloads."""

    def __init__(self, seed: int = SEED) -> None:
        self.rng = random.Random(seed)

    def uuid4(self) -> str:
        """A version-4 UUID from the seeded random (never from the OS)."""
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def suffix(self, length: int) -> str:
        """Random lowercase letters and digits, like the suffixes the platforms append to names."""
        return "".join(self.rng.choice(_ALNUM) for _ in range(length))

    def moment(self) -> datetime:
        """A moment in 2025, to the second."""
        start = datetime(2025, 1, 1, tzinfo=UTC)
        return start + timedelta(seconds=self.rng.randrange(0, 330 * 86400))

    def extra_envs(self, low: int, high: int) -> list[tuple[str, str]]:
        """A random set of ``(name, value)`` environment variables from a realistic pool."""
        chosen = self.rng.sample(ENV_POOL, self.rng.randint(low, high))
        return [(name, self.rng.choice(values)) for name, values in chosen]

    # Run:ai -----------------------------------------------------------------------------------------

    def runai(self) -> dict[str, Any]:
        """A Run:ai distributed workload (``GET /api/v1/workloads/distributed/{id}``)."""
        text = template_text(RUNAI, self.rng.choice(RUNAI_TEMPLATES))
        base = json.loads(text)
        requested = f"{self.rng.choice(MODELS)}-{self.suffix(3)}"
        text = text.replace(base["requestedName"], requested)
        text = text.replace(base["workloadId"], self.uuid4()).replace(base["clusterId"], self.uuid4())
        payload = json.loads(text)
        payload["name"] = f"{requested}-{self.suffix(5)}"
        payload["projectId"] = str(self.rng.randint(4000, 9999))
        payload["departmentId"] = str(self.rng.randint(4000, 9999))
        payload["createdBy"] = self.rng.choice(USERS)
        created = self.moment() + timedelta(milliseconds=self.rng.randrange(1000))
        payload["createdAt"] = created.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        self._runai_spec(payload["spec"])
        master = payload.get("masterSpec")
        if isinstance(master, dict) and isinstance(master.get("environmentVariables"), list):
            master["environmentVariables"] += self._runai_envs(master["environmentVariables"], 0, 2)
        return payload

    def _runai_spec(self, spec: dict[str, Any]) -> None:
        if isinstance(spec.get("environmentVariables"), list):
            spec["environmentVariables"] += self._runai_envs(spec["environmentVariables"], 0, 6)
        compute = spec.get("compute")
        if isinstance(compute, dict):
            cores = self.rng.choice((2, 4, 8, 16, 24, 32))
            compute["cpuCoreRequest"] = cores
            compute["cpuCoreLimit"] = cores * self.rng.choice((1, 2))
            memory = self.rng.choice((8, 16, 32, 64, 128, 256))
            compute["cpuMemoryRequest"] = f"{memory}Gi"
            compute["cpuMemoryLimit"] = f"{memory * self.rng.choice((1, 2))}Gi"
            if compute.get("gpuDevicesRequest"):
                compute["gpuDevicesRequest"] = self.rng.choice((1, 2, 4, 8))
        workers = self.rng.randint(1, 16)
        spec["numWorkers"] = workers
        if spec.get("distributedFramework") == "PyTorch" and spec.get("maxReplicas") is not None:
            spec["maxReplicas"] = workers + 1
            spec["minReplicas"] = self.rng.randint(1, workers + 1)

    def _runai_envs(self, existing: list[Any], low: int, high: int) -> list[dict[str, Any]]:
        taken = {item.get("name") for item in existing if isinstance(item, dict)}
        return [
            {"name": name, "value": value, "exclude": False}
            for name, value in self.extra_envs(low, high)
            if name not in taken
        ]

    # AIHC -------------------------------------------------------------------------------------------

    def aihc(self, pods: int | None = None, max_pods: int = 8) -> dict[str, Any]:
        """An AIHC job detail (``GET /api/v1/aijobs/{jobId}``); ``pods`` forces a PyTorch job with
        that many pods."""
        if pods is None:
            names, weights = zip(*AIHC_TEMPLATES, strict=True)
            name = self.rng.choices(names, weights)[0]
        else:
            name = PYTORCH
        payload = self._aihc_renamed(template_text(AIHC, name))
        result = payload["result"]
        envs = self.extra_envs(1, 5)
        resources = self._aihc_resources(result)
        raw = self._raw_request(result, envs, resources)
        if name == PYTORCH:
            count = pods if pods is not None else self.rng.randint(2, max_pods)
            raw = self._pytorch_pods(result, count, raw)
        for pod in _pods(result):
            pod["envs"][-1:-1] = [{"name": n, "value": v} for n, v in envs]
            if raw is not None:
                pod["objectMeta"]["annotations"][RAW_REQUEST_KEY] = raw
        result["envs"] += [{"name": n, "value": v} for n, v in envs]
        result["labels"].append(
            {"key": "team", "value": self.rng.choice(("nlp", "vision", "speech", "infra"))}
        )
        return payload

    def _aihc_renamed(self, text: str) -> dict[str, Any]:
        """The capture with a new job name, job id, k8s uid, request id and shifted timestamps."""
        base = json.loads(text)["result"]
        name = f"{self.rng.choice(MODELS)}-{self.suffix(4)}"
        prefix = base["jobId"].split("-", 1)[0]
        text = text.replace(base["jobId"], f"{prefix}-{self.uuid4()}")
        text = text.replace(base["k8sUID"], self.uuid4()).replace(base["name"], name)
        text = text.replace(base["resourcePoolId"], f"cce-{self.suffix(8)}")
        shift = self.moment() - datetime.fromisoformat(base["createdAt"].replace("Z", "+00:00"))
        text = _TIMESTAMP.sub(lambda m: _shifted(m.group(0), shift), text)
        payload = json.loads(text)
        payload["requestId"] = self.uuid4()
        return payload

    def _aihc_resources(self, result: dict[str, Any]) -> dict[str, int]:
        """New cpu and memory quantities for the job (GPU counts stay what the capture has)."""
        changed = {
            "cpu": self.rng.choice((8, 16, 32, 64, 96, 128)),
            "memory": self.rng.choice((32, 64, 256, 512)),
        }
        for item in result["resources"]:
            if item["name"] in changed:
                item["quantity"] = changed[item["name"]]
        return changed

    def _raw_request(
        self, result: dict[str, Any], envs: list[tuple[str, str]], resources: dict[str, int]
    ) -> str | None:
        """The raw-request annotation, with the new environment and resources in every role."""
        pods = _pods(result)
        text = pods[0]["objectMeta"]["annotations"].get(RAW_REQUEST_KEY) if pods else None
        if not isinstance(text, str):
            return None
        raw = json.loads(text)
        for spec in raw["jobSpec"].values():
            spec["env"] = {**(spec.get("env") or {}), **dict(envs)}
            spec["resource"] = {**(spec.get("resource") or {}), **resources}
        return json.dumps(raw, ensure_ascii=False, separators=(",", ":"))

    def _pytorch_pods(self, result: dict[str, Any], count: int, raw: str | None) -> str | None:
        """``count`` pods: master-0 and workers 0..count-2, with consistent names, IPs, RANK, WORLD_SIZE;
        returns the raw-request annotation with the new worker count."""
        pods = _pods(result)
        master, worker = json.dumps(pods[0]), json.dumps(pods[1])
        result["podList"]["pods"] = [
            pytorch_pod(master, worker, result["name"], rank, count) for rank in range(count)
        ]
        return resize_job(result, count, raw)

    def many_pods(self) -> int:
        """A pod count for the file corpus: mostly small jobs, a quarter mid-size, a few large ones."""
        draw = self.rng.random()
        if draw < 0.70:
            return self.rng.randint(2, 8)
        if draw < 0.95:
            return self.rng.randint(9, 32)
        return self.rng.randint(48, 128)


def pytorch_pod(master: str, worker: str, job: str, rank: int, count: int) -> dict[str, Any]:
    """Pod ``rank`` of ``count`` of the PyTorch job ``job``, from the JSON of a master and a worker pod."""
    pod = json.loads(master if rank == 0 else worker)
    index = 0 if rank == 0 else rank - 1
    role = "master" if rank == 0 else "worker"
    pod["objectMeta"]["name"] = f"{job}-{role}-{index}"
    pod["objectMeta"]["labels"]["training.kubeflow.org/replica-index"] = str(index)
    address = f"10.{20 + rank // 62500}.{rank // 250 % 250}.{rank % 250 + 2}"
    pod["PodIP"] = pod["nodeName"] = address
    for env in pod["envs"]:
        if env["name"] == "RANK":
            env["value"] = str(rank)
        elif env["name"] == "WORLD_SIZE":
            env["value"] = str(count)
    return pod


def resize_job(result: dict[str, Any], count: int, raw: str | None) -> str | None:
    """Set the job's replica and pod counts to ``count``; returns the raw-request with ``count - 1``
    workers (None when there is none)."""
    result["podList"]["listMeta"]["totalItems"] = count
    result["replicas"] = count
    if raw is None:
        return None
    spec = json.loads(raw)
    spec["jobSpec"]["Worker"]["replicas"] = count - 1
    return json.dumps(spec, ensure_ascii=False, separators=(",", ":"))


def _pods(result: dict[str, Any]) -> list[dict[str, Any]]:
    pod_list = result.get("podList")
    return pod_list.get("pods", []) if isinstance(pod_list, dict) else []


def _shifted(text: str, shift: timedelta) -> str:
    moment = datetime.fromisoformat(text.replace("Z", "+00:00")) + shift
    spec = "milliseconds" if "." in text else "seconds"
    return moment.isoformat(timespec=spec).replace("+00:00", "Z")


# Corpora on disk ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FileCorpus:
    """A folder of payload files, one subfolder per schema (check-jsonschema takes one schema per run);
    ``broken`` names the files made invalid on purpose and how."""

    root: Path
    files: dict[str, list[Path]]
    broken: dict[Path, tuple[str, str]] = field(default_factory=dict)

    @property
    def count(self) -> int:
        """How many files the corpus holds."""
        return sum(len(paths) for paths in self.files.values())

    @property
    def size(self) -> int:
        """Total bytes of the files."""
        return sum(path.stat().st_size for paths in self.files.values() for path in paths)


def write_files(root: Path, count: int, seed: int = SEED, invalid_every: int = 0) -> FileCorpus:
    """``count`` pretty-printed files (as captures are saved), half Run:ai and half AIHC. With
    ``invalid_every=N``, one file in N is made invalid by :func:`break_payload`; every other file is
    byte for byte the one of the valid corpus of the same seed."""
    gen = Generator(seed)
    files: dict[str, list[Path]] = {RUNAI: [], AIHC: []}
    broken: dict[Path, tuple[str, str]] = {}
    for schema in files:
        (root / schema).mkdir(parents=True, exist_ok=True)
    for index in range(count):
        schema = RUNAI if index % 2 == 0 else AIHC
        payload = file_payload(gen, schema)
        path = root / schema / f"{index:05d}.json"
        if invalid_every and index % invalid_every == invalid_every // 2:
            # Its own random, so the files after it stay those of the valid corpus.
            broken[path] = break_payload(payload, random.Random(seed * 1_000_003 + index))
        path.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        files[schema].append(path)
    return FileCorpus(root, files, broken)


#: The documentation's own examples: every payload of the warnings corpus carries what they carry.
DOC_EXAMPLES = {RUNAI: EXAMPLES / RUNAI / "seed.json", AIHC: EXAMPLES / AIHC / "seed.json"}


def warning_files(root: Path, count: int, seed: int = SEED, indent: int = 2) -> FileCorpus:
    """``count`` files as a corpus recorded from one real cluster looks: every snapshot alike and
    every one carrying warnings. Run:ai payloads are the official documentation example (a deprecated
    ``masterSpec``, ``priorityClass`` not a known value, ``minReplicas`` with MPI, ...: 13 warnings)
    with fresh names and ids; AIHC payloads are drawn as in :func:`write_files`, with a framework and
    pod replica types the documentation does not list (1 warning, and 1 per pod). ``indent``: the
    files' indent (4 is what ``kubectl -o json`` and ``json.dumps(indent=4)`` write)."""
    gen = Generator(seed)
    files: dict[str, list[Path]] = {RUNAI: [], AIHC: []}
    for schema in files:
        (root / schema).mkdir(parents=True, exist_ok=True)
    runai_seed = json.loads(DOC_EXAMPLES[RUNAI].read_text(encoding="utf-8"))
    for index in range(count):
        schema = RUNAI if index % 2 == 0 else AIHC
        if schema == RUNAI:
            payload = copy.deepcopy(runai_seed)
            payload["name"] = f"{gen.rng.choice(MODELS)}-{gen.suffix(5)}"
            payload["workloadId"] = gen.uuid4()
        else:
            payload = file_payload(gen, schema)
            payload["result"]["jobFramework"] = "RayJob"
            for pod in payload["result"].get("podList", {}).get("pods") or []:
                pod["replicaType"] = "Worker"
        path = root / schema / f"{index:05d}.json"
        path.write_text(json.dumps(payload, indent=indent, ensure_ascii=False) + "\n", encoding="utf-8")
        files[schema].append(path)
    return FileCorpus(root, files)


def break_payload(payload: dict[str, Any], rng: random.Random) -> tuple[str, str]:
    """Make ``payload`` invalid in one of the ways real captures are (a wrong type, a bad date-time, a
    value outside an enum, a missing required property), deep in a pod where the job has pods;
    returns how: the kind (the JSON Schema keyword that fails) and the pointer of the error."""
    if "workloadId" in payload:
        kinds = [
            ("format /createdAt", lambda: payload.__setitem__("createdAt", "last tuesday")),
            ("type /spec/numWorkers", lambda: payload["spec"].__setitem__("numWorkers", "four")),
            ("enum /desiredPhase", lambda: payload.__setitem__("desiredPhase", "Sleeping")),
            ("required ", lambda: payload.pop("createdBy")),
        ]
    elif _pods(payload["result"]):
        index = rng.randrange(len(_pods(payload["result"])))
        pod = _pods(payload["result"])[index]
        kinds = [
            (f"{kind} /result/podList/pods/{index}{where}", edit) for kind, where, edit in pod_breaks(pod)
        ]
    else:
        result = payload["result"]
        kinds = [
            ("format /result/createdAt", lambda: result.__setitem__("createdAt", "yesterday")),
            ("type /result/labels/0/value", lambda: result["labels"][0].__setitem__("value", 7)),
        ]
    name, edit = rng.choice(kinds)
    edit()
    kind, pointer = name.split(" ", 1)
    return kind, pointer


def pod_breaks(pod: dict[str, Any]) -> list[tuple[str, str, Callable[[], object]]]:
    """The ways :func:`break_payload` breaks an AIHC pod: ``(kind, pointer under the pod, edit)``."""
    return [
        ("type", "/restartCount", lambda: pod.__setitem__("restartCount", "three")),
        (
            "format",
            "/objectMeta/creationTimestamp",
            lambda: pod["objectMeta"].__setitem__("creationTimestamp", "yesterday"),
        ),
        ("enum", "/podStatus/podPhase", lambda: pod["podStatus"].__setitem__("podPhase", "Sleeping")),
        ("required", "", lambda: pod.pop("replicaType")),
        ("type", "/envs/0/value", lambda: pod["envs"][0].__setitem__("value", 7)),
    ]


def file_payload(gen: Generator, schema: str) -> dict[str, Any]:
    """A payload of the file corpus: half the AIHC jobs from any capture (0-8 pods), half PyTorch
    jobs with a drawn pod count (2-128)."""
    if schema == RUNAI:
        return gen.runai()
    return gen.aihc(pods=None if gen.rng.random() < 0.5 else gen.many_pods())


#: Distinct payloads drawn for an NDJSON file; longer files reuse them with fresh ids (drawing every
#: line afresh would make writing 50,000 lines take longer than validating them).
NDJSON_POOL = 2000


def ndjson_lines(count: int | None, seed: int = SEED) -> Iterator[str]:
    """``count`` compact JSON lines (endless when None), alternating Run:ai and AIHC (AIHC jobs with up
    to 8 pods).

    The first :data:`NDJSON_POOL` lines are drawn as usual; later lines repeat them with a fresh
    ``workloadId`` (Run:ai) or ``jobId`` and ``requestId`` (AIHC), replaced wherever they occur."""
    for line, _ids in ndjson_records(count, seed):
        yield line


def ndjson_records(count: int | None, seed: int = SEED) -> Iterator[tuple[str, tuple[str, ...]]]:
    """The lines of :func:`ndjson_lines` with their ids: ``(workloadId,)`` for Run:ai,
    ``(jobId, requestId)`` for AIHC."""
    gen = Generator(seed)
    pool: list[tuple[str, tuple[str, ...]]] = []
    index = 0
    while count is None or index < count:
        if index < NDJSON_POOL:
            payload = gen.runai() if index % 2 == 0 else gen.aihc()
            line = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
            pool.append((line, _ids(payload)))
            yield line, pool[-1][1]
        else:
            line, ids = pool[index % NDJSON_POOL]
            fresh = tuple(_fresh(gen, old) for old in ids)
            for old, new in zip(ids, fresh, strict=True):
                line = line.replace(old, new)
            yield line, fresh
        index += 1


def _ids(payload: dict[str, Any]) -> tuple[str, ...]:
    if "workloadId" in payload:
        return (payload["workloadId"],)
    return (payload["result"]["jobId"], payload["requestId"])


def _fresh(gen: Generator, old: str) -> str:
    """A new id shaped like ``old``: a UUID4, keeping a ``pytorchjob-``-style prefix."""
    prefix = old[: -len("00000000-0000-0000-0000-000000000000")]
    return prefix + gen.uuid4()


def write_ndjson(paths: dict[int, Path], seed: int = SEED) -> None:
    """Write NDJSON files of several lengths in one pass: each is a prefix of the longest."""
    handles = {length: path.open("w", encoding="utf-8") for length, path in paths.items()}
    try:
        for index, line in enumerate(ndjson_lines(max(paths), seed)):
            for length, handle in handles.items():
                if index < length:
                    handle.write(line + "\n")
    finally:
        for handle in handles.values():
            handle.close()


# Diff snapshots -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Snapshots:
    """Two snapshots of one AIHC job: ``right`` is ``left`` reordered plus exactly three real edits."""

    left: dict[str, Any]
    right: dict[str, Any]
    edits: tuple[str, ...]


def diff_snapshots(pods: int, seed: int = SEED) -> Snapshots:
    """``left`` with ``pods`` pods; ``right`` with pods and every pod's envs shuffled, and three edits:
    one worker's ``NCCL_DEBUG`` value changed, one env added to another pod, one job label changed."""
    gen = Generator(seed + pods)
    return edited_pair(gen.aihc(pods=pods), gen)


def edited_pair(left: dict[str, Any], gen: Generator) -> Snapshots:
    """``left`` and a copy of it with pods and envs shuffled and the three edits of
    :func:`diff_snapshots` (``left`` is a PyTorch job with at least three pods)."""
    right = copy.deepcopy(left)
    result = right["result"]
    shuffled = result["podList"]["pods"]
    pods = len(shuffled)
    by_name = {pod["objectMeta"]["name"]: pod for pod in shuffled}
    job = result["name"]
    changed, added = by_name[f"{job}-worker-{(pods - 2) // 2}"], by_name[f"{job}-worker-{pods - 2}"]
    _env(changed, "NCCL_DEBUG")["value"] = "WARN"
    added["envs"].append({"name": "NCCL_ASYNC_ERROR_HANDLING", "value": "1"})
    next(item for item in result["labels"] if item["key"] == "team")["value"] = "research"
    gen.rng.shuffle(shuffled)
    for pod in shuffled:
        gen.rng.shuffle(pod["envs"])
    edits = (
        f"result.podList.pods[objectMeta.name={changed['objectMeta']['name']}].envs[name=NCCL_DEBUG].value",
        f"result.podList.pods[objectMeta.name={added['objectMeta']['name']}].envs[name=NCCL_ASYNC_ERROR_HANDLING]",
        "result.labels[key=team].value",
    )
    return Snapshots(left, right, edits)


def _env(pod: dict[str, Any], name: str) -> dict[str, Any]:
    return next(env for env in pod["envs"] if env["name"] == name)


_WRITTEN: dict[tuple[Path, int, int, int], FileCorpus] = {}


def cached_warning_files(workdir: Path, count: int, seed: int = SEED, indent: int = 2) -> FileCorpus:
    """:func:`warning_files` into ``workdir``, once per run."""
    key = (workdir, count, seed, -indent)
    if key not in _WRITTEN:
        name = f"files-{count}-warnings" + (f"-indent{indent}" if indent != 2 else "")
        _WRITTEN[key] = warning_files(workdir / name, count, seed, indent)
    return _WRITTEN[key]


def cached_files(workdir: Path, count: int, seed: int = SEED, invalid_every: int = 0) -> FileCorpus:
    """:func:`write_files` into ``workdir``, once per run: the benchmarks that share a corpus reuse it."""
    key = (workdir, count, seed, invalid_every)
    if key not in _WRITTEN:
        suffix = f"-invalid{invalid_every}" if invalid_every else ""
        _WRITTEN[key] = write_files(workdir / f"files-{count}{suffix}", count, seed, invalid_every)
    return _WRITTEN[key]
