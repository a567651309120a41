# ruff: noqa: E501 (the fact tables keep one fact a line, as the references write them)
"""Audit of the hand-authored schemas against the reference research, fact by fact.

Each row below is one fact of the reference documents (``../shared/reference/*.md``, cited as
``file:line``): a field, its JSON type, whether it may be null, its values, its format or pattern,
and how sure the reference is of it. The tests check every row against the schema, and check that
a fact is *enforced* (``enum``, ``format``, ``pattern``: a validation error) only when it is of high
confidence, and only *warned about* (``x-jobschema-known-values``, ``x-jobschema-format``,
``x-jobschema-pattern``) when it is of medium confidence; a low-confidence fact keeps the field open.

Confidence, as the references grade it: Run:ai facts from the official OpenAPI (S1) are high, unless
the official example breaks them (then medium: the seed must validate as given); AIHC ``[A]`` is
high, ``[A/B]`` and ``[B]`` are medium, ``[C]`` and ``[?]`` are low.

Fields are written as the references write them: ``a.b[].c`` (``[]`` an array item, ``{}`` a map
value); the test turns them into the payload places of :func:`jobschema.schemas.walk.places`.
"""

from __future__ import annotations

import copy
import json
from typing import Any, NamedTuple

import pytest

from jobschema.schemas.walk import Spot, places
from jobschema.validate import validate_payload
from tests.support import CAPTURES, SHARED_SEEDS, load_json, schema_document

HIGH, MEDIUM, LOW = "high", "medium", "low"

RUNAI = "runai-distributed-workload"
RUNAI_ERROR = "runai-error"
DETAIL = "aihc-job-detail"
RAW = "aihc-raw-request"
AIHC_ERROR = "aihc-error"
V2 = "aihc-v2-job"

#: A value that is an RFC 3339 timestamp or the empty string (AIHC's "not reached yet").
DATE_TIME_OR_EMPTY = "date-time-or-empty"

QUANTITY = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"  # the older [+-] sign kept (runai-api.md:135)
DNS_LABEL = "^[a-z0-9]([a-z0-9-]*[a-z0-9])?$"
MEDIUM_VALUES = "^(Memory|HugePages(-[0-9]+[KMGT]i)?)?$"  # emptydir medium, aihc-api.md:144
RESOURCE_NAME = (
    r"^(cpu|memory|sharedMemory|rdma/hca|[a-z0-9.-]+\.(com|io)/[A-Za-z0-9_.-]+)$"  # aihc-api.md:148
)
OTHER = "other"  # a pattern of its own, checked only as being enforced


class Fact(NamedTuple):
    schema: str
    field: str
    type: str | None  # string, integer, number, boolean, array, object; None: not stated
    nullable: bool | None  # None: not stated
    enum: tuple[Any, ...] | None
    fmt: str | None
    confidence: str
    source: str
    pattern: str | None = None


CAPABILITIES = (
    "AUDIT_CONTROL", "AUDIT_READ", "AUDIT_WRITE", "BLOCK_SUSPEND", "CHOWN", "DAC_OVERRIDE",
    "DAC_READ_SEARCH", "FOWNER", "FSETID", "IPC_LOCK", "IPC_OWNER", "KILL", "LEASE",
    "LINUX_IMMUTABLE", "MAC_ADMIN", "MAC_OVERRIDE", "MKNOD", "NET_ADMIN", "NET_BIND_SERVICE",
    "NET_BROADCAST", "NET_RAW", "SETGID", "SETFCAP", "SETPCAP", "SETUID", "SYS_ADMIN", "SYS_BOOT",
    "SYS_CHROOT", "SYS_MODULE", "SYS_NICE", "SYS_PACCT", "SYS_PTRACE", "SYS_RAWIO", "SYS_RESOURCE",
    "SYS_TIME", "SYS_TTY_CONFIG", "SYSLOG", "WAKE_ALARM",
)  # fmt: skip

