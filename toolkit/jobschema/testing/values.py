"""Realistic leaf values for generated payloads: names, images, paths, timestamps, quantities, ids.

The schema says *what type* a value has; these strategies make it look like what the job APIs send.
They are picked by property name (:data:`STRING_HINTS`, ``Owner.key`` before ``parent.key`` before ``key``)
and by format or annotation. Every strategy here draws a few choices only, so payloads stay cheap.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

WORDS = (
    "llama", "qwen", "bert", "resnet", "gpt", "mnist", "vit", "t5", "sft", "pretrain", "ddp", "lora",
    "bench", "eval", "nccl", "allreduce", "ernie", "deepseek", "mixtral", "rl", "ppo", "dpo", "ft",
)  # fmt: skip
ENV_NAMES = (
    "NCCL_DEBUG", "NCCL_IB_DISABLE", "NCCL_SOCKET_IFNAME", "CUDA_DEVICE_MAX_CONNECTIONS", "HOME",
    "PYTHONUNBUFFERED", "MASTER_PORT", "MASTER_ADDR", "OMP_NUM_THREADS", "HF_HOME", "WANDB_PROJECT",
    "TORCH_DISTRIBUTED_DEBUG", "LOGLEVEL", "BCCL_TRACE_HANG_SIGNAL", "HF_TOKEN", "DB_PASSWORD",
)  # fmt: skip
IMAGES = (
    "nvcr.io/nvidia/pytorch:24.10-py3",
    "nvcr.io/nvidia/hpc-benchmarks:24.09",
    "registry.baidubce.com/aihc-aiak/aiak-training-llm:ubuntu22.04-cu12.3-torch2.2.0-py310",
    "registry.baidubce.com/cce-ai-native/pytorch:2.1.0-cuda12.1",
    "python:3.11",
    "gcr.io/run-ai-demo/quickstart",
    "mosaicml/llm-foundry:2.2.1_cu121",
)
COMMANDS = (
    "torchrun",
    "python",
    "/usr/sbin/sshd",
    "bash /workspace/run.sh",
    "python -m torch.distributed.run train.py --epochs=3",
    "mpirun -np 16 all_reduce_perf -b 8 -e 8G -f 2",
    "sleep 3600",
)
ARGS = (
    "--nnodes=2 --nproc_per_node=8 train.py",
    "-x my-script.py",
    "--config configs/llama3-8b-lora.yaml --output /checkpoints",
    "--epochs 10 --batch-size 32",
)
DIRS = ("workspace", "mnt", "data", "checkpoints", "home", "models", "datasets", "dev", "shm", "logs")
DOMAINS = ("example-lab.org", "aihc.bj.baidubce.com", "bos.bj.baidubce.com", "github.com", "s3.amazonaws.com")
SENTENCES = (
    "Hugging Face token for gated model downloads.",
    "Scratch space for the data loader.",
    "训练任务",
    "get job by jobid failed",
    "Resource id not found.",
    "OOMKilled",
    "",
)
QUANTITY_SUFFIXES = ("", "", "k", "M", "G", "T", "Ki", "Mi", "Gi", "Ti", "m")
LABEL_KEYS = (
    "app", "team", "stage", "example-lab.org/cost-center", "kubernetes.io/arch", "priority",
    "aijob.cce.baidubce.com/create-from-aihcp-api",
)  # fmt: skip

_BASE = datetime(2023, 1, 1, tzinfo=UTC)
_SPAN = 3 * 365 * 24 * 3600


def _pool(*parts: tuple[str, ...]) -> tuple[str, ...]:
    """Every concatenation of one item of each part: drawn with one choice, however long the value."""
    return tuple("".join(combo) for combo in itertools.product(*parts))


_NAMES = _pool(WORDS, ("", "-"), ("", *WORDS), ("", "", "-1", "-7b", "-2", "-70b", "-x7k2p"))
KUBE_NAMES = tuple(sorted({name.strip("-").replace("--", "-") for name in _NAMES}))
PATHS = _pool(("/",), DIRS) + _pool(("/",), DIRS, ("/",), DIRS + WORDS)
URLS = _pool(("https://",), DOMAINS, ("", "/v1", "/my-git/my-repo", "/datasets"))
EMAILS = _pool(WORDS, ("", ".lab"), ("@",), DOMAINS)


def choice(pool: tuple[Any, ...]) -> SearchStrategy[Any]:
    """One item of ``pool``, uniformly, with one choice (and a short repr, however large the pool)."""
    return st.sampled_from(range(len(pool))).map(pool.__getitem__)


def pick(options: Sequence[Any]) -> SearchStrategy[Any]:
    """One of a few ``options``, evenly: a wide integer modulo their number. A small ``sampled_from``
    leans hard on its first option in hypothesis' early and duplicated examples; this still shrinks
    towards the first option."""
    items = tuple(options)
    return st.integers(0, 2**20).map(lambda i: items[i % len(items)])


def kube_name() -> SearchStrategy[str]:
    """``llama-sft-7b``: one or two words, sometimes a number."""
    return choice(KUBE_NAMES)


def env_name() -> SearchStrategy[str]:
    return st.one_of(st.sampled_from(ENV_NAMES), st.sampled_from(WORDS).map(str.upper))


def path() -> SearchStrategy[str]:
    """An absolute unix path of one or two segments."""
    return choice(PATHS)


def url() -> SearchStrategy[str]:
    return choice(URLS)


def email() -> SearchStrategy[str]:
    return choice(EMAILS)


def ipv4() -> SearchStrategy[str]:
    return st.builds(lambda a, b: f"192.168.{a}.{b}", st.integers(0, 255), st.integers(1, 254))


def digits() -> SearchStrategy[str]:
    return st.integers(1, 99999).map(str)


def text() -> SearchStrategy[str]:
    """Free text: a word, a name, a sentence, or a few arbitrary characters."""
    return st.one_of(
        choice(KUBE_NAMES + SENTENCES),
        st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=8),
    )


def uuid() -> SearchStrategy[str]:
    return st.uuids().map(str)


def hostname() -> SearchStrategy[str]:
    return st.sampled_from(_pool(("", "nfs01.", "storage.", "my."), DOMAINS))


def moments() -> SearchStrategy[datetime]:
    """A UTC moment between 2023 and 2026, to the second."""
    return st.integers(0, _SPAN).map(lambda s: _BASE + timedelta(seconds=s))


def rfc3339(moment: datetime, style: int = 0) -> str:
    """``moment`` as RFC 3339: ``Z`` (style 0), ``Z`` with milliseconds (1), or ``+08:00`` (2)."""
    if style == 1:
        return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    if style == 2:
        return moment.astimezone(timezone(timedelta(hours=8))).isoformat()
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def date_time() -> SearchStrategy[str]:
    styles = st.sampled_from((0, 0, 1, 2))
    millis = st.integers(0, 999).map(lambda ms: timedelta(milliseconds=ms))
    return st.builds(lambda m, ms, s: rfc3339(m + ms, s), moments(), millis, styles)


def quantity() -> SearchStrategy[str]:
    """A Kubernetes quantity: ``64Gi``, ``500m``, ``1.5``, ``30M``."""
    number = st.one_of(st.integers(1, 1024).map(str), st.sampled_from(("0.5", "1.5", "0.25", "2.5")))
    return st.builds(lambda n, s: n + s, number, st.sampled_from(QUANTITY_SUFFIXES))


def resource_name() -> SearchStrategy[str]:
    accelerators = (
        "baidu.com/a800_80g_cgpu",
        "baidu.com/a100_40g_cgpu",
        "kunlunxin.com/xpu",
        "nvidia.com/gpu",
    )
    return st.sampled_from(("cpu", "memory", "sharedMemory", "rdma/hca", *accelerators))


def amount() -> SearchStrategy[Any]:
    """A realistic non-negative JSON number: mostly small integers, sometimes fractions."""
    return st.one_of(
        st.sampled_from((1, 2, 4, 8, 16, 32, 64, 128, 512, 0)),
        st.sampled_from((0.5, 1.5, 0.25, 2.5)),
        st.integers(0, 100000),
        st.floats(0, 1e6, allow_nan=False, allow_infinity=False),
    )


def portion() -> SearchStrategy[Any]:
    """A GPU portion in [0, 1]."""
    return st.one_of(st.sampled_from((0.1, 0.2, 0.25, 0.5, 0.75, 1, 0)), st.floats(0, 1))


def label_key() -> SearchStrategy[str]:
    return st.one_of(st.sampled_from(LABEL_KEYS), kube_name())


#: property name (``Owner.key``, ``parent.key`` or ``key``) -> strategy factory for string values
STRING_HINTS: dict[str, Any] = {
    "name": kube_name,
    "requestedName": kube_name,
    "EnvironmentVariable.name": env_name,
    "NameValue.name": env_name,
    "EnvMap.*": env_name,
    "KeyValue.key": label_key,
    "PodLabels.*": label_key,
    "PodAnnotations.*": label_key,
    "JobLabels.*": label_key,
    "ResourceMap.*": lambda: st.sampled_from(
        ("kunlunxin.com/xpu", "nvidia.com/gpu", "baidu.com/h800_80g_cgpu")
    ),
    "annotations.*": label_key,
    "nodeSelector.*": label_key,
    "image": lambda: st.sampled_from(IMAGES),
    "command": lambda: st.sampled_from(COMMANDS),
    "args": lambda: st.sampled_from(ARGS),
    "createdBy": email,
    "projectId": digits,
    "departmentId": digits,
    "requestId": uuid,
    "PodIP": ipv4,
    "nodeName": ipv4,
    "pfsL1ClusterIp": ipv4,
    "server": hostname,
    "url": url,
    "repository": url,
    "bosEndpoint": url,
    "mountPath": path,
    "path": path,
    "sourcePath": path,
    "workingDir": path,
    "hostPath": path,
    "logPath": path,
    "filePath": path,
    "sshAuthMountPath": path,
    "subPath": path,
    "message": lambda: st.sampled_from(SENTENCES[:-1]),
    "description": lambda: st.sampled_from(SENTENCES[:-1]),
    "queue": lambda: st.sampled_from(("default", "training", "high-prio")),
    "resourcePoolId": lambda: st.sampled_from(
        ("cce-e0isdmib", "cce-6zwnp4zf", "aihc-serverless", "aihc-bhcmp")
    ),
    "category": lambda: st.sampled_from(("Train", "Build", "Deploy")),
    "Resource.name": resource_name,
    "resource": resource_name,
    "k8sNamespace": lambda: st.sampled_from(("default", "runai-team-a")),
    "namespace": lambda: st.sampled_from(("default", "runai-team-a")),
}

#: property name -> strategy factory for numbers (``["integer", "number"]``)
NUMBER_HINTS: dict[str, Any] = {
    "gpuPortionRequest": portion,
    "gpuPortionLimit": portion,
}

#: property name -> (low, high) for integers without both bounds in the schema
INTEGER_RANGES: dict[str, tuple[int, int]] = {
    "replicas": (1, 8),
    "numWorkers": (1, 16),
    "minReplicas": (1, 4),
    "maxReplicas": (1, 16),
    "restartCount": (0, 5),
    "container": (1, 65535),
    "external": (30000, 32767),
    "code": (100, 599),
}
