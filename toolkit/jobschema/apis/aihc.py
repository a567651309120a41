"""Baidu AIHC v1 training jobs (``/api/v1/aijobs``): facts the schema cannot say."""

from __future__ import annotations

import re

JOB_SCHEMA = "aihc-job-detail"
ERROR_SCHEMA = "aihc-error"
RAW_REQUEST_SCHEMA = "aihc-raw-request"
#: ``GET /api/v1/aijobs/{jobId}``
JOB_PATH = re.compile(r"^/api/v1/aijobs/[^/]+/?$")

#: The pod annotation holding the stored create-job request, as JSON text.
RAW_REQUEST_ANNOTATION = "aijob.cce.baidubce.com/raw-request"
#: The label and annotation that repeat the job id.
JOB_ID_KEY = "aijob.cce.baidubce.com/openapi-jobid"
#: Job statuses a job does not leave by itself.
TERMINAL_STATUSES = frozenset({"Succeeded", "Failed", "Stopped", "ManualTermination"})
#: The pods' environment variables that say where a replica stands in the job.
RANK_VARIABLES = ("WORLD_SIZE", "RANK")