# Run:ai Appendix A (runai-api.md:243-489, the Dec-2025 spec): (field under spec, type, nullable,
# enum, format, pattern, line). Every row holds for `masterSpec` too, but the worker-only ones.
# fmt: off
SPEC_ROWS: list[tuple[str, str, bool, Any, str | None, str | None, int]] = [
    ('annotations', 'array', True, None, None, None, 247),
    ('annotations[]', 'object', True, None, None, None, 248),
    ('annotations[].name', 'string', True, None, None, None, 249),
    ('annotations[].value', 'string', True, None, None, None, 250),
    ('annotations[].exclude', 'boolean', True, None, None, None, 251),
    ('args', 'string', True, None, None, None, 252),
    ('autoDeletionTimeAfterCompletionSeconds', 'integer', True, None, None, None, 253),
    ('backoffLimit', 'integer', True, None, None, None, 254),
    ('category', 'string', True, None, None, None, 255),
    ('cleanPodPolicy', 'string', True, ('None', 'All', 'Running'), None, None, 256),
    ('command', 'string', True, None, None, None, 257),
    ('compute', 'object', True, None, None, None, 258),
    ('compute.cpuCoreLimit', 'number', True, None, None, None, 259),
    ('compute.cpuCoreRequest', 'number', True, None, None, None, 260),
    ('compute.cpuMemoryLimit', 'string', True, None, None, QUANTITY, 261),
    ('compute.cpuMemoryRequest', 'string', True, None, None, QUANTITY, 262),
    ('compute.extendedResources', 'array', True, None, None, None, 263),
    ('compute.extendedResources[]', 'object', True, None, None, None, 264),
    ('compute.extendedResources[].resource', 'string', True, None, None, None, 265),
    ('compute.extendedResources[].quantity', 'string', True, None, None, QUANTITY, 266),
    ('compute.extendedResources[].exclude', 'boolean', True, None, None, None, 267),
    ('compute.gpuDevicesRequest', 'integer', True, None, None, None, 268),
    ('compute.gpuMemoryLimit', 'string', True, None, None, QUANTITY, 269),
    ('compute.gpuMemoryRequest', 'string', True, None, None, QUANTITY, 270),
    ('compute.gpuPortionLimit', 'number', True, None, None, None, 271),
    ('compute.gpuPortionRequest', 'number', True, None, None, None, 272),
    ('compute.gpuRequestType', 'string', True, ('portion', 'memory'), None, None, 273),
    ('compute.largeShmRequest', 'boolean', True, None, None, None, 274),
    ('createHomeDir', 'boolean', True, None, None, None, 275),
    ('distributedFramework', 'string', True, ('MPI', 'PyTorch', 'TF', 'XGBoost', 'JAX'), None, None, 276),
    ('environmentVariables', 'array', True, None, None, None, 277),
    ('environmentVariables[]', 'object', True, None, None, None, 278),
    ('environmentVariables[].name', 'string', True, None, None, None, 279),
    ('environmentVariables[].value', 'string', True, None, None, None, 280),
    ('environmentVariables[].secret', 'object', True, None, None, None, 281),
    ('environmentVariables[].secret.name', 'string', True, None, None, DNS_LABEL, 282),
    ('environmentVariables[].secret.key', 'string', True, None, None, None, 283),
    ('environmentVariables[].configMap', 'object', True, None, None, None, 284),
    ('environmentVariables[].configMap.name', 'string', True, None, None, DNS_LABEL, 285),
    ('environmentVariables[].configMap.key', 'string', True, None, None, None, 286),
    ('environmentVariables[].podFieldRef', 'object', True, None, None, None, 287),
    ('environmentVariables[].podFieldRef.path', 'string', True, None, None, None, 288),
    ('environmentVariables[].userCredential', 'object', True, None, None, None, 289),
    ('environmentVariables[].userCredential.name', 'string', True, None, None, None, 290),
    ('environmentVariables[].userCredential.key', 'string', True, None, None, None, 291),
    ('environmentVariables[].exclude', 'boolean', True, None, None, None, 292),
    ('environmentVariables[].description', 'string', True, None, None, None, 293),
    ('exposedUrls', 'array', True, None, None, None, 294),
    ('exposedUrls[]', 'object', True, None, None, None, 295),
    ('exposedUrls[].container', 'integer', True, None, None, None, 296),
    ('exposedUrls[].url', 'string', True, None, None, None, 297),
    ('exposedUrls[].authorizationType', 'string', True, ('authenticatedUsers', 'authorizedUsers', 'authorizedGroups'), None, None, 298),
    ('exposedUrls[].authorizedUsers', 'array', True, None, None, None, 299),
    ('exposedUrls[].authorizedUsers[]', 'string', False, None, None, None, 300),
    ('exposedUrls[].authorizedGroups', 'array', True, None, None, None, 301),
    ('exposedUrls[].authorizedGroups[]', 'string', False, None, None, None, 302),
    ('exposedUrls[].toolType', 'string', True, None, None, None, 303),
    ('exposedUrls[].toolName', 'string', True, None, None, None, 304),
    ('exposedUrls[].name', 'string', True, None, None, None, 305),
    ('exposedUrls[].exclude', 'boolean', True, None, None, None, 306),
    ('image', 'string', True, None, None, None, 307),
    ('imagePullPolicy', 'string', True, ('Always', 'Never', 'IfNotPresent'), None, None, 308),
    ('imagePullSecrets', 'array', True, None, None, None, 309),
    ('imagePullSecrets[]', 'object', True, None, None, None, 310),
    ('imagePullSecrets[].name', 'string', False, None, None, DNS_LABEL, 311),
    ('imagePullSecrets[].userCredential', 'boolean', True, None, None, None, 312),
    ('imagePullSecrets[].exclude', 'boolean', True, None, None, None, 313),
    ('labels', 'array', True, None, None, None, 314),
    ('labels[]', 'object', True, None, None, None, 315),
    ('labels[].name', 'string', True, None, None, None, 316),
    ('labels[].value', 'string', True, None, None, None, 317),
    ('labels[].exclude', 'boolean', True, None, None, None, 318),
    ('maxReplicas', 'integer', True, None, None, None, 319),
    ('minReplicas', 'integer', True, None, None, None, 320),
    ('mpiLauncherCreationPolicy', 'string', True, ('AtStartup', 'WaitForWorkersReady'), None, None, 321),
    ('nodeAffinityRequired', 'object', True, None, None, None, 322),
    ('nodeAffinityRequired.nodeSelectorTerms', 'array', False, None, None, None, 323),
    ('nodeAffinityRequired.nodeSelectorTerms[]', 'object', True, None, None, None, 324),
    ('nodeAffinityRequired.nodeSelectorTerms[].matchExpressions', 'array', False, None, None, None, 325),
    ('nodeAffinityRequired.nodeSelectorTerms[].matchExpressions[]', 'object', True, None, None, None, 326),
    ('nodeAffinityRequired.nodeSelectorTerms[].matchExpressions[].key', 'string', False, None, None, None, 327),
    ('nodeAffinityRequired.nodeSelectorTerms[].matchExpressions[].operator', 'string', False, ('In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'), None, None, 328),
    ('nodeAffinityRequired.nodeSelectorTerms[].matchExpressions[].values', 'array', False, None, None, None, 329),
    ('nodeAffinityRequired.nodeSelectorTerms[].matchExpressions[].values[]', 'string', False, None, None, None, 330),
    ('nodePools', 'array', True, None, None, None, 331),
    ('nodePools[]', 'string', False, None, None, None, 332),
    ('nodeType', 'string', True, None, None, None, 333),
    ('numWorkers', 'integer', True, None, None, None, 334),
    ('podAffinity', 'object', True, None, None, None, 335),
    ('podAffinity.type', 'string', True, ('Required', 'Preferred'), None, None, 336),
    ('podAffinity.key', 'string', True, None, None, None, 337),
    ('ports', 'array', True, None, None, None, 338),
    ('ports[]', 'object', True, None, None, None, 339),
    ('ports[].container', 'integer', True, None, None, None, 340),
    ('ports[].serviceType', 'string', True, ('LoadBalancer', 'NodePort', 'ClusterIP'), None, None, 341),
    ('ports[].external', 'integer', True, None, None, None, 342),
    ('ports[].toolType', 'string', True, None, None, None, 343),
    ('ports[].toolName', 'string', True, None, None, None, 344),
    ('ports[].name', 'string', True, None, None, None, 345),
    ('ports[].exclude', 'boolean', True, None, None, None, 346),
    ('preemptibility', 'string', True, ('preemptible', 'non-preemptible'), None, None, 347),
    ('priorityClass', 'string', True, None, None, None, 348),
    ('probes', 'object', True, None, None, None, 349),
    ('probes.readiness', 'object', True, None, None, None, 350),
    ('probes.readiness.initialDelaySeconds', 'integer', True, None, None, None, 351),
    ('probes.readiness.periodSeconds', 'integer', True, None, None, None, 352),
    ('probes.readiness.timeoutSeconds', 'integer', True, None, None, None, 353),
    ('probes.readiness.successThreshold', 'integer', True, None, None, None, 354),
    ('probes.readiness.failureThreshold', 'integer', True, None, None, None, 355),
    ('probes.readiness.handler', 'object', True, None, None, None, 356),
    ('probes.readiness.handler.httpGet', 'object', False, None, None, None, 357),
    ('probes.readiness.handler.httpGet.path', 'string', True, None, None, OTHER, 358),
    ('probes.readiness.handler.httpGet.port', 'integer', True, None, None, None, 359),
    ('probes.readiness.handler.httpGet.host', 'string', True, None, 'hostname', None, 360),
    ('probes.readiness.handler.httpGet.scheme', 'string', True, ('HTTP', 'HTTPS'), None, None, 361),
    ('relatedUrls', 'array', True, None, None, None, 362),
    ('relatedUrls[]', 'object', True, None, None, None, 363),
    ('relatedUrls[].url', 'string', True, None, None, None, 364),
    ('relatedUrls[].type', 'string', True, None, None, None, 365),
    ('relatedUrls[].name', 'string', True, None, None, None, 366),
    ('relatedUrls[].exclude', 'boolean', True, None, None, None, 367),
    ('restartPolicy', 'string', True, ('Always', 'Never', 'OnFailure'), None, None, 368),
    ('security', 'object', True, None, None, None, 369),
    ('security.allowPrivilegeEscalation', 'boolean', True, None, None, None, 370),
    ('security.capabilities', 'array', True, None, None, None, 371),
    ('security.capabilities[]', 'string', False, CAPABILITIES, None, None, 372),
    ('security.hostIpc', 'boolean', True, None, None, None, 373),
    ('security.hostNetwork', 'boolean', True, None, None, None, 374),
    ('security.readOnlyRootFilesystem', 'boolean', True, None, None, None, 375),
    ('security.runAsGid', 'integer', True, None, None, None, 376),
    ('security.runAsNonRoot', 'boolean', True, None, None, None, 377),
    ('security.runAsUid', 'integer', True, None, None, None, 378),
    ('security.seccompProfileType', 'string', True, ('RuntimeDefault', 'Unconfined', 'Localhost'), None, None, 379),
    ('security.supplementalGroups', 'string', True, None, None, None, 380),
    ('security.uidGidSource', 'string', True, ('fromTheImage', 'fromIdpToken', 'custom'), None, None, 381),
    ('slotsPerWorker', 'integer', True, None, None, None, 382),
    ('sshAuthMountPath', 'string', True, None, None, None, 383),
    ('stdin', 'boolean', True, None, None, None, 384),
    ('storage', 'object', True, None, None, None, 385),
    ('storage.configMapVolume', 'array', True, None, None, None, 386),
    ('storage.configMapVolume[]', 'object', True, None, None, None, 387),
    ('storage.configMapVolume[].name', 'string', True, None, None, None, 388),
    ('storage.configMapVolume[].configMap', 'string', True, None, None, DNS_LABEL, 389),
    ('storage.configMapVolume[].mountPath', 'string', True, None, None, None, 390),
    ('storage.configMapVolume[].subPath', 'string', True, None, None, None, 391),
    ('storage.configMapVolume[].defaultMode', 'string', True, None, None, OTHER, 392),
    ('storage.configMapVolume[].exclude', 'boolean', True, None, None, None, 393),
    ('storage.dataVolume', 'array', True, None, None, None, 394),
    ('storage.dataVolume[]', 'object', True, None, None, None, 395),
    ('storage.dataVolume[].id', 'string', True, None, 'uuid', None, 396),
    ('storage.dataVolume[].mountPath', 'string', True, None, None, None, 397),
    ('storage.dataVolume[].exclude', 'boolean', True, None, None, None, 398),
    ('storage.emptyDirVolume', 'array', True, None, None, None, 399),
    ('storage.emptyDirVolume[]', 'object', True, None, None, None, 400),
    ('storage.emptyDirVolume[].name', 'string', True, None, None, None, 401),
    ('storage.emptyDirVolume[].path', 'string', True, None, None, None, 402),
    ('storage.emptyDirVolume[].medium', 'string', True, None, None, None, 403),
    ('storage.emptyDirVolume[].sizeLimit', 'string', True, None, None, QUANTITY, 404),
    ('storage.emptyDirVolume[].exclude', 'boolean', True, None, None, None, 405),
    ('storage.git', 'array', True, None, None, None, 406),
    ('storage.git[]', 'object', True, None, None, None, 407),
    ('storage.git[].name', 'string', True, None, None, None, 408),
    ('storage.git[].repository', 'string', True, None, None, None, 409),
    ('storage.git[].branch', 'string', True, None, None, None, 410),
    ('storage.git[].revision', 'string', True, None, None, None, 411),
    ('storage.git[].path', 'string', True, None, None, None, 412),
    ('storage.git[].passwordSecret', 'string', True, None, None, None, 413),
    ('storage.git[].secretKeyOfUser', 'string', True, None, None, None, 414),
    ('storage.git[].secretKeyOfPassword', 'string', True, None, None, None, 415),
    ('storage.git[].exclude', 'boolean', True, None, None, None, 416),
    ('storage.git[].secretRef', 'object', True, None, None, None, 417),
    ('storage.git[].secretRef.name', 'string', False, None, None, None, 418),
    ('storage.git[].secretRef.authenticationMethod', 'string', False, ('password', 'ssh-key'), None, None, 419),
    ('storage.git[].secretRef.secretKeyOfUser', 'string', True, None, None, None, 420),
    ('storage.git[].secretRef.secretKeyOfPassword', 'string', True, None, None, None, 421),
    ('storage.hostPath', 'array', True, None, None, None, 422),
    ('storage.hostPath[]', 'object', True, None, None, None, 423),
    ('storage.hostPath[].name', 'string', True, None, None, None, 424),
    ('storage.hostPath[].path', 'string', True, None, None, None, 425),
    ('storage.hostPath[].readOnly', 'boolean', True, None, None, None, 426),
    ('storage.hostPath[].mountPath', 'string', True, None, None, None, 427),
    ('storage.hostPath[].mountPropagation', 'string', True, ('None', 'HostToContainer'), None, None, 428),
    ('storage.hostPath[].exclude', 'boolean', True, None, None, None, 429),
    ('storage.nfs', 'array', True, None, None, None, 430),
    ('storage.nfs[]', 'object', True, None, None, None, 431),
    ('storage.nfs[].name', 'string', True, None, None, None, 432),
    ('storage.nfs[].path', 'string', True, None, None, None, 433),
    ('storage.nfs[].readOnly', 'boolean', True, None, None, None, 434),
    ('storage.nfs[].server', 'string', True, None, None, None, 435),
    ('storage.nfs[].mountPath', 'string', True, None, None, None, 436),
    ('storage.nfs[].exclude', 'boolean', True, None, None, None, 437),
    ('storage.pvc', 'array', True, None, None, None, 438),
    ('storage.pvc[]', 'object', True, None, None, None, 439),
    ('storage.pvc[].name', 'string', True, None, None, None, 440),
    ('storage.pvc[].path', 'string', True, None, None, None, 441),
    ('storage.pvc[].existingPvc', 'boolean', True, None, None, None, 442),
    ('storage.pvc[].claimName', 'string', True, None, None, None, 443),
    ('storage.pvc[].readOnly', 'boolean', True, None, None, None, 444),
    ('storage.pvc[].ephemeral', 'boolean', True, None, None, None, 445),
    ('storage.pvc[].claimInfo', 'object', True, None, None, None, 446),
    ('storage.pvc[].claimInfo.size', 'string', True, None, None, QUANTITY, 447),
    ('storage.pvc[].claimInfo.storageClass', 'string', True, None, None, DNS_LABEL, 448),
    ('storage.pvc[].claimInfo.accessModes', 'object', True, None, None, None, 449),
    ('storage.pvc[].claimInfo.accessModes.readWriteOnce', 'boolean', True, None, None, None, 450),
    ('storage.pvc[].claimInfo.accessModes.readOnlyMany', 'boolean', True, None, None, None, 451),
    ('storage.pvc[].claimInfo.accessModes.readWriteMany', 'boolean', True, None, None, None, 452),
    ('storage.pvc[].claimInfo.volumeMode', 'string', True, ('Filesystem', 'Block'), None, None, 453),
    ('storage.pvc[].claimInfo.addedAttrValues', 'array', False, None, None, None, 454),
    ('storage.pvc[].claimInfo.addedAttrValues[]', 'object', False, None, None, None, 455),
    ('storage.pvc[].claimInfo.addedAttrValues[].key', 'string', False, None, None, OTHER, 456),
    ('storage.pvc[].claimInfo.addedAttrValues[].value', 'string', False, None, None, None, 457),
    ('storage.pvc[].dataSharing', 'boolean', True, None, None, None, 458),
    ('storage.pvc[].exclude', 'boolean', True, None, None, None, 459),
    ('storage.s3', 'array', True, None, None, None, 460),
    ('storage.s3[]', 'object', True, None, None, None, 461),
    ('storage.s3[].name', 'string', True, None, None, None, 462),
    ('storage.s3[].bucket', 'string', True, None, None, None, 463),
    ('storage.s3[].path', 'string', True, None, None, None, 464),
    ('storage.s3[].url', 'string', True, None, None, None, 465),
    ('storage.s3[].accessKeySecret', 'string', True, None, None, DNS_LABEL, 466),
    ('storage.s3[].secretKeyOfAccessKeyId', 'string', True, None, None, None, 467),
    ('storage.s3[].secretKeyOfSecretKey', 'string', True, None, None, None, 468),
    ('storage.s3[].exclude', 'boolean', True, None, None, None, 469),
    ('storage.secretVolume', 'array', True, None, None, None, 470),
    ('storage.secretVolume[]', 'object', True, None, None, None, 471),
    ('storage.secretVolume[].name', 'string', True, None, None, None, 472),
    ('storage.secretVolume[].mountPath', 'string', True, None, None, None, 473),
    ('storage.secretVolume[].defaultMode', 'string', True, None, None, OTHER, 474),
    ('storage.secretVolume[].secret', 'string', True, None, None, None, 475),
    ('storage.secretVolume[].exclude', 'boolean', True, None, None, None, 476),
    ('terminateAfterPreemption', 'boolean', True, None, None, None, 477),
    ('terminationGracePeriodSeconds', 'integer', True, None, None, None, 478),
    ('tolerations', 'array', True, None, None, None, 479),
    ('tolerations[]', 'object', True, None, None, None, 480),
    ('tolerations[].name', 'string', True, None, None, None, 481),
    ('tolerations[].operator', 'string', True, ('Equal', 'Exists'), None, None, 482),
    ('tolerations[].key', 'string', True, None, None, None, 483),
    ('tolerations[].value', 'string', True, None, None, None, 484),
    ('tolerations[].effect', 'string', True, ('NoSchedule', 'NoExecute', 'PreferNoSchedule', 'Any'), None, None, 485),
    ('tolerations[].seconds', 'integer', True, None, None, None, 486),
    ('tolerations[].exclude', 'boolean', True, None, None, None, 487),
    ('tty', 'boolean', True, None, None, None, 488),
    ('workingDir', 'string', True, None, None, None, 489),
]
# fmt: on

# The numeric and length bounds of Appendix A (its "constraints" column): field -> (bounds, line).
# Every other spec field has none.
# fmt: off
SPEC_BOUNDS: dict[str, tuple[dict[str, int], int]] = {
    'annotations[].name': ({'minLength': 1, 'maxLength': 63}, 249),
    'args': ({'minLength': 1}, 252),
    'command': ({'minLength': 1}, 257),
    'compute.cpuCoreLimit': ({'minimum': 0}, 259),
    'compute.cpuCoreRequest': ({'minimum': 0}, 260),
    'compute.extendedResources[].resource': ({'minLength': 1}, 265),
    'compute.extendedResources[].quantity': ({'minLength': 1}, 266),
    'compute.gpuDevicesRequest': ({'minimum': 0}, 268),
    'compute.gpuPortionLimit': ({'minimum': 0}, 271),
    'compute.gpuPortionRequest': ({'minimum': 0}, 272),
    'compute.gpuRequestType': ({'minLength': 1}, 273),
    'environmentVariables[].name': ({'minLength': 1}, 279),
    'environmentVariables[].secret.name': ({'minLength': 1}, 282),
    'environmentVariables[].secret.key': ({'minLength': 1}, 283),
    'environmentVariables[].configMap.name': ({'minLength': 1}, 285),
    'environmentVariables[].configMap.key': ({'minLength': 1}, 286),
    'environmentVariables[].podFieldRef.path': ({'minLength': 1}, 288),
    'environmentVariables[].userCredential.name': ({'minLength': 1}, 290),
    'environmentVariables[].userCredential.key': ({'minLength': 1}, 291),
    'exposedUrls[].name': ({'minLength': 1}, 305),
    'image': ({'minLength': 1}, 307),
    'imagePullPolicy': ({'minLength': 1}, 308),
    'labels[].name': ({'minLength': 1, 'maxLength': 63}, 316),
    'nodeType': ({'minLength': 1}, 333),
    'numWorkers': ({'minimum': 1}, 334),
    'ports[].container': ({'minimum': 1, 'maximum': 65535}, 340),
    'ports[].name': ({'minLength': 1}, 345),
    'preemptibility': ({'minLength': 1}, 347),
    'probes.readiness.initialDelaySeconds': ({'minimum': 0}, 351),
    'probes.readiness.periodSeconds': ({'minimum': 1}, 352),
    'probes.readiness.timeoutSeconds': ({'minimum': 1}, 353),
    'probes.readiness.successThreshold': ({'minimum': 1}, 354),
    'probes.readiness.failureThreshold': ({'minimum': 1}, 355),
    'probes.readiness.handler.httpGet.port': ({'minimum': 1, 'maximum': 65535}, 359),
    'restartPolicy': ({'minLength': 1}, 368),
    'slotsPerWorker': ({'minimum': 1}, 382),
    'storage.configMapVolume[].name': ({'minLength': 1}, 388),
    'storage.configMapVolume[].configMap': ({'minLength': 1}, 389),
    'storage.configMapVolume[].mountPath': ({'minLength': 1}, 390),
    'storage.configMapVolume[].subPath': ({'minLength': 1}, 391),
    'storage.configMapVolume[].defaultMode': ({'minLength': 4, 'maxLength': 4}, 392),
    'storage.emptyDirVolume[].name': ({'minLength': 1}, 401),
    'storage.emptyDirVolume[].path': ({'minLength': 1}, 402),
    'storage.emptyDirVolume[].medium': ({'minLength': 1}, 403),
    'storage.git[].name': ({'minLength': 1}, 408),
    'storage.git[].repository': ({'minLength': 1}, 409),
    'storage.git[].branch': ({'minLength': 1}, 410),
    'storage.git[].revision': ({'minLength': 1}, 411),
    'storage.git[].path': ({'minLength': 1}, 412),
    'storage.git[].passwordSecret': ({'minLength': 1}, 413),
    'storage.git[].secretKeyOfUser': ({'minLength': 1}, 414),
    'storage.git[].secretKeyOfPassword': ({'minLength': 1}, 415),
    'storage.git[].secretRef.name': ({'minLength': 1}, 418),
    'storage.git[].secretRef.authenticationMethod': ({'minLength': 1}, 419),
    'storage.git[].secretRef.secretKeyOfUser': ({'minLength': 1}, 420),
    'storage.git[].secretRef.secretKeyOfPassword': ({'minLength': 1}, 421),
    'storage.hostPath[].name': ({'minLength': 1}, 424),
    'storage.hostPath[].path': ({'minLength': 1}, 425),
    'storage.hostPath[].mountPath': ({'minLength': 1}, 427),
    'storage.nfs[].name': ({'minLength': 1}, 432),
    'storage.nfs[].path': ({'minLength': 1}, 433),
    'storage.nfs[].server': ({'minLength': 1}, 435),
    'storage.nfs[].mountPath': ({'minLength': 1}, 436),
    'storage.pvc[].name': ({'minLength': 1}, 440),
    'storage.pvc[].path': ({'minLength': 1}, 441),
    'storage.pvc[].claimName': ({'minLength': 1, 'maxLength': 63}, 443),
    'storage.pvc[].claimInfo.storageClass': ({'minLength': 1}, 448),
    'storage.pvc[].claimInfo.addedAttrValues[].key': ({'minLength': 1, 'maxLength': 63}, 456),
    'storage.s3[].name': ({'minLength': 1}, 462),
    'storage.s3[].bucket': ({'minLength': 1}, 463),
    'storage.s3[].path': ({'minLength': 1}, 464),
    'storage.s3[].url': ({'minLength': 1}, 465),
    'storage.s3[].accessKeySecret': ({'minLength': 1}, 466),
    'storage.s3[].secretKeyOfAccessKeyId': ({'minLength': 1}, 467),
    'storage.s3[].secretKeyOfSecretKey': ({'minLength': 1}, 468),
    'storage.secretVolume[].name': ({'minLength': 1}, 472),
    'storage.secretVolume[].mountPath': ({'minLength': 1}, 473),
    'storage.secretVolume[].defaultMode': ({'minLength': 4, 'maxLength': 4}, 474),
    'storage.secretVolume[].secret': ({'minLength': 1}, 475),
    'terminationGracePeriodSeconds': ({'minimum': 0}, 478),
    'tolerations[].name': ({'minLength': 1}, 481),
    'tolerations[].seconds': ({'minimum': 1}, 486),
    'workingDir': ({'minLength': 1}, 489),
}
# fmt: on

TOP_BOUNDS = [
    (RUNAI, "name", {"minLength": 1}, "runai-api.md:37"),
    (RUNAI, "departmentId", {"minLength": 1}, "runai-api.md:41"),
    (RUNAI_ERROR, "code", {"minimum": 100, "maximum": 599}, "runai-api.md:162"),
]


#: Present in `spec` only, never in `masterSpec` (runai-api.md:81, section 5).
WORKER_ONLY = (
    "distributedFramework", "numWorkers", "minReplicas", "maxReplicas", "slotsPerWorker",
    "cleanPodPolicy", "sshAuthMountPath", "mpiLauncherCreationPolicy",
)  # fmt: skip

#: Values the schema keeps beyond the Dec-2025 enum, with the reference line that says so.
LEGACY_VALUES = {"compute.gpuRequestType": (("migProfile",), "runai-api.md:110")}


def _spec_facts() -> list[Fact]:
    facts = []
    for root in ("spec", "masterSpec"):
        for field, type_, nullable, values, fmt, pattern, line in SPEC_ROWS:
            if root == "masterSpec" and field.split(".")[0].removesuffix("[]") in WORKER_ONLY:
                continue
            enum, source = values, f"runai-api.md:{line}"
            if field in LEGACY_VALUES:
                extra, why = LEGACY_VALUES[field]
                enum, source = (*values, *extra), f"{source}, {why}"
            # The DNS-label rule is broken by the official example ("postgress_secret"), which must
            # validate as given: the sources disagree, so the pattern only warns (runai-api.md:136).
            confidence = MEDIUM if pattern == DNS_LABEL else HIGH
            facts.append(
                Fact(RUNAI, f"{root}.{field}", type_, nullable, enum, fmt, confidence, source, pattern)
            )
    return facts


# fmt: off
FACTS: list[Fact] = [
    # Run:ai top level, runai-api.md section 2 (S1).
    Fact(RUNAI, "name", "string", False, None, None, HIGH, "runai-api.md:37"),
    Fact(RUNAI, "requestedName", "string", False, None, None, HIGH, "runai-api.md:38"),
    # uuid in the spec, but the official example's workloadId is "string": warn only.
    Fact(RUNAI, "workloadId", "string", False, None, "uuid", MEDIUM, "runai-api.md:39, seed 000"),
    Fact(RUNAI, "projectId", "string", False, None, None, HIGH, "runai-api.md:40"),
    Fact(RUNAI, "departmentId", "string", False, None, None, HIGH, "runai-api.md:41"),
    Fact(RUNAI, "clusterId", "string", False, None, "uuid", HIGH, "runai-api.md:42"),
    Fact(RUNAI, "createdBy", "string", False, None, None, HIGH, "runai-api.md:43"),
    Fact(RUNAI, "createdAt", "string", False, None, "date-time", HIGH, "runai-api.md:44"),
    Fact(RUNAI, "deletedAt", "string", True, None, "date-time", HIGH, "runai-api.md:45"),
    Fact(RUNAI, "desiredPhase", "string", False, ("Running", "Stopped", "Deleted"), None, HIGH, "runai-api.md:46"),
    Fact(RUNAI, "actualPhase", "string", False, (
        "Creating", "Initializing", "Resuming", "Pending", "Deleting", "Running", "Updating", "Stopped",
        "Stopping", "Degraded", "Failed", "Completed", "Terminating", "Unknown"), None, HIGH, "runai-api.md:47"),
    Fact(RUNAI, "spec", "object", True, None, None, HIGH, "runai-api.md:48"),
    Fact(RUNAI, "masterSpecSameAsWorker", "boolean", True, None, None, HIGH, "runai-api.md:49"),
    Fact(RUNAI, "masterSpec", "object", True, None, None, HIGH, "runai-api.md:50"),
    # A documented list of values on a free string (runai-api.md:73, :128): known values only.
    Fact(RUNAI, "spec.priorityClass", "string", True,
         ("very-low", "low", "medium-low", "medium", "medium-high", "high", "very-high"), None, MEDIUM, "runai-api.md:73"),
    Fact(RUNAI, "spec.compute.migProfile", "string", True, (
        "1g.5gb", "1g.10gb", "2g.10gb", "2g.20gb", "3g.20gb", "3g.40gb", "4g.20gb", "4g.40gb", "7g.40gb",
        "7g.80gb"), None, HIGH, "runai-api.md:111"),
    # Run:ai error body, runai-api.md section 8.
    Fact(RUNAI_ERROR, "code", "integer", False, None, None, HIGH, "runai-api.md:162"),
    Fact(RUNAI_ERROR, "message", "string", False, None, None, HIGH, "runai-api.md:163"),
    Fact(RUNAI_ERROR, "details", "string", False, None, None, HIGH, "runai-api.md:164"),

    # AIHC v1 job detail, aihc-api.md sections 1-4 ([A] high, [A/B]/[B] medium, [C]/[?] low).
    Fact(DETAIL, "requestId", "string", False, None, None, HIGH, "aihc-api.md:36"),
    Fact(DETAIL, "result", "object", False, None, None, HIGH, "aihc-api.md:37"),
    # [A] field, but the reference itself says to treat the prefix loosely: the pattern only warns.
    Fact(DETAIL, "result.jobId", "string", False, None, None, MEDIUM, "aihc-api.md:48",
         "^[a-z]+(job)?-[0-9a-f-]{36}$"),
    Fact(DETAIL, "result.name", "string", False, None, None, HIGH, "aihc-api.md:49"),
    Fact(DETAIL, "result.resourcePoolId", "string", False, None, None, HIGH, "aihc-api.md:50"),
    Fact(DETAIL, "result.command", "string", False, None, None, HIGH, "aihc-api.md:51"),
    Fact(DETAIL, "result.createdAt", "string", False, None, "date-time", HIGH, "aihc-api.md:52"),
    Fact(DETAIL, "result.finishedAt", "string", False, None, DATE_TIME_OR_EMPTY, HIGH, "aihc-api.md:53"),
    # [A/B] grades the presence ("likely"); the value's form is the SDK's, as finishedAt's (A).
    Fact(DETAIL, "result.runningAt", "string", False, None, DATE_TIME_OR_EMPTY, HIGH, "aihc-api.md:54"),
    Fact(DETAIL, "result.scheduledAt", "string", False, None, DATE_TIME_OR_EMPTY, HIGH, "aihc-api.md:55"),
    Fact(DETAIL, "result.datasources", "array", False, None, None, HIGH, "aihc-api.md:56"),
    Fact(DETAIL, "result.enableFaultTolerance", "boolean", False, None, None, HIGH, "aihc-api.md:57"),
    Fact(DETAIL, "result.customFaultTolerancePattern", "array", True, None, None, MEDIUM, "aihc-api.md:58, :210"),
    Fact(DETAIL, "result.customFaultTolerancePattern[]", "string", False, None, None, MEDIUM, "aihc-api.md:58"),
    Fact(DETAIL, "result.labels", "array", False, None, None, HIGH, "aihc-api.md:59"),
    Fact(DETAIL, "result.labels[].key", "string", False, None, None, HIGH, "aihc-api.md:59"),
    Fact(DETAIL, "result.labels[].value", "string", False, None, None, HIGH, "aihc-api.md:59"),
    Fact(DETAIL, "result.priority", "string", False, ("high", "normal", "low"), None, HIGH, "aihc-api.md:60"),
    Fact(DETAIL, "result.queue", "string", False, None, None, HIGH, "aihc-api.md:61"),
    Fact(DETAIL, "result.status", "string", False, (
        "Created", "ToBeSubmitted", "Scheduled", "Starting", "Pending", "Running", "Restarting", "Abnormal",
        "Stopping", "Stopped", "ManualTermination", "Succeeded", "Failed", "Terminating", "Unknown"),
        None, MEDIUM, "aihc-api.md:62, :130"),
    Fact(DETAIL, "result.image", "string", False, None, None, MEDIUM, "aihc-api.md:63"),
    Fact(DETAIL, "result.resources", "array", False, None, None, HIGH, "aihc-api.md:64"),
    # "Validate with a pattern, not an enum" (aihc-api.md:148), the names [A] for cpu, memory, a800 ...
    Fact(DETAIL, "result.resources[].name", "string", False, None, None, HIGH, "aihc-api.md:64, :148", RESOURCE_NAME),
    Fact(DETAIL, "result.resources[].quantity", "number", False, None, None, HIGH, "aihc-api.md:64, :211"),
    Fact(DETAIL, "result.enableRDMA", "boolean", False, None, None, HIGH, "aihc-api.md:65"),
    Fact(DETAIL, "result.hostNetwork", "boolean", False, None, None, MEDIUM, "aihc-api.md:66"),
    Fact(DETAIL, "result.privileged", "boolean", False, None, None, HIGH, "aihc-api.md:67"),
    Fact(DETAIL, "result.replicas", "integer", False, None, None, MEDIUM, "aihc-api.md:68"),
    Fact(DETAIL, "result.envs", "array", False, None, None, MEDIUM, "aihc-api.md:69"),
    Fact(DETAIL, "result.envs[].name", "string", False, None, None, MEDIUM, "aihc-api.md:69"),
    Fact(DETAIL, "result.envs[].value", "string", False, None, None, MEDIUM, "aihc-api.md:69"),
    Fact(DETAIL, "result.jobFramework", "string", False, ("pytorch", "PyTorchJob", "MPIJob"), None, MEDIUM,
         "aihc-api.md:70"),
    Fact(DETAIL, "result.queueingSequence", "integer", True, None, None, HIGH, "aihc-api.md:71, :210"),
    Fact(DETAIL, "result.enableBccl", "boolean", False, None, None, MEDIUM, "aihc-api.md:72"),
    Fact(DETAIL, "result.enableBcclStatus", "string", False, ("success", "failed", "unknown"), None, MEDIUM,
         "aihc-api.md:73"),
    Fact(DETAIL, "result.enableBcclErrorReason", "string", False, None, None, MEDIUM, "aihc-api.md:74"),
    Fact(DETAIL, "result.k8sUID", "string", False, None, "uuid", MEDIUM, "aihc-api.md:75"),
    Fact(DETAIL, "result.k8sNamespace", "string", False, None, None, MEDIUM, "aihc-api.md:76"),
    Fact(DETAIL, "result.faultToleranceArgs", "string", False, None, None, HIGH, "aihc-api.md:77"),
    Fact(DETAIL, "result.logCollectionFilePatterns", "array", False, None, None, HIGH, "aihc-api.md:78"),
    Fact(DETAIL, "result.logCollectionFilePatterns[]", "string", False, None, None, HIGH, "aihc-api.md:78"),
    Fact(DETAIL, "result.podList", "object", False, None, None, HIGH, "aihc-api.md:79"),
    Fact(DETAIL, "result.faultToleranceConfig", "object", False, None, None, LOW, "aihc-api.md:81"),
    Fact(DETAIL, "result.enableReplaceResult", "object", False, None, None, LOW, "aihc-api.md:81"),
    Fact(DETAIL, "result.tensorboardAddr", "string", False, None, None, LOW, "aihc-api.md:81"),
    Fact(DETAIL, "result.podList.faultTolerancePods", "object", False, None, None, LOW, "aihc-api.md:81"),
    Fact(DETAIL, "result.podList.listMeta.totalItems", "integer", False, None, None, HIGH, "aihc-api.md:86"),
    Fact(DETAIL, "result.podList.pods", "array", False, None, None, HIGH, "aihc-api.md:86"),
    Fact(DETAIL, "result.podList.pods[].PodIP", "string", False, None, None, HIGH, "aihc-api.md:90"),
    Fact(DETAIL, "result.podList.pods[].nodeName", "string", False, None, None, HIGH, "aihc-api.md:91"),
    Fact(DETAIL, "result.podList.pods[].objectMeta", "object", False, None, None, HIGH, "aihc-api.md:92"),
    Fact(DETAIL, "result.podList.pods[].podStatus", "object", False, None, None, HIGH, "aihc-api.md:93"),
    Fact(DETAIL, "result.podList.pods[].podStatus.podPhase", "string", False,
         ("Pending", "Running", "Succeeded", "Failed", "Unknown"), None, HIGH, "aihc-api.md:93"),
    # "a free display string; don't enumerate".
    Fact(DETAIL, "result.podList.pods[].podStatus.status", "string", False, ("Running",), None, LOW, "aihc-api.md:93"),
    # master/worker are [A], launcher [?]: the list is not closed.
    Fact(DETAIL, "result.podList.pods[].replicaType", "string", False, ("master", "worker"), None, MEDIUM,
         "aihc-api.md:94"),
    Fact(DETAIL, "result.podList.pods[].restartCount", "integer", False, None, None, HIGH, "aihc-api.md:95"),
    Fact(DETAIL, "result.podList.pods[].envs", "array", False, None, None, HIGH, "aihc-api.md:96"),
    Fact(DETAIL, "result.podList.pods[].finishedAt", "string", False, None, DATE_TIME_OR_EMPTY, HIGH, "aihc-api.md:97"),
    Fact(DETAIL, "result.podList.pods[].reason", "string", False, None, None, HIGH, "aihc-api.md:98"),
    Fact(DETAIL, "result.podList.pods[].objectMeta.annotations", "object", False, None, None, HIGH, "aihc-api.md:104"),
    Fact(DETAIL, "result.podList.pods[].objectMeta.annotations{}", "string", False, None, None, HIGH, "aihc-api.md:104"),
    Fact(DETAIL, "result.podList.pods[].objectMeta.creationTimestamp", "string", False, None, "date-time", HIGH,
         "aihc-api.md:105"),
    Fact(DETAIL, "result.podList.pods[].objectMeta.labels", "object", False, None, None, HIGH, "aihc-api.md:106"),
    Fact(DETAIL, "result.podList.pods[].objectMeta.labels{}", "string", False, None, None, HIGH, "aihc-api.md:106"),
    Fact(DETAIL, "result.podList.pods[].objectMeta.name", "string", False, None, None, HIGH, "aihc-api.md:107"),
    Fact(DETAIL, "result.podList.pods[].objectMeta.namespace", "string", False, None, None, HIGH, "aihc-api.md:108"),
    Fact(DETAIL, "result.podList.pods[].objectMeta.ownerReferences", "array", False, None, None, HIGH, "aihc-api.md:109"),
    Fact(DETAIL, "result.podList.pods[].objectMeta.ownerReferences[].controller", "boolean", False, None, None, HIGH,
         "aihc-api.md:109"),
    Fact(DETAIL, "result.podList.pods[].objectMeta.ownerReferences[].blockOwnerDeletion", "boolean", False, None, None,
         HIGH, "aihc-api.md:109"),
    # Datasource, aihc-api.md section 4: the SDK comment's types, reported back under other names [C].
    Fact(DETAIL, "result.datasources[].id", "string", False, None, None, HIGH, "aihc-api.md:137"),
    Fact(DETAIL, "result.datasources[].type", "string", False,
         ("dataset", "pfsl1", "pfsl2", "emptydir", "hostpath", "cfs"), None, MEDIUM, "aihc-api.md:138"),
    Fact(DETAIL, "result.datasources[].sourcePath", "string", False, None, None, HIGH, "aihc-api.md:139"),
    Fact(DETAIL, "result.datasources[].mountPath", "string", False, None, None, HIGH, "aihc-api.md:140"),
    Fact(DETAIL, "result.datasources[].name", "string", False, None, None, HIGH, "aihc-api.md:141"),
    Fact(DETAIL, "result.datasources[].options", "object", False, None, None, HIGH, "aihc-api.md:142"),
    Fact(DETAIL, "result.datasources[].options.sizeLimit", "integer", False, None, None, HIGH, "aihc-api.md:144"),
    # "", Memory, HugePages or HugePages-<size>: a form, not a list, so a soft pattern.
    Fact(DETAIL, "result.datasources[].options.medium", "string", False, None, None, MEDIUM, "aihc-api.md:144",
         MEDIUM_VALUES),
    Fact(RAW, "datasources[].options.medium", "string", False, None, None, MEDIUM, "aihc-api.md:144", MEDIUM_VALUES),
    Fact(DETAIL, "result.datasources[].options.readOnly", "boolean", False, None, None, HIGH, "aihc-api.md:144"),
    Fact(DETAIL, "result.datasources[].options.hostPathType", "string", False, (
        "", "DirectoryOrCreate", "Directory", "FileOrCreate", "File", "Socket", "CharDevice", "BlockDevice"),
        None, MEDIUM, "aihc-api.md:144"),
    Fact(DETAIL, "result.datasources[].options.pfsL1ClusterPort", "string", False, None, None, HIGH, "aihc-api.md:144"),
    Fact(DETAIL, "result.datasources[].options.pfsL2MountTargetId", "array", False, None, None, HIGH, "aihc-api.md:144"),
    Fact(DETAIL, "result.datasources[].options.cfsInstanceId", "string", False, None, None, HIGH, "aihc-api.md:144"),

    # The raw-request annotation, aihc-api.md section 7 ([A]: the doc example's keys).
    Fact(RAW, "name", "string", False, None, None, HIGH, "aihc-api.md:188"),
    Fact(RAW, "namespace", "string", False, None, None, HIGH, "aihc-api.md:188"),
    Fact(RAW, "queue", "string", False, None, None, HIGH, "aihc-api.md:188"),
    # A string in this internal object; high/normal/low are the create API's values (:164), which
    # the reference does not give for the console's object: listed, not enforced.
    Fact(RAW, "priority", "string", False, ("high", "normal", "low"), None, MEDIUM, "aihc-api.md:188, :164"),
    Fact(RAW, "command", "string", False, None, None, HIGH, "aihc-api.md:188"),
    Fact(RAW, "sourceJobName", "string", False, None, None, HIGH, "aihc-api.md:188"),
    Fact(RAW, "pfsId", "string", False, None, None, HIGH, "aihc-api.md:188"),
    Fact(RAW, "oversell", "boolean", False, None, None, HIGH, "aihc-api.md:189"),
    Fact(RAW, "faultTolerance", "boolean", False, None, None, HIGH, "aihc-api.md:189"),
    Fact(RAW, "jobDistributed", "boolean", False, None, None, HIGH, "aihc-api.md:189"),
    Fact(RAW, "autoCreatePVC", "boolean", False, None, None, HIGH, "aihc-api.md:189"),
    Fact(RAW, "hostNetwork", "boolean", False, None, None, HIGH, "aihc-api.md:189"),
    Fact(RAW, "isCopyJob", "boolean", False, None, None, HIGH, "aihc-api.md:189"),
    Fact(RAW, "datasources", "array", False, None, None, HIGH, "aihc-api.md:190"),
    Fact(RAW, "datasource", "array", False, None, None, LOW, "aihc-api.md:190"),
    Fact(RAW, "jobFramework", "string", False, ("PyTorchJob", "pytorch"), None, MEDIUM, "aihc-api.md:191"),
    Fact(RAW, "workloadType", "string", False, ("PyTorchJob", "PytorchJob"), None, LOW, "aihc-api.md:192"),
    Fact(RAW, "jobSpec", "object", False, None, None, HIGH, "aihc-api.md:193"),
    Fact(RAW, "jobSpec{}.replicas", "integer", False, None, None, HIGH, "aihc-api.md:193"),
    Fact(RAW, "jobSpec{}.restartPolicy", "string", False, ("Never", "Always", "OnFailure", "ExitCode"), None, MEDIUM,
         "aihc-api.md:193"),
    Fact(RAW, "jobSpec{}.image", "string", False, None, None, HIGH, "aihc-api.md:193"),
    Fact(RAW, "jobSpec{}.tag", "string", False, None, None, HIGH, "aihc-api.md:193"),
    Fact(RAW, "jobSpec{}.resource", "object", False, None, None, HIGH, "aihc-api.md:193"),
    Fact(RAW, "jobSpec{}.resource{}", "number", False, None, None, HIGH, "aihc-api.md:193"),
    Fact(RAW, "jobSpec{}.env", "object", False, None, None, HIGH, "aihc-api.md:193"),
    Fact(RAW, "jobSpec{}.env{}", "string", False, None, None, HIGH, "aihc-api.md:193"),
    Fact(RAW, "jobSpec{}.command", "string", False, None, None, HIGH, "aihc-api.md:193"),
    Fact(RAW, "jobSpec{}.args", "string", False, None, None, HIGH, "aihc-api.md:193"),
    Fact(RAW, "jobSpec{}.postStart", "string", False, None, None, HIGH, "aihc-api.md:193"),
    Fact(RAW, "jobSpec{}.preStop", "string", False, None, None, HIGH, "aihc-api.md:193"),
    Fact(RAW, "imagePullSecrets", "array", True, None, None, HIGH, "aihc-api.md:194"),
    Fact(RAW, "imagePullSecretUsername", "string", False, None, None, HIGH, "aihc-api.md:195"),
    Fact(RAW, "imagePullSecretPassword", "string", False, None, None, HIGH, "aihc-api.md:195"),
    Fact(RAW, "labels", "object", False, None, None, HIGH, "aihc-api.md:196"),
    Fact(RAW, "labels{}", "string", False, None, None, HIGH, "aihc-api.md:196"),
    Fact(RAW, "annotations", "object", True, None, None, HIGH, "aihc-api.md:197"),
    Fact(RAW, "annotations{}", "string", False, None, None, HIGH, "aihc-api.md:197"),
    Fact(RAW, "nodeSelector", "object", True, None, None, HIGH, "aihc-api.md:197"),
    Fact(RAW, "nodeSelector{}", "string", False, None, None, HIGH, "aihc-api.md:197"),
    Fact(RAW, "codeSource", "object", False, None, None, LOW, "aihc-api.md:199"),
    Fact(RAW, "tensorboard", "object", False, None, None, LOW, "aihc-api.md:199"),
    Fact(RAW, "tensorboard.enable", "boolean", False, None, None, LOW, "aihc-api.md:199"),
    Fact(RAW, "tensorboard.logPath", "string", False, None, None, LOW, "aihc-api.md:199"),
    Fact(RAW, "tensorboard.serviceType", "string", False, None, None, LOW, "aihc-api.md:199"),
    Fact(RAW, "retentionPeriod", "string", False, None, None, LOW, "aihc-api.md:199"),
    Fact(RAW, "enabledHangDetection", "boolean", False, None, None, LOW, "aihc-api.md:199"),
    Fact(RAW, "hangDetectionTimeoutMinutes", "integer", False, None, None, LOW, "aihc-api.md:199"),
    Fact(RAW, "hangDetectionStartupTolerationMinutes", "integer", False, None, None, LOW, "aihc-api.md:199"),
    Fact(RAW, "hangDetectionStackTimeoutMinutes", "integer", False, None, None, LOW, "aihc-api.md:199"),
    Fact(RAW, "faultToleranceLimit", "integer", False, None, None, LOW, "aihc-api.md:199"),
    Fact(RAW, "unconditionalFaultToleranceLimit", "integer", False, None, None, LOW, "aihc-api.md:199"),
    Fact(RAW, "unconditionalFaultToleranceObserveSeconds", "integer", False, None, None, LOW, "aihc-api.md:199"),
    Fact(RAW, "customFaultTolerancePattern", "array", True, None, None, LOW, "aihc-api.md:199"),
    Fact(RAW, "enableReplace", "boolean", False, None, None, LOW, "aihc-api.md:199"),
    Fact(RAW, "enableUseNodesOfLastJob", "boolean", False, None, None, LOW, "aihc-api.md:199"),
    Fact(RAW, "enableCheckpointMigration", "boolean", False, None, None, LOW, "aihc-api.md:199"),
    Fact(RAW, "internalFaultToleranceAlarmPhone", "string", False, None, None, LOW, "aihc-api.md:199"),
    Fact(RAW, "alertConfig", "object", True, None, None, LOW, "aihc-api.md:199, :166"),
    Fact(RAW, "enableBccl", "boolean", False, None, None, LOW, "aihc-api.md:199"),
    Fact(RAW, "submitTime", "string", False, None, None, LOW, "aihc-api.md:199"),
    Fact(RAW, "privileged", "boolean", False, None, None, LOW, "aihc-api.md:199"),
    Fact(RAW, "logCollectionFilePatterns", "array", False, None, None, LOW, "aihc-api.md:199"),

    # AIHC error body, aihc-api.md section 8 (S6: the SDKs read exactly these three keys).
    Fact(AIHC_ERROR, "requestId", "string", False, None, None, HIGH, "aihc-api.md:203"),
    Fact(AIHC_ERROR, "code", "string", False, None, None, HIGH, "aihc-api.md:203", "^[A-Za-z][A-Za-z0-9_.]*$"),
    Fact(AIHC_ERROR, "message", "string", False, None, None, HIGH, "aihc-api.md:203"),

    # AIHC v2 DescribeJob, aihc-v2.md (the SDKs' models: wrapped under "job").
    # Nullable: every member the schema does not require, since round 12: both SDKs read each member
    # with `if m.get(KEY) is not None:` (baiducloud_python_sdk_aihc/models/*.py), so null is absent.
    Fact(V2, "requestId", "string", False, None, None, HIGH, "aihc-v2.md:16"),
    Fact(V2, "job", "object", False, None, None, HIGH, "aihc-v2.md:16"),
    Fact(V2, "job.jobid", "string", False, None, None, HIGH, "aihc-v2.md:17"),
    Fact(V2, "job.userId", "string", True, None, None, HIGH, "aihc-v2.md:17"),
    Fact(V2, "job.name", "string", False, None, None, HIGH, "aihc-v2.md:17"),
    Fact(V2, "job.status", "string", False, (
        "Succeeded", "Failed", "Stopped", "ManualTermination", "Created", "Scheduled", "Pending", "Starting",
        "Restarting", "Running", "Abnormal"), None, MEDIUM, "aihc-v2.md:17, :45-47"),
    # The DescribeJob documentation example's value [B] (aihc-api.md:177); the list is open.
    Fact(V2, "job.jobType", "string", True, ("pytorch",), None, MEDIUM, "aihc-v2.md:17, aihc-api.md:177"),
    Fact(V2, "job.resourcePoolId", "string", True, None, None, HIGH, "aihc-v2.md:17"),
    Fact(V2, "job.queue", "string", True, None, None, HIGH, "aihc-v2.md:18"),
    Fact(V2, "job.Job", "object", True, None, None, HIGH, "aihc-v2.md:18"),
    Fact(V2, "job.job", "object", True, None, None, HIGH, "aihc-v2.md:34"),
    Fact(V2, "job.createdAt", "string", True, None, None, HIGH, "aihc-v2.md:18"),
    Fact(V2, "job.finishedAt", "string", True, None, None, HIGH, "aihc-v2.md:19"),
    Fact(V2, "job.datasources", "array", True, None, None, HIGH, "aihc-v2.md:19"),
    Fact(V2, "job.labels", "array", True, None, None, HIGH, "aihc-v2.md:19"),
    Fact(V2, "job.labels[].key", "string", False, None, None, HIGH, "aihc-v2.md:29"),
    Fact(V2, "job.labels[].value", "string", False, None, None, HIGH, "aihc-v2.md:29"),
    Fact(V2, "job.priority", "string", True, None, None, HIGH, "aihc-v2.md:19"),
    Fact(V2, "job.enableBccl", "boolean", True, None, None, HIGH, "aihc-v2.md:19"),
    Fact(V2, "job.enableBcclStatus", "string", True, None, None, HIGH, "aihc-v2.md:20"),
    Fact(V2, "job.enableBcclErrorReason", "string", True, None, None, HIGH, "aihc-v2.md:20"),
    Fact(V2, "job.enableFaultTolerance", "boolean", True, None, None, HIGH, "aihc-v2.md:20"),
    Fact(V2, "job.faultToleranceArgs", "string", True, None, None, HIGH, "aihc-v2.md:21"),
    Fact(V2, "job.pods", "array", True, None, None, HIGH, "aihc-v2.md:21"),
    Fact(V2, "job.historyPods", "array", True, None, None, HIGH, "aihc-v2.md:21"),
    Fact(V2, "job.jobTimeLine", "array", True, None, None, HIGH, "aihc-v2.md:21"),
    Fact(V2, "job.Job.image", "string", True, None, None, HIGH, "aihc-v2.md:23"),
    Fact(V2, "job.Job.imageConfig", "object", True, None, None, HIGH, "aihc-v2.md:23"),
    Fact(V2, "job.Job.imageConfig.username", "string", True, None, None, HIGH, "aihc-v2.md:23"),
    Fact(V2, "job.Job.imageConfig.password", "string", True, None, None, HIGH, "aihc-v2.md:23"),
    Fact(V2, "job.Job.replicas", "integer", True, None, None, HIGH, "aihc-v2.md:24"),
    Fact(V2, "job.Job.resources", "array", True, None, None, HIGH, "aihc-v2.md:24"),
    # v1's rule, not given for v2 (aihc-v2.md:24 says str): a warning there.
    Fact(V2, "job.Job.resources[].name", "string", False, None, None, MEDIUM, "aihc-v2.md:24, aihc-api.md:148",
         RESOURCE_NAME),
    # int in both SDKs, "int or float may be sent" in the Java comment: the sources disagree, open.
    Fact(V2, "job.Job.resources[].quantity", "number", False, None, None, MEDIUM, "aihc-v2.md:24, :37"),
    Fact(V2, "job.Job.envs", "array", True, None, None, HIGH, "aihc-v2.md:24"),
    Fact(V2, "job.Job.enableRDMA", "boolean", True, None, None, HIGH, "aihc-v2.md:25"),
    Fact(V2, "job.Job.hostNetwork", "boolean", True, None, None, HIGH, "aihc-v2.md:25"),
    Fact(V2, "job.pods[].PodIP", "string", True, None, None, HIGH, "aihc-v2.md:26"),
    Fact(V2, "job.pods[].podIP", "string", True, None, None, HIGH, "aihc-v2.md:26"),
    Fact(V2, "job.pods[].nodeName", "string", True, None, None, HIGH, "aihc-v2.md:26"),
    Fact(V2, "job.pods[].creationAt", "string", True, None, None, HIGH, "aihc-v2.md:26"),
    Fact(V2, "job.pods[].uid", "string", True, None, None, HIGH, "aihc-v2.md:26"),
    Fact(V2, "job.pods[].name", "string", False, None, None, HIGH, "aihc-v2.md:26"),
    # Pending/Starting/Running/Failed/Succeed/Unknown per a third party's notes [C] (aihc-api.md:177).
    Fact(V2, "job.pods[].status", "string", True, ("Pending", "Starting", "Running", "Failed", "Succeed", "Unknown"),
         None, MEDIUM, "aihc-v2.md:26, aihc-api.md:177"),
    Fact(V2, "job.pods[].replicaType", "string", True, None, None, HIGH, "aihc-v2.md:27"),
    Fact(V2, "job.pods[].restartCount", "integer", True, None, None, HIGH, "aihc-v2.md:27"),
    Fact(V2, "job.pods[].envs", "array", True, None, None, HIGH, "aihc-v2.md:27"),
    Fact(V2, "job.pods[].finishedAt", "string", True, None, None, HIGH, "aihc-v2.md:27"),
    Fact(V2, "job.pods[].reason", "string", True, None, None, HIGH, "aihc-v2.md:27"),
    Fact(V2, "job.historyPods[].uid", "string", True, None, None, HIGH, "aihc-v2.md:39"),
    # The v2 Python SDK's docstring writes hostPath: "treat case-insensitively" (aihc-api.md:138).
    Fact(V2, "job.datasources[].type", "string", True,
         ("pfs", "hostpath", "hostPath", "dataset", "bos", "cfs", "rapidfs"), None, MEDIUM,
         "aihc-v2.md:28, aihc-api.md:138"),
    Fact(V2, "job.datasources[].name", "string", True, None, None, HIGH, "aihc-v2.md:28"),
    Fact(V2, "job.datasources[].sourcePath", "string", True, None, None, HIGH, "aihc-v2.md:28"),
    Fact(V2, "job.datasources[].mountPath", "string", False, None, None, HIGH, "aihc-v2.md:29"),
    Fact(V2, "job.datasources[].options.readOnly", "boolean", True, None, None, HIGH, "aihc-v2.md:29"),
    Fact(V2, "job.jobTimeLine[].conditionType", "string", False, None, None, HIGH, "aihc-v2.md:29"),
    Fact(V2, "job.jobTimeLine[].conditionMessage", "string", True, None, None, HIGH, "aihc-v2.md:30"),
    Fact(V2, "job.jobTimeLine[].time", "string", True, None, None, HIGH, "aihc-v2.md:30"),
    # The documentation's flattened spelling (aihc-v2.md:33-35).
    Fact(V2, "jobId", "string", False, None, None, HIGH, "aihc-v2.md:34"),
    Fact(V2, "queueId", "string", True, None, None, HIGH, "aihc-v2.md:35"),
    Fact(V2, "jobSpec", "object", True, None, None, HIGH, "aihc-v2.md:34"),
    Fact(V2, "jobType", "string", True, ("pytorch",), None, MEDIUM, "aihc-api.md:177"),
    Fact(V2, "pods[].podIP", "string", True, None, None, HIGH, "aihc-v2.md:36"),
    *_spec_facts(),
]
# fmt: on


class Required(NamedTuple):
    schema: str
    field: str
    names: tuple[str, ...]
    source: str


REQUIRED = [
    Required(RUNAI, "", ("name", "requestedName", "workloadId", "projectId", "clusterId", "createdBy", "createdAt",
                         "desiredPhase"), "runai-api.md:33"),
    Required(RUNAI, "spec.nodeAffinityRequired.nodeSelectorTerms[].matchExpressions[]", ("key", "operator"),
             "runai-api.md:59"),
    Required(RUNAI, "spec.storage.pvc[].claimInfo.addedAttrValues[]", ("key",), "runai-api.md:59"),
    Required(RUNAI, "masterSpec.storage.pvc[].claimInfo.addedAttrValues[]", ("key",), "runai-api.md:59"),
    Required(RUNAI_ERROR, "", ("code", "message"), "runai-api.md:162-163"),
    Required(DETAIL, "", ("requestId", "result"), "aihc-api.md:36-37"),
    Required(DETAIL, "result", ("jobId", "name", "resourcePoolId", "command", "createdAt", "finishedAt",
                                "datasources", "enableFaultTolerance", "labels", "priority", "queue", "status",
                                "image", "resources", "enableRDMA", "podList"), "aihc-api.md:208"),
]  # fmt: skip


class Deprecation(NamedTuple):
    schema: str
    field: str
    deprecated: bool
    source: str


DEPRECATIONS = [
    *(
        Deprecation(RUNAI, f"{root}.{field}", root == "masterSpec", "runai-api.md:83")
        for root in ("spec", "masterSpec")
        for field in ("backoffLimit", "autoDeletionTimeAfterCompletionSeconds", "terminationGracePeriodSeconds",
                      "priorityClass")
    ),
    Deprecation(RUNAI, "spec.compute.migProfile", True, "runai-api.md:111"),
    Deprecation(RUNAI, "masterSpec.compute.migProfile", True, "runai-api.md:111"),
    # "(deprecated)" in the API text only, no deprecated: true in the spec (runai-api.md:198).
    *(
        Deprecation(RUNAI, f"spec.storage.git[].{field}", False, "runai-api.md:198")
        for field in ("passwordSecret", "secretKeyOfUser", "secretKeyOfPassword")
    ),
]  # fmt: skip


# ---------------------------------------------------------------------------------------------
# Reading the schema at a place


def place_of(field: str) -> str:
    """``a.b[].c{}`` -> ``/a/b/*/c/*``."""
    place = ""
    for part in field.split(".") if field else ():
        name = part
        stars = 0
        while name.endswith(("[]", "{}")):
            name, stars = name[:-2], stars + 1
        if name:
            place += "/" + name.replace("~", "~0").replace("/", "~1")
        place += "/*" * stars
    return place


_PLACES: dict[str, dict[str, Spot]] = {}


def spot(schema: str, field: str) -> Spot:
    if schema not in _PLACES:
        _PLACES[schema] = places(schema_document(schema))
    found = _PLACES[schema].get(place_of(field))
    assert found is not None, f"{schema}: {field} ({place_of(field)}) is not declared"
    return found


def declared_types(found: Spot) -> set[str]:
    types: set[str] = set()
    for located in found.nodes:
        value = located.node.get("type")
        types.update([value] if isinstance(value, str) else value or [])
    return types


def keyword(found: Spot, name: str) -> list[Any]:
    return [located.node[name] for located in found.nodes if name in located.node]


def fid(fact: Any) -> str:
    return f"{fact.schema}:{fact.field or '(root)'}"


# ---------------------------------------------------------------------------------------------
# The audit


@pytest.mark.parametrize("fact", FACTS, ids=fid)
def test_type_and_nullability(fact: Fact) -> None:
    found = spot(fact.schema, fact.field)
    types = declared_types(found)
    if fact.type is not None:
        expected = {"integer", "number"} if fact.type == "number" else {fact.type}
        assert types - {"null"} == expected, f"{fid(fact)} ({fact.source}): type {sorted(types)}"
    if fact.nullable is not None:
        assert ("null" in types) == fact.nullable, f"{fid(fact)} ({fact.source}): nullable {fact.nullable}"
    null_branches = [
        located.location
        for located in found.nodes
        if ("/anyOf/" in located.location or "/oneOf/" in located.location)
        and located.node.get("type") == "null"
    ]
    assert null_branches == [], (
        f"{fid(fact)}: null through an anyOf branch {null_branches}; a nullable type is a type union"
        " (schemas/README.md, Conventions)"
    )


@pytest.mark.parametrize("fact", [f for f in FACTS if f.enum is not None], ids=fid)
def test_values(fact: Fact) -> None:
    found = spot(fact.schema, fact.field)
    assert fact.enum is not None
    enums = keyword(found, "enum")
    known = [value for values in keyword(found, "x-jobschema-known-values") for value in values]
    if fact.confidence == HIGH:
        expected = set(fact.enum) | ({None} if fact.nullable else set())
        assert len(enums) == 1 and set(enums[0]) == expected, (
            f"{fid(fact)} ({fact.source}): enforced values {enums}, expected {sorted(map(str, expected))}"
        )
    else:
        assert enums == [], (
            f"{fid(fact)} ({fact.source}): {fact.confidence} confidence, but a closed enum {enums}"
        )
    if fact.confidence == MEDIUM:
        missing = [value for value in fact.enum if value not in known]
        assert missing == [], (
            f"{fid(fact)} ({fact.source}): documented values not known to the schema: {missing}"
        )


@pytest.mark.parametrize("fact", [f for f in FACTS if f.fmt is not None], ids=fid)
def test_format(fact: Fact) -> None:
    found = spot(fact.schema, fact.field)
    formats = keyword(found, "format")
    soft = keyword(found, "x-jobschema-format")
    if fact.fmt == DATE_TIME_OR_EMPTY:
        branches = [branch for any_of in keyword(found, "anyOf") for branch in any_of]
        assert {"const": ""} in [{k: v for k, v in b.items() if k == "const"} for b in branches], fid(fact)
        assert formats == ["date-time"], f"{fid(fact)} ({fact.source}): formats {formats}"
    elif fact.confidence == HIGH:
        assert formats == [fact.fmt] and soft == [], (
            f"{fid(fact)} ({fact.source}): format {formats}, soft {soft}"
        )
    elif fact.confidence == MEDIUM:
        assert formats == [] and soft == [fact.fmt], (
            f"{fid(fact)} ({fact.source}): format {formats}, soft {soft}"
        )
    else:
        assert formats == [], f"{fid(fact)} ({fact.source}): low confidence, but format {formats}"


@pytest.mark.parametrize("fact", [f for f in FACTS if f.pattern is not None], ids=fid)
def test_pattern(fact: Fact) -> None:
    found = spot(fact.schema, fact.field)
    hard = keyword(found, "pattern")
    soft = keyword(found, "x-jobschema-pattern")
    if fact.confidence == HIGH:
        assert soft == [] and len(hard) == 1, f"{fid(fact)} ({fact.source}): pattern {hard}, soft {soft}"
        assert fact.pattern in (OTHER, hard[0]), f"{fid(fact)} ({fact.source}): pattern {hard[0]!r}"
    else:
        assert hard == [] and soft == [fact.pattern], (
            f"{fid(fact)} ({fact.source}): pattern {hard}, soft {soft}"
        )


@pytest.mark.parametrize("fact", REQUIRED, ids=fid)
def test_required(fact: Required) -> None:
    found = spot(fact.schema, fact.field) if fact.field else None
    if found is None:
        required = [schema_document(fact.schema).get("required", [])]
    else:
        required = keyword(found, "required")
    assert [set(names) for names in required] == [set(fact.names)], (
        f"{fid(fact)} ({fact.source}): required {required}"
    )


@pytest.mark.parametrize("fact", DEPRECATIONS, ids=fid)
def test_deprecated(fact: Deprecation) -> None:
    found = spot(fact.schema, fact.field)
    flagged = True in keyword(found, "deprecated")
    assert flagged == fact.deprecated, f"{fid(fact)} ({fact.source}): deprecated {flagged}"
    if not fact.deprecated and fact.source == "runai-api.md:198":
        assert any("deprecated" in text for text in keyword(found, "description")), fid(fact)


BOUND_KEYWORDS = ("minimum", "maximum", "minLength", "maxLength")


def _bound_cases() -> list[tuple[str, str, dict[str, int], str]]:
    cases = list(TOP_BOUNDS)
    for root in ("spec", "masterSpec"):
        for field, *_, line in SPEC_ROWS:
            if root == "masterSpec" and field.split(".")[0].removesuffix("[]") in WORKER_ONLY:
                continue
            bounds = SPEC_BOUNDS.get(field, ({}, line))[0]
            cases.append((RUNAI, f"{root}.{field}", bounds, f"runai-api.md:{line}"))
    return cases


@pytest.mark.parametrize("case", _bound_cases(), ids=lambda c: f"{c[0]}:{c[1]}")
def test_bounds(case: tuple[str, str, dict[str, int], str]) -> None:
    schema, field, bounds, source = case
    found = spot(schema, field)
    actual = {name: set(keyword(found, name)) for name in BOUND_KEYWORDS if keyword(found, name)}
    assert actual == {name: {value} for name, value in bounds.items()}, f"{schema}:{field} ({source})"


# The versions the references give (runai-api.md section 9, runai-versions.md), against the
# annotations written from the official specs: (field, annotation, value, source).
# fmt: off
VERSIONS: list[tuple[str, str, Any, str]] = [
    ("spec.tolerations[].exclude", "x-jobschema-since", "2.19", "runai-api.md:179"),
    ("spec.tolerations[].effect", "x-jobschema-enum-since", {"Any": "2.19"}, "runai-api.md:124, :179"),
    ("spec.compute.migProfile", "deprecated", "2.19", "runai-api.md:179"),
    ("spec.cleanPodPolicy", "x-jobschema-since", "2.20", "runai-api.md:180"),
    ("spec.terminationGracePeriodSeconds", "x-jobschema-since", "2.20", "runai-api.md:180"),
    ("spec.environmentVariables[].description", "x-jobschema-since", "2.20", "runai-api.md:180"),
    ("deletedAt", "x-jobschema-since", "2.21", "runai-api.md:181"),
    ("spec.restartPolicy", "x-jobschema-since", "2.21", "runai-api.md:181"),
    ("spec.sshAuthMountPath", "x-jobschema-since", "2.21", "runai-api.md:181"),
    ("spec.environmentVariables[].configMap", "x-jobschema-since", "2.21", "runai-api.md:181"),
    ("spec.environmentVariables[].podFieldRef", "x-jobschema-since", "2.21", "runai-api.md:181"),
    ("spec.distributedFramework", "x-jobschema-enum-since", {"JAX": "2.21"}, "runai-api.md:182"),
    ("spec.storage.configMapVolume[].subPath", "x-jobschema-since", "2.21", "runai-api.md:182"),
    ("spec.nodeAffinityRequired", "x-jobschema-since", "2.22", "runai-api.md:183"),
    ("spec.category", "x-jobschema-since", "2.22", "runai-api.md:183"),
    ("spec.priorityClass", "x-jobschema-since", "2.22", "runai-api.md:183"),
    ("spec.imagePullSecrets", "x-jobschema-since", "2.22", "runai-api.md:183"),
    ("spec.mpiLauncherCreationPolicy", "x-jobschema-since", "2.22", "runai-api.md:183"),
    ("spec.storage.emptyDirVolume", "x-jobschema-since", "2.22", "runai-api.md:183"),
    ("spec.storage.pvc[].dataSharing", "x-jobschema-since", "2.22", "runai-api.md:183"),
    ("spec.storage.pvc[].claimInfo.addedAttrValues", "x-jobschema-since", "2.22", "runai-api.md:183"),
    ("spec.storage.git[].secretRef", "x-jobschema-since", "2.23", "runai-api.md:184"),
    ("spec.storage.configMapVolume[].defaultMode", "x-jobschema-since", "2.23", "runai-api.md:184"),
    ("spec.storage.secretVolume[].defaultMode", "x-jobschema-since", "2.23", "runai-api.md:184"),
    ("spec.preemptibility", "x-jobschema-since", "2.24", "runai-api.md:185"),
    ("spec.exposedUrls[].authorizationType", "x-jobschema-since", "2.24", "runai-api.md:185"),
    ("spec.environmentVariables[].userCredential", "x-jobschema-since", "2.24", "runai-api.md:185"),
    ("spec.compute.migProfile", "x-jobschema-until", "2.24", "runai-api.md:185"),
    ("masterSpec.compute.migProfile", "x-jobschema-until", "2.24", "runai-api.md:185"),
    ("spec.compute.gpuRequestType", "x-jobschema-enum-until", {"migProfile": "2.24"}, "runai-api.md:185"),
    *(
        (f"masterSpec.{field}", "deprecated", "2.24", "runai-api.md:185")
        for field in ("backoffLimit", "autoDeletionTimeAfterCompletionSeconds", "terminationGracePeriodSeconds",
                      "priorityClass")
    ),
    # In the current policy documentation only, in no published spec (runai-api.md:62).
    ("spec.security.privileged", "x-jobschema-since", "later", "runai-api.md:62"),
]
# fmt: on


@pytest.mark.parametrize("row", VERSIONS, ids=lambda r: f"{r[0]}:{r[1]}")
def test_versions_agree_with_the_reference(row: tuple[str, str, Any, str]) -> None:
    field, annotation, expected, source = row
    found = spot(RUNAI, field)
    if annotation == "deprecated":
        # the first version that flags it
        actual = [
            min(
                (v for v, flag in by["deprecated"].items() if flag is True),
                key=lambda v: tuple(map(int, v.split("."))),
            )
            for by in keyword(found, "x-jobschema-by-version")
            if "deprecated" in by
        ]
    else:
        actual = keyword(found, annotation)
    assert actual == [expected], f"{RUNAI}:{field} ({source}): {annotation} {actual}"


REFERENCE = SHARED_SEEDS.parent / "reference"


def _last_name(field: str) -> str:
    return field.rsplit(".", maxsplit=1)[-1].replace("[]", "").replace("{}", "")


@pytest.mark.skipif(not REFERENCE.is_dir(), reason="../shared/reference is not beside this checkout")
def test_every_fact_cites_a_reference_line_that_names_it() -> None:
    """The first ``file:line`` of each row's source is a line of that reference naming the field."""
    facts: list[Fact | Required | Deprecation] = [*FACTS, *REQUIRED, *DEPRECATIONS]
    cited: list[tuple[str, str, tuple[str, ...]]] = [
        (fid(f), f.source, f.names if isinstance(f, Required) else (_last_name(f.field),))
        for f in facts
        if f.field
    ]
    cited += [(field, source, (_last_name(field),)) for field, _, _, source in VERSIONS]
    cited += [(field, source, (_last_name(field),)) for _, field, _, source in _bound_cases()]
    lines = {path.name: path.read_text(encoding="utf-8").splitlines() for path in REFERENCE.glob("*.md")}
    wrong = []
    for what, source, names in cited:
        name, _, number = source.split(",")[0].partition(":")
        line = lines[name][int(number.split("-")[0]) - 1]
        if not all(each in line for each in names):
            wrong.append(f"{what}: {source}")
    assert wrong == []


# ---------------------------------------------------------------------------------------------
# Enforced or warned, as validation reports it: one probe per class, on a bundled capture


def _set(document: Any, tokens: tuple[str | int, ...], value: Any) -> Any:
    changed = copy.deepcopy(document)
    target = changed
    for token in tokens[:-1]:
        target = target[token]
    target[tokens[-1]] = value
    return changed


PROBES: list[tuple[str, str, tuple[str | int, ...], Any, list[tuple[str, str]]]] = [
    # (schema, capture, tokens, value, expected findings at that place: (severity, rule))
    (RUNAI, "seed.json", ("desiredPhase",), "Paused", [("error", "enum")]),
    (RUNAI, "seed.json", ("clusterId",), "cluster-1", [("error", "format")]),
    (RUNAI, "seed.json", ("workloadId",), "workload-1", [("warning", "soft-format")]),
    (RUNAI, "seed.json", ("spec", "priorityClass"), "urgent", [("warning", "known-values")]),
    (RUNAI, "seed.json", ("spec", "priorityClass"), "very-high", []),
    (DETAIL, "seed.json", ("result", "priority"), "urgent", [("error", "enum")]),
    (DETAIL, "seed.json", ("result", "createdAt"), "yesterday", [("error", "format")]),
    (DETAIL, "seed.json", ("result", "status"), "Hibernating", [("warning", "known-values")]),
    (DETAIL, "seed.json", ("result", "k8sUID"), "job-uid", [("warning", "soft-format")]),
    (DETAIL, "seed.json", ("result", "jobFramework"), "pytorch", []),
    (
        DETAIL,
        "multi-pod-pytorch.json",
        ("result", "datasources", 1, "options", "medium"),
        "HugePages-2Mi",
        [],
    ),
    (DETAIL, "multi-pod-pytorch.json", ("result", "datasources", 1, "options", "medium"), "", []),
    (
        DETAIL,
        "multi-pod-pytorch.json",
        ("result", "datasources", 1, "options", "medium"),
        "SSD",
        [("warning", "soft-pattern")],
    ),
    (RAW, "seed.json", ("priority",), "urgent", [("warning", "known-values")]),
    (RAW, "seed.json", ("priority",), "high", []),
    (RAW, "seed.json", ("alertConfig",), None, []),
    (RAW, "seed.json", ("alertConfig",), {"alertName": "gpu-idle"}, []),
    (RAW, "seed.json", ("alertConfig",), [], [("error", "type")]),
    (V2, "sdk-running-4-pods.json", ("job", "jobType"), "pytorch", []),
    (V2, "sdk-running-4-pods.json", ("job", "jobType"), "rayjob", [("warning", "known-values")]),
    (V2, "sdk-running-4-pods.json", ("job", "datasources", 0, "type"), "hostPath", []),
]


@pytest.mark.parametrize(
    "probe", PROBES, ids=lambda p: f"{p[0]}:{'/'.join(map(str, p[2]))}={json.dumps(p[3])}"
)
def test_enforced_or_warned(
    probe: tuple[str, str, tuple[str | int, ...], Any, list[tuple[str, str]]],
) -> None:
    schema, capture, tokens, value, expected = probe
    payload = _set(load_json(CAPTURES / schema / capture), tokens, value)
    result = validate_payload(payload, schema)
    at = [(f.severity, f.rule) for f in result.findings if tuple(f.tokens) == tokens]
    assert at == expected
    assert [f for f in result.findings if f.severity == "error" and tuple(f.tokens) != tokens] == []
