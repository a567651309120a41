# ruff: noqa: E501  (the table of forms: one row a line, each token written whole)
"""Credential forms of a ninth round, and the output channels an input value reaches.

Credential forms of a ninth round: 532 forms of families the earlier tables had not tried (ML
platforms' keys: W&B, Hugging Face, MLflow, Comet, Neptune, Kaggle, OpenAI, Anthropic, NGC, Baidu BCE,
Aliyun, Tencent, Qianfan, DeepSeek, Replicate, …; cluster credentials: Run:ai, Slurm, MPI, kubeconfig
exec plugins and auth providers, Argo, Helm, Vault, Consul, Nomad, etcd, kubeadm, k3s, MinIO, rclone,
Spark, Airflow, Jupyter, Ceph, CI runners; strings that are code or commands: Python, JavaScript, Go,
Java, C#, Ruby, PHP, Rust, PowerShell, cmd, shells, curl, wget, openssl, database clients, Terraform,
Ansible; encodings and wrappers: hex with ``0x``, ``\\x`` escapes, double and triple base64, percent
encoding twice, JSON escaped twice, entities, quoted-printable, YAML blocks, anchors, ``$'…'``,
continuations; network devices; round 8's known gaps), then 58 written for the classes found shown
(``cls-…``); and the output channels an input value reaches.

Found shown before this round: 51 of the 532 (in scrub, some holder and encoding of
tests/secret_forms.py, or a payload place) and 46 of the 58; left: 10 (``KNOWN_GAPS``) and 7 shown in
one holder or container only (``HELD_GAPS``, ``CONTAINER_GAPS``). The classes, each fixed by a rule:

- **a password given by position** to a call that opens a connection or logs in
  (``POSITIONAL_CALLS``: ``new mysqli("db", "bob", X)``, ``mysqli_connect``, ``new PDO(dsn, "bob",
  X)``, ``oci_connect``, ``ftp_login``, ``ldap_bind``, ``ssh2_auth_password``, ``ftplib.FTP``,
  ``pymysql.connect``, ``cx_Oracle.connect``, ``.basic_auth("bob", Some(X))``,
  ``AuthenticationHeaderValue("Bearer", X)``);
- **a network device's credential line** (``DEVICE_HEADS``, ``DEVICE_KEYWORDS``: ``tacacs-server …
  key X``, ``snmp-server community X``, ``enable secret 0 X``, ``ntp authentication-key 1 md5 X``,
  ``key-string``, Junos ``set … secret "X"``, FortiOS ``set psksecret``, keepalived ``auth_pass``);
- **a user:password literal given to an encoding call** (``ENCODER_CALLS``: ``btoa``,
  ``Buffer.from``, ``b64encode``, ``strict_encode64``, ``EncodeToString([]byte(…))``, ``GetBytes``);
- **a property list's value after its ``<key>``**; **a gossip key under ``encrypt``**
  (``KEY_VALUE_WORDS``: a value of a key's size);
- **what is echoed through decoding filters to a stdin reader** (``PIPE_FILTERS``: ``echo B64 |
  base64 -d | docker login --password-stdin``); hex after ``0x``; ``vault token lookup X``,
  ``influx -t X``; a self-hosted W&B key (``local-`` + 40 hex digits), Airtable's ``pat…`` token
  (a bare key with a vendor's structure);
- found by the holders: **a token grown backwards into an escape's digits** (``%22sk-…``: the mask
  took ``22`` and left the ``%``; a second scrub changed the text).

False masks removed: an authorization scheme alone (``"Basic " + btoa(…)``), a GraphQL variable
before the bracket closing its call (``login(password: $p) { … }``), a call's keyword argument given
a variable (``connect(password=db_password)``), a login call's arguments read as prose
(``wandb.login(key=X)`` masked ``(key=`` too).

Output channels (tried with planted forms as wrong-typed values, enum and pattern misses, keys, job
ids, request paths, broken JSON quoting them, in validate's five formats and ``-o``, diff's and
``diff --history``'s, timeline's four, coverage's three, versions' two, redact, changes' six, serve's
answers and access log): 12 of 142 outputs showed one, in three classes fixed where the output is
written: a key in a validate finding's pointer (report/common.py), a job's id in diff ``--history``
(diff/history.py), a URL path's segment (``mask_url``: serve's access log, record's HAR, redact);
``schemas show FILE`` masks a schema file's credentials (tests/test_generate_round7.py).

Each form is held to the checks of tests/secret_forms.py (scrub, every container, payload places,
``redact --check``/``redact``, every validate, diff and timeline output) and composed with every
holder and encoding (``held_test``); the hypothesis tests below try each class beyond its rows, and
near misses must stay as they are.
"""

from __future__ import annotations

import base64
import copy
import html
import json
import quopri
import urllib.parse
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.secrets import mask, mask_url, scrub
from jobschema.serve.app import shown_path
from tests.linear_support import assert_linear, named_work
from tests.secret_forms import b64, form_tests, held_test, pct, shown
from tests.support import REPO

R = "Qz7vK2mX9pL4wR8tNb3YcD6fHj"  # random-looking, 26 characters
V = "Vb8nQ3xZ7kLp2Wd9Ty5Hc4Mf"  # another, 24
K = "J5KxM2NyP6Q8wS9Tz3"  # a key id's random part (another, 18)
W = "sunshine42"  # a wordy password
P = "Tr0ub4dor&3x!Q"  # punctuation
H32 = "9f86d081884c7d659a2feaa0c55ad015"
H40 = "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3"
H64 = H32 + H32[::-1]
UUID = "3f2b8c1e-7d4a-4e9b-a1c2-5d6e7f8a9b0c"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJRejd2SzJtWDlwTDR3UjgiLCJpYXQiOjE1MTYyMzkwMjJ9."
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
KU = "J5KXM2NYP6Q8WS9T"  # a key id's random part, upper case (16)


def b64u(text: str) -> str:
    """``text`` in URL-safe base64 without padding."""
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def hexs(text: str) -> str:
    """``text`` as hex digits."""
    return text.encode().hex()


#: ``(id, text, secret)``: the secret must not be shown once ``text`` is read.
FORMS: list[tuple[str, str, str]] = []


def _form(name: str, text: str, secret: str) -> None:
    FORMS.append((name, text, secret))


# fmt: off

NEPTUNE = b64(json.dumps({"api_address": "https://app.neptune.ai", "api_url": "https://app.neptune.ai", "api_key": f"{UUID}-{R}"}))
# --- ML platforms
_form("wandb-env", f"WANDB_API_KEY={H40}", H40)
_form("wandb-export", f"export WANDB_API_KEY={H40}", H40)
_form("wandb-login-cmd", f"wandb login {H40}", H40)
_form("wandb-login-relogin", f"wandb login --relogin {H40}", H40)
_form("wandb-login-host", f"wandb login --host https://wandb.x.com {H40}", H40)
_form("wandb-netrc", f"machine api.wandb.ai\n  login user\n  password {H40}\n", H40)
_form("wandb-python-login", f'wandb.login(key="{H40}")', H40)
_form("wandb-python-login-pos", f'wandb.login("{H40}")', H40)
_form("wandb-settings-ini", f"[default]\nbase_url = https://api.wandb.ai\napi_key = {H40}\n", H40)
_form("wandb-local-key", f"local-{H40}", f"local-{H40}")
_form("wandb-env-json", json.dumps({"name": "WANDB_API_KEY", "value": H40}), H40)
_form("wandb-docker-e", f"docker run -e WANDB_API_KEY={H40} img", H40)
_form("hf-env", f"HF_TOKEN=hf_{R}{V[:8]}", f"hf_{R}")
_form("hf-bare", f"using hf_{R}{V[:8]} for pull", f"hf_{R}")
_form("hf-cli-login", f"huggingface-cli login --token hf_{R}{V[:8]}", f"hf_{R}")
_form("hf-cli-login-word", f"huggingface-cli login --token {R}{V}", R + V)
_form("hf-hub-login-py", f'from huggingface_hub import login; login("{R}{V}")', R + V)
_form("hf-from-pretrained", f'AutoModel.from_pretrained("org/m", token="{R}{V}")', R + V)
_form("hf-use-auth-token", f'AutoModel.from_pretrained("org/m", use_auth_token="{R}{V}")', R + V)
_form("hf-git-url", f"git clone https://user:hf_{R}{V[:8]}@huggingface.co/org/m", f"hf_{R}")
_form("hf-header", f"curl -H 'Authorization: Bearer hf_{R}{V[:8]}' https://huggingface.co/api/whoami-v2", f"hf_{R}")
_form("hf-token-file", f"echo hf_{R}{V[:8]} > ~/.cache/huggingface/token", f"hf_{R}")
_form("hf-token-file-plain", f"echo {R}{V} > ~/.cache/huggingface/token", R + V)
_form("mlflow-uri", f"MLFLOW_TRACKING_URI=https://bob:{W}@mlflow.x.com", W)
_form("mlflow-pw-env", f"MLFLOW_TRACKING_PASSWORD={W}", W)
_form("mlflow-token-env", f"MLFLOW_TRACKING_TOKEN={R}", R)
_form("mlflow-set-uri-py", f'mlflow.set_tracking_uri("https://bob:{W}@mlflow.x.com")', W)
_form("mlflow-db-uri", f"mlflow server --backend-store-uri postgresql://mlflow:{W}@db/mlflow", W)
_form("comet-env", f"COMET_API_KEY={R}", R)
_form("comet-config", f"[comet]\napi_key = {R}\nworkspace = team\n", R)
_form("comet-py", f'Experiment(api_key="{R}", project_name="x")', R)
_form("comet-init", f'comet_ml.init(api_key="{R}")', R)
_form("neptune-env", f"NEPTUNE_API_TOKEN={NEPTUNE}", NEPTUNE[:40])
_form("neptune-bare", f"token {NEPTUNE}", NEPTUNE[:40])
_form("neptune-py", f'neptune.init_run(project="w/p", api_token="{NEPTUNE}")', NEPTUNE[:40])
_form("neptune-json-bare", NEPTUNE, NEPTUNE[:40])
_form("kaggle-json", json.dumps({"username": "bob", "key": H32}), H32)
_form("kaggle-env", f"KAGGLE_KEY={H32}", H32)
_form("kaggle-write", f"echo '{{\"username\":\"bob\",\"key\":\"{H32}\"}}' > ~/.kaggle/kaggle.json", H32)
_form("kaggle-env-both", f"KAGGLE_USERNAME=bob KAGGLE_KEY={H32} kaggle datasets download x", H32)
_form("openai-sk-proj", f"sk-proj-{R}{V}{R}T3BlbkFJ{V}", f"sk-proj-{R}")
_form("openai-sk-bare", f"key sk-{R}T3BlbkFJ{V}", f"sk-{R}")
_form("openai-py", f'client = OpenAI(api_key="sk-{R}{V}")', f"sk-{R}")
_form("openai-py-word", f'client = OpenAI(api_key="{R}{V}")', R + V)
_form("openai-module-attr", f'openai.api_key = "sk-{R}{V}"', f"sk-{R}")
_form("openai-module-attr-word", f'openai.api_key = "{R}{V}"', R + V)
_form("anthropic-key", f"ANTHROPIC_API_KEY=sk-ant-api03-{R}{V}{R}-AA", f"sk-ant-api03-{R}")
_form("anthropic-bare", f"sk-ant-api03-{R}{V}{R}-AA", f"sk-ant-api03-{R}")
_form("anthropic-admin", f"sk-ant-admin01-{R}{V}{R}-AA", f"sk-ant-admin01-{R}")
_form("anthropic-header", f"x-api-key: sk-ant-api03-{R}{V}{R}-AA", f"sk-ant-api03-{R}")
_form("anthropic-py", f'anthropic.Anthropic(api_key="{R}{V}")', R + V)
_form("ngc-key", f"NGC_API_KEY=nvapi-{R}{V}-{R[:10]}", f"nvapi-{R}")
_form("ngc-bare", f"nvapi-{R}{V}-{R[:10]}", f"nvapi-{R}")
_form("ngc-docker-login", f"docker login nvcr.io -u '$oauthtoken' -p nvapi-{R}{V}", f"nvapi-{R}")
_form("ngc-docker-login-word", f"docker login nvcr.io --username '$oauthtoken' --password {R}{V}", R + V)
_form("ngc-config", f"[CURRENT]\napikey = {R}{V}\nformat_type = ascii\norg = x\n", R + V)
_form("ngc-config-set", f"ngc config set --apikey {R}{V}", R + V)
_form("bce-ak-sk-pair", f"ak: ALTAK{R[:16]}\nsk: {H32}\n", H32)
_form("bce-env", f"BCE_ACCESS_KEY_ID=ALTAK{R[:16]} BCE_SECRET_ACCESS_KEY={H32}", H32)
_form("bce-auth-header", f"Authorization: bce-auth-v1/ALTAK{R[:16]}/2026-01-01T00:00:00Z/1800/host;x-bce-date/{H64}", H64)
_form("bce-auth-bare", f"bce-auth-v1/{H32}/2026-01-01T00:00:00Z/1800//{H64}", H64)
_form("bce-auth-query", f"https://bj.bcebos.com/b/o?authorization=bce-auth-v1%2F{H32}%2F2026-01-01T00%3A00%3A00Z%2F1800%2Fhost%2F{H64}", H64)
_form("bce-credentials-py", f'BceCredentials("ALTAK{R[:16]}", "{H32}")', H32)
_form("bce-cli-configure", f"bce configure --access-key ALTAK{R[:16]} --secret-key {H32}", H32)
_form("bce-secretaccesskey-json", json.dumps({"accessKeyId": f"ALTAK{R[:16]}", "secretAccessKey": H32}), H32)
_form("aliyun-ltai-pair", f"LTAI5t{K} {(R+V)[:30]}", (R+V)[:30])
_form("aliyun-env", f"ALIBABA_CLOUD_ACCESS_KEY_SECRET={R[:30]}", R[:30])
_form("aliyun-cli", f"aliyun configure set --access-key-id LTAI5t{R[:18]} --access-key-secret {R[:30]}", R[:30])
_form("aliyun-oss-py", f'oss2.Auth("LTAI5t{K}", "{(R+V)[:30]}")', (R+V)[:30])
_form("aliyun-ossutil-config", f"[Credentials]\nlanguage=EN\nendpoint=oss.aliyuncs.com\naccessKeyID=LTAI5t{R[:18]}\naccessKeySecret={R[:30]}\n", R[:30])
_form("tencent-akid-pair", f"AKID{K}{H32[:14]} {(V+R)[:32]}", (V+R)[:32])
_form("tencent-env", f"TENCENTCLOUD_SECRET_KEY={R[:32]}", R[:32])
_form("tencent-credential-py", f'credential.Credential("AKID{R}{V[:6]}", "{V}{R[:8]}")', V + R[:8])
_form("tencent-coscmd", f"coscmd config -a AKID{R}{V[:6]} -s {V}{R[:8]} -b b-125 -r ap-beijing", V + R[:8])
_form("qianfan-env", f"QIANFAN_SK={H32}", H32)
_form("qianfan-bearer", f"Authorization: Bearer bce-v3/ALTAK-{R[:20]}/{H40}", H40)
_form("deepseek-key", f"DEEPSEEK_API_KEY=sk-{H32}", H32)
_form("deepseek-bare", f"sk-{H32}", H32)
_form("moonshot-key", f"MOONSHOT_API_KEY=sk-{R}{V}", R + V)
_form("dashscope-key", f"DASHSCOPE_API_KEY=sk-{H32}", H32)
_form("zhipu-key", f"ZHIPUAI_API_KEY={H32}.{R[:16]}", H32)
_form("replicate-token", f"REPLICATE_API_TOKEN=r8_{R}{V[:11]}", f"r8_{R}")
_form("replicate-bare", f"use r8_{R}{V[:11]}", f"r8_{R}")
_form("cohere-key", f"CO_API_KEY={R}{V[:14]}", R + V[:14])
_form("mistral-key", f"MISTRAL_API_KEY={R[:20]}{V[:12]}", R[:20])
_form("together-key", f"TOGETHER_API_KEY={H64}", H64)
_form("groq-bare", f"gsk_{R}{V}", f"gsk_{R}")
_form("gemini-key", f"GEMINI_API_KEY=AIzaSy{R}{V[:7]}", f"AIzaSy{R}")
_form("pinecone-env", f"PINECONE_API_KEY={UUID}", UUID)
_form("clearml-conf", f'api {{\n  credentials {{\n    "access_key" = "{R[:20]}"\n    "secret_key" = "{R}{V}"\n  }}\n}}\n', R + V)
_form("clearml-env", f"CLEARML_API_SECRET_KEY={R}{V}", R + V)
_form("dvc-remote-modify", f"dvc remote modify --local myremote secret_access_key {R}{V}", R + V)
_form("dvc-remote-password", f"dvc remote modify --local storage password {W}", W)
_form("dvc-config", f"['remote \"storage\"']\n    url = s3://b\n    secret_access_key = {R}{V}\n", R + V)
_form("sagemaker-hf-token-env", json.dumps({"Environment": {"HF_TOKEN": f"hf_{R}{V[:8]}"}}), f"hf_{R}")
_form("modal-token", f"modal token set --token-id ak-{R[:22]} --token-secret as-{V}{R[:8]}", f"as-{V}")
_form("ray-redis-password", f"ray start --head --redis-password={W}", W)
_form("determined-pw", f"det user login bob --password {W}", W)
_form("label-studio-token", f"LABEL_STUDIO_API_KEY={H40}", H40)
_form("roboflow-py", f'Roboflow(api_key="{R[:20]}")', R[:20])
_form("ollama-bearer", f"OLLAMA_API_KEY={R}{V}", R + V)
_form("langfuse-keys", f"LANGFUSE_SECRET_KEY=sk-lf-{UUID}", UUID)
_form("openrouter-key", f"sk-or-v1-{H64}", H64)
_form("wandb-json-settings", json.dumps({"api_key": H40, "entity": "team"}), H40)
# --- cluster credentials
_form("runai-client-secret-json", json.dumps({"grantType": "client_credentials", "clientId": "app", "clientSecret": R + V}), R + V)
_form("runai-client-secret-snake", json.dumps({"client_id": "app", "client_secret": R + V}), R + V)
_form("runai-login-app", f"runai login application --name app --secret {R}{V}", R + V)
_form("runai-login-app-eq", f"runai login app --name=app --secret={R}{V}", R + V)
_form("runai-env", f"RUNAI_CLIENT_SECRET={R}{V}", R + V)
_form("runai-app-secret-env", f"RUNAI_APP_SECRET={R}{V}", R + V)
_form("runai-token-curl", f"curl -X POST https://x.run.ai/api/v1/token -d '{{\"grantType\":\"app_token\",\"AppId\":\"a\",\"AppSecret\":\"{R}{V}\"}}'", R + V)
_form("runai-submit-e", f"runai submit job -i img -e HF_TOKEN=hf_{R}{V[:8]} -e LR=0.1", f"hf_{R}")
_form("runai-submit-environment", f"runai training submit t -i img --environment DB_PASSWORD={W}", W)
_form("nccl-env-safe-socket", f"NCCL_SOCKET_IFNAME=eth0 NCCL_IB_HCA=mlx5 WANDB_API_KEY={H40} torchrun train.py", H40)
_form("slurm-sbatch-export", f"sbatch --export=ALL,HF_TOKEN=hf_{R}{V[:8]} job.sh", f"hf_{R}")
_form("slurm-export-pw", f"sbatch --export=DB_PASSWORD={W},N=1 job.sh", W)
_form("mpirun-x", f"mpirun -np 8 -x WANDB_API_KEY={H40} -x NCCL_DEBUG=INFO python train.py", H40)
_form("mpirun-x-word", f"mpirun -x API_TOKEN={R} -np 2 ./a.out", R)
_form("srun-export", f"srun --export=ALL,API_KEY={R} python x.py", R)
_form("kubeconfig-exec-token", f"users:\n- name: u\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: kubectl-oidc\n      args:\n      - --token\n      - {R}{V}\n", R + V)
_form("kubeconfig-exec-token-eq", f"users:\n- name: u\n  user:\n    exec:\n      command: get-token\n      args: [\"--token={R}{V}\"]\n", R + V)
_form("kubeconfig-exec-env", f"    exec:\n      command: aws\n      env:\n      - name: AWS_SECRET_ACCESS_KEY\n        value: {R}{V}\n", R + V)
_form("kubeconfig-auth-provider", f"    auth-provider:\n      name: oidc\n      config:\n        client-secret: {R}\n        id-token: {JWT}\n        refresh-token: {V}\n", R)
_form("kubeconfig-auth-provider-refresh", f"    auth-provider:\n      config:\n        refresh-token: {V}{R[:4]}\n", V)
_form("kubeconfig-password", f"users:\n- name: admin\n  user:\n    username: admin\n    password: {W}\n", W)
_form("argo-values-password", f"server:\n  config:\n    dex.config: |\n      connectors:\n      - type: github\n        config:\n          clientSecret: {R}\n", R)
_form("argocd-login", f"argocd login cd.x.com --username admin --password {W}", W)
_form("argocd-repo-add", f"argocd repo add https://g/x.git --username bob --password {W}", W)
_form("argocd-account-token", f"argocd account generate-token --account ci --auth-token {R}{V}", R + V)
_form("helm-set-password", f"helm install app chart --set postgresql.auth.password={W}", W)
_form("helm-set-string-key", f"helm upgrade app chart --set-string secrets.apiKey={R}", R)
_form("helm-set-list", f"helm install a c --set auth.username=bob,auth.password={W}", W)
_form("helm-values-nested", f"global:\n  postgresql:\n    auth:\n      postgresPassword: {W}\n", W)
_form("vault-hvs", f"VAULT_TOKEN=hvs.CAESI{R}{V}", f"hvs.CAESI{R}")
_form("vault-hvs-bare", f"token is hvs.CAESI{R}{V}", f"hvs.CAESI{R}")
_form("vault-s-token-env", f"VAULT_TOKEN=s.{R[:24]}", f"s.{R[:24]}")
_form("vault-s-token-bare", f"vault token lookup s.{R[:24]}", f"s.{R[:24]}")
_form("vault-login-token-eq", f"vault login token={R}{V}", R + V)
_form("vault-header", f"X-Vault-Token: hvs.{R}{V}", f"hvs.{R}")
_form("vault-header-s", f"X-Vault-Token: s.{R[:24]}", R[:24])
_form("vault-hvb", f"hvb.AAAAAQ{R}{V}{R}", f"hvb.AAAAAQ{R}")
_form("vault-approle-secret-id", f"vault write auth/approle/login role_id={UUID} secret_id={UUID[::-1]}", UUID[::-1])
_form("vault-kv-put", f"vault kv put secret/db password={W}", W)
_form("vault-kv-put-key", f"vault kv put secret/app api_key={R}", R)
_form("consul-acl-env", f"CONSUL_HTTP_TOKEN={UUID}", UUID)
_form("consul-acl-header", f"X-Consul-Token: {UUID}", UUID)
_form("consul-acl-flag", f"consul members -token={UUID}", UUID)
_form("consul-acl-hcl", f'acl {{\n  tokens {{\n    initial_management = "{UUID}"\n    agent = "{UUID[::-1]}"\n  }}\n}}\n', UUID)
_form("consul-acl-master", f'acl_master_token = "{UUID}"', UUID)
_form("nomad-token-env", f"NOMAD_TOKEN={UUID}", UUID)
_form("etcd-password-flag", f"etcd --password {W}", W)
_form("etcdctl-user", f"etcdctl --user root:{W} get /x", W)
_form("etcdctl-password", f"etcdctl --user root --password {W} get /x", W)
_form("etcd-env", f"ETCDCTL_PASSWORD={W}", W)
_form("k8s-bootstrap-token", f"kubeadm join 10.0.0.1:6443 --token abcdef.{H32[:16]} --discovery-token-ca-cert-hash sha256:{H64}", f"abcdef.{H32[:16]}")
_form("k8s-bootstrap-token-bare", f"token: abcdef.{H32[:16]}", H32[:16])
_form("kubeadm-certificate-key", f"kubeadm join 10.0.0.1:6443 --control-plane --certificate-key {H64}", H64)
_form("k3s-token", f"curl -sfL https://get.k3s.io | K3S_TOKEN={R}{V} sh -", R + V)
_form("k3s-server-token", f"k3s server --token {R}{V}", R + V)
_form("rke2-config", f"token: {R}{V}\nserver: https://x:9345\n", R + V)
_form("minio-root-pw", f"MINIO_ROOT_PASSWORD={W}", W)
_form("minio-mc-env", f"MC_HOST_s3=https://AKIA{KU}:{R}{V[:14]}@s3.amazonaws.com", R + V[:14])
_form("rclone-obscure", f"rclone config create r s3 access_key_id AK secret_access_key {R}{V}", R + V)
_form("rclone-conf", f"[remote]\ntype = s3\naccess_key_id = AK\nsecret_access_key = {R}{V}\n", R + V)
_form("rclone-env", f"RCLONE_CONFIG_MYS3_SECRET_ACCESS_KEY={R}{V}", R + V)
_form("s3cmd-cfg", f"[default]\naccess_key = AK\nsecret_key = {R}{V}\n", R + V)
_form("juicefs-format", f"juicefs format --storage s3 --bucket https://b --access-key AK --secret-key {R}{V} redis://:{W}@r:6379/1 vol", W)
_form("lustre-none", f"alluxio fs mount --option s3a.secretKey={R}{V} /s3 s3://b/", R + V)
_form("spark-conf-secret", f"spark-submit --conf spark.hadoop.fs.s3a.secret.key={R}{V} app.py", R + V)
_form("spark-conf-password", f"--conf spark.executorEnv.DB_PASSWORD={W}", W)
_form("hadoop-xml", f"<property><name>fs.s3a.secret.key</name><value>{R}{V}</value></property>", R + V)
_form("airflow-conn-uri", f"AIRFLOW_CONN_PG=postgres://bob:{W}@db:5432/x", W)
_form("airflow-fernet", f"AIRFLOW__CORE__FERNET_KEY={b64(R[:24]+V[:8])}", b64(R[:24] + V[:8]))
_form("airflow-connections-add", f"airflow connections add pg --conn-password {W} --conn-login bob", W)
_form("airflow-users-create", f"airflow users create -u admin -p {W} -r Admin -e a@x -f a -l b", W)
_form("jupyter-token", f"jupyter lab --NotebookApp.token={H40}", H40)
_form("jupyter-serverapp-token", f"jupyter lab --ServerApp.token='{R}'", R)
_form("jupyter-url-token", f"http://127.0.0.1:8888/lab?token={H40}{H32[:8]}", H40)
_form("jupyter-password-hash", f"c.NotebookApp.password = 'argon2:$argon2id$v=19$m=10240,t=10,p=8${R}${V}'", R)
_form("tensorboard-dev-none", f"TENSORBOARD_TOKEN={R}", R)
_form("mlflow-s3-env", f"MLFLOW_S3_ENDPOINT_URL=http://minio:9000 AWS_SECRET_ACCESS_KEY={R}{V} mlflow run .", R + V)
_form("ssh-pass-env-sshpass", f"SSHPASS={W} sshpass -e ssh bob@h", W)
_form("ceph-key", f"[client.admin]\n\tkey = AQ{R}{V}==\n", f"AQ{R}")
_form("ceph-mount-secret", f"mount -t ceph 10.0.0.1:/ /mnt -o name=admin,secret=AQ{R}{V}==", f"AQ{R}")
_form("ceph-auth-add", f"ceph auth get-or-create client.x | tee /etc/ceph/ceph.client.x.keyring; echo 'key = AQ{R}{V}=='", f"AQ{R}")
_form("gitlab-runner-register", f"gitlab-runner register --url https://g --registration-token GR1348941{R[:20]}", f"GR1348941{R[:20]}")
_form("gitlab-runner-token-glrt", f"token = \"glrt-{R[:20]}\"", f"glrt-{R[:20]}")
_form("github-runner-config", f"./config.sh --url https://github.com/o/r --token A{R[:28]}", f"A{R[:28]}")
_form("buildkite-agent", f"buildkite-agent start --token {H64[:50]}", H64[:50])
_form("drone-rpc-secret", f"DRONE_RPC_SECRET={H32}", H32)
_form("harbor-robot", f"docker login harbor.x -u 'robot$ci' -p {R}{V}", R + V)
_form("harbor-robot-json", json.dumps({"name": "robot$ci", "secret": R + V}), R + V)
# --- strings that are documents or commands
_form("py-requests-auth", f'requests.get(url, auth=("bob", "{W}"))', W)
_form("py-requests-auth-tuple-var", f'auth = ("bob", "{W}")\nrequests.get(url, auth=auth)', W)
_form("py-requests-headers", f'requests.post(url, headers={{"Authorization": "Bearer {R}{V}"}})', R + V)
_form("py-requests-headers-key", f'requests.post(url, headers={{"X-API-Key": "{R}"}})', R)
_form("py-httpx-basic", f'httpx.BasicAuth("bob", "{W}")', W)
_form("py-aiohttp-basic", f'aiohttp.BasicAuth("bob", "{W}")', W)
_form("py-psycopg-connect", f'psycopg2.connect(host="db", user="bob", password="{W}")', W)
_form("py-psycopg-dsn", f'psycopg2.connect("host=db user=bob password={W}")', W)
_form("py-pymysql", f'pymysql.connect("db", "bob", "{W}", "app")', W)
_form("py-sqlalchemy-url", f'create_engine("mysql+pymysql://bob:{W}@db/app")', W)
_form("py-redis", f'redis.Redis(host="r", password="{W}")', W)
_form("py-boto3-client", f'boto3.client("s3", aws_access_key_id="AKIA{KU}", aws_secret_access_key="{R}{V[:14]}")', R + V[:14])
_form("py-boto3-session-pos", f'boto3.Session("AKIA{KU}", "{R}{V[:14]}")', R + V[:14])
_form("py-paramiko", f'ssh.connect("h", username="bob", password="{W}")', W)
_form("py-smtplib", f'server.login("bob@x.com", "{W}")', W)
_form("py-ldap3", f'Connection(server, user="cn=admin", password="{W}")', W)
_form("py-pika-plain", f'pika.PlainCredentials("bob", "{W}")', W)
_form("py-mongo", f'MongoClient("mongodb://bob:{W}@m:27017")', W)
_form("py-env-dict", f'os.environ.update({{"API_KEY": "{R}"}})', R)
_form("py-setdefault", f'os.environ.setdefault("HF_TOKEN", "{R}")', R)
_form("py-fstring-header", f'headers = {{"Authorization": f"token {R}{V}"}}', R + V)
_form("py-kwargs-token", f'Github(login_or_token="{R}{V}")', R + V)
_form("py-dict-literal-secret", f"config = dict(user='bob', passwd='{W}')", W)
_form("curl-u", f"curl -u bob:{W} https://x", W)
_form("curl-user-eq", f"curl --user=bob:{W} https://x", W)
_form("curl-H-xapikey", f"curl -H 'X-Api-Key: {R}' https://x", R)
_form("curl-H-cookie", f"curl -H 'Cookie: session={R}{V}' https://x", R + V)
_form("curl-b", f"curl -b 'sessionid={R}' https://x", R)
_form("curl-data-pw", f"curl -d 'username=bob&password={W}' https://x/login", W)
_form("curl-data-json", f"curl -d '{{\"user\":\"bob\",\"pass\":\"{W}\"}}' https://x/login", W)
_form("curl-form", f"curl -F 'password={W}' https://x", W)
_form("curl-oauth2-bearer", f"curl --oauth2-bearer {R}{V} https://x", R + V)
_form("curl-aws-sigv4", f"curl --aws-sigv4 aws:amz:us-east-1:s3 --user AKIA{KU}:{R}{V[:14]} https://x", R + V[:14])
_form("curl-proxy-user", f"curl -x http://p:3128 -U bob:{W} https://x", W)
_form("curl-url-user", f"curl https://bob:{W}@x.com/api", W)
_form("curl-config-stdin", f"echo 'user = \"bob:{W}\"' | curl -K - https://x", W)
_form("wget-password", f"wget --password={W} --user=bob https://x/f", W)
_form("wget-http-password", f"wget --http-password={W} https://x/f", W)
_form("wget-ftp-password", f"wget --ftp-password {W} ftp://x/f", W)
_form("wget-header", f"wget --header='Authorization: token {R}{V}' https://x/f", R + V)
_form("wgetrc", f"http_user = bob\nhttp_password = {W}\n", W)
_form("ps-securestring", f"$p = ConvertTo-SecureString '{W}' -AsPlainText -Force", W)
_form("ps-securestring-string", f'ConvertTo-SecureString -String "{W}" -AsPlainText -Force', W)
_form("ps-pscredential", f"New-Object System.Management.Automation.PSCredential('bob', (ConvertTo-SecureString '{W}' -AsPlainText -Force))", W)
_form("ps-invoke-webrequest", f"Invoke-WebRequest -Uri https://x -Headers @{{Authorization='Bearer {R}{V}'}}", R + V)
_form("ps-env-assign", f"$env:API_TOKEN = '{R}'", R)
_form("ps-env-assign-dq", f'$Env:DB_PASSWORD="{W}"', W)
_form("ps-variable-password", f"$password = '{W}'", W)
_form("sshpass-p", f"sshpass -p {W} ssh bob@h", W)
_form("sshpass-p-attached", f"sshpass -p'{W}' scp f bob@h:", W)
_form("openssl-passin", f"openssl rsa -in k.pem -passin pass:{W} -out k2.pem", W)
_form("openssl-passout", f"openssl pkcs12 -export -passout pass:{W} -out x.p12", W)
_form("openssl-passin-env", f"openssl rsa -passin env:KEYPW -in k.pem; KEYPW={W}", W)
_form("openssl-enc-k", f"openssl enc -aes-256-cbc -k {W} -in f -out f.enc", W)
_form("openssl-enc-K", f"openssl enc -aes-256-cbc -K {H64} -iv {H40[:32]} -in f", H64)
_form("mongo-p", f"mongo -u bob -p {W} --authenticationDatabase admin", W)
_form("mongosh-password", f"mongosh --username bob --password {W} mongodb://h", W)
_form("mongodump-uri", f"mongodump --uri='mongodb+srv://bob:{W}@c.x.mongodb.net/db'", W)
_form("psql-uri", f'psql "postgresql://bob:{W}@db:5432/app?sslmode=require"', W)
_form("psql-kv", f"psql \"host=db user=bob password={W} dbname=app\"", W)
_form("pgpassword-env", f"PGPASSWORD={W} psql -h db -U bob", W)
_form("mysql-p-attached", f"mysql -ubob -p{W} app", W)
_form("mysql-password-eq", f"mysql --user=bob --password={W} app", W)
_form("mysqldump-env", f"MYSQL_PWD={W} mysqldump app", W)
_form("redis-cli-a", f"redis-cli -h r -a {W} ping", W)
_form("redis-cli-uri", f"redis-cli -u redis://default:{W}@r:6379", W)
_form("sqlcmd-P", f"sqlcmd -S db -U sa -P {W} -Q 'select 1'", W)
_form("js-fetch-auth", f'fetch(url, {{headers: {{Authorization: "Bearer {R}{V}"}}}})', R + V)
_form("js-fetch-auth-single", f"fetch(url, {{ headers: {{ 'Authorization': 'Basic {b64('bob:' + W)}' }} }})", b64("bob:" + W))
_form("js-axios-auth", f'axios.get(url, {{ auth: {{ username: "bob", password: "{W}" }} }})', W)
_form("js-process-env-assign", f'process.env.API_TOKEN = "{R}";', R)
_form("js-const-key", f'const apiKey = "{R}{V}";', R + V)
_form("js-object-token", f"const cfg = {{ token: '{R}{V}' }};", R + V)
_form("js-template-auth", f"headers: {{ Authorization: `Bearer {R}{V}` }}", R + V)
_form("js-btoa", f'"Basic " + btoa("bob:{W}")', W)
_form("go-setenv", f'os.Setenv("TOKEN", "{R}")', R)
_form("go-setenv-pw", f'os.Setenv("DB_PASSWORD", "{W}")', W)
_form("go-setbasicauth", f'req.SetBasicAuth("bob", "{W}")', W)
_form("go-header-set", f'req.Header.Set("Authorization", "Bearer {R}{V}")', R + V)
_form("go-header-add-key", f'req.Header.Add("X-Api-Key", "{R}")', R)
_form("go-const", f'const apiToken = "{R}{V}"', R + V)
_form("go-struct-field", f'cfg := Config{{User: "bob", Password: "{W}"}}', W)
_form("go-dsn-sprintf", f'dsn := "bob:{W}@tcp(db:3306)/app"', W)
_form("java-properties", f"db.username=bob\ndb.password={W}\n", W)
_form("java-properties-colon", f"app.api.key: {R}\n", R)
_form("java-properties-space", f"jdbc.password {W}\n", W)
_form("java-string-const", f'private static final String API_KEY = "{R}";', R)
_form("java-setheader", f'conn.setRequestProperty("Authorization", "Bearer {R}{V}");', R + V)
_form("java-datasource", f'ds.setPassword("{W}");', W)
_form("java-jdbc-url", f"jdbc:mysql://db:3306/app?user=bob&password={W}", W)
_form("java-jdbc-sqlserver", f"jdbc:sqlserver://db;databaseName=app;user=bob;password={W};", W)
_form("kotlin-val", f'val apiToken = "{R}{V}"', R + V)
_form("csharp-string", f'var connStr = "Server=db;User Id=bob;Password={W};";', W)
_form("csharp-networkcredential", f'new NetworkCredential("bob", "{W}")', W)
_form("ruby-env", f"ENV['API_TOKEN'] = '{R}'", R)
_form("ruby-hash-rocket", f":password => '{W}'", W)
_form("php-array", f"'password' => '{W}',", W)
_form("rust-env-var", f'std::env::set_var("API_KEY", "{R}");', R)
_form("win-set-and", f"set PASSWORD={W} && run.exe", W)
_form("win-set-quoted", f'set "DB_PASSWORD={W}" && app.exe', W)
_form("win-cmd-c", f'cmd /c "set API_TOKEN={R} && node app.js"', R)
_form("win-cmd-c-net-use", f"cmd /c net use \\\\srv\\share {W} /user:bob", W)
_form("win-setx", f"setx API_KEY {R}", R)
_form("win-runas-savecred-none", f"psexec \\\\h -u bob -p {W} cmd", W)
_form("win-schtasks-rp", f"schtasks /create /tn t /tr x.exe /ru bob /rp {W}", W)
_form("win-wmic", f"wmic /node:h /user:bob /password:{W} process list", W)
_form("win-cmdkey", f"cmdkey /generic:srv /user:bob /pass:{W}", W)
_form("win-net-user-add", f"net user bob {W} /add", W)
_form("bash-export-multi", f"export A=1 API_TOKEN={R} B=2", R)
_form("bash-declare", f"declare -x DB_PASSWORD={W}", W)
_form("bash-readonly", f"readonly API_KEY='{R}'", R)
_form("bash-local", f"local token=\"{R}{V}\"", R + V)
_form("bash-env-cmd", f"env DB_PASSWORD={W} ./run", W)
_form("fish-set", f"set -gx API_TOKEN {R}", R)
_form("csh-setenv", f"setenv DB_PASSWORD {W}", W)
_form("systemd-env", f"Environment=\"API_TOKEN={R}\"\n", R)
_form("supervisord-env", f"environment=API_KEY=\"{R}\",DEBUG=\"1\"\n", R)
_form("docker-compose-env-list", f"services:\n  app:\n    environment:\n      - DB_PASSWORD={W}\n", W)
_form("docker-compose-env-map", f"services:\n  app:\n    environment:\n      HF_TOKEN: {R}\n", R)
_form("makefile-export", f"export API_TOKEN := {R}\n", R)
_form("justfile-set", f"export API_TOKEN := \"{R}\"\n", R)
_form("nix-attr", f'  password = "{W}";\n', W)
_form("terraform-tfvars", f'db_password = "{W}"\n', W)
_form("terraform-provider", f'provider "aws" {{\n  access_key = "AKIA{KU}"\n  secret_key = "{R}{V[:14]}"\n}}\n', R + V[:14])
_form("ansible-extra-vars", f"ansible-playbook site.yml -e 'ansible_become_pass={W}'", W)
_form("ansible-extra-vars-json", f"ansible-playbook site.yml --extra-vars '{{\"db_password\": \"{W}\"}}'", W)
_form("ansible-inventory-line", f"h1 ansible_host=10.0.0.1 ansible_user=bob ansible_password={W}\n", W)
_form("ansible-ssh-pass", f"ansible all -m ping -e ansible_ssh_pass={W}", W)
_form("gh-auth-with-token", f"echo ghp_{R}{V[:10]} | gh auth login --with-token", f"ghp_{R}")
_form("gh-auth-with-token-word", f"echo {R}{V} | gh auth login --with-token", R + V)
_form("git-c-extraheader", f"git -c http.extraheader='AUTHORIZATION: basic {b64('x:' + R)}' clone https://g/x", b64("x:" + R))
_form("git-c-extraheader-bearer", f"git -c http.https://g.com/.extraheader='Authorization: Bearer {R}{V}' fetch", R + V)
_form("git-remote-set-url", f"git remote set-url origin https://oauth2:{R}{V}@gitlab.com/x.git", R + V)
_form("docker-login-p", f"docker login -u bob -p {W} r.x.com", W)
_form("docker-login-pw-stdin", f"echo {W} | docker login -u bob --password-stdin r.x.com", W)
_form("npm-token-env", f"NPM_TOKEN=npm_{R}{V[:10]}", f"npm_{R}")
_form("az-login-sp", f"az login --service-principal -u {UUID} -p {R}{V} --tenant {UUID}", R + V)
_form("aws-configure-set", f"aws configure set aws_secret_access_key {R}{V[:14]}", R + V[:14])
_form("lftp-u", f"lftp -u bob,{W} ftp://h", W)
_form("smbclient-U", f"smbclient //h/s -U bob%{W}", W)
_form("rdesktop-p", f"rdesktop -u bob -p {W} h", W)
_form("xfreerdp-p", f"xfreerdp /u:bob /p:{W} /v:h", W)
_form("ldapsearch-w", f"ldapsearch -x -D cn=admin -w {W} -b dc=x", W)
_form("keytool-storepass", f"keytool -list -keystore k.jks -storepass {W}", W)
_form("7z-p", f"7z x a.7z -p{W}", W)
_form("zip-P", f"zip -P {W} a.zip f", W)
_form("unzip-P", f"unzip -P {W} a.zip", W)
_form("gpg-passphrase", f"gpg --batch --passphrase {W} -d f.gpg", W)
_form("gpg-passphrase-eq", f"gpg --batch --passphrase={W} -d f.gpg", W)
_form("restic-env", f"RESTIC_PASSWORD={W} restic backup /", W)
_form("borg-passphrase", f"BORG_PASSPHRASE={W} borg create ::x /", W)
# --- encodings and wrappers
_form("b64url-nopad-yaml", "cfg=" + b64u(f"db:\n  password: {W}\n"), b64u(f"db:\n  password: {W}\n"))
_form("hex-of-env", "cfg=" + hexs(f"DB_PASSWORD={W}"), hexs(f"DB_PASSWORD={W}"))
_form("hex-of-env-bare", hexs(f"DB_PASSWORD={W}"), hexs(f"DB_PASSWORD={W}"))
_form("hex-upper", hexs(f"DB_PASSWORD={W}").upper(), hexs(f"DB_PASSWORD={W}").upper())
_form("hex-0x", "0x" + hexs(f"API_TOKEN={R}"), hexs(f"API_TOKEN={R}")[:32])
_form("hex-escaped-x", "".join(f"\\x{b:02x}" for b in f"password={W}".encode()), "".join(f"\\x{b:02x}" for b in W.encode()))
_form("double-b64", b64(b64(f"password: {W}")), b64(b64(f"password: {W}")))
_form("double-b64-env", "X=" + b64(b64(f"API_TOKEN={R}")), b64(b64(f"API_TOKEN={R}")))
_form("triple-b64", b64(b64(b64(f"password={W}"))), b64(b64(b64(f"password={W}"))))
_form("double-pct", pct(pct(f"password={W}&x=1")), W)
_form("double-pct-query", "https://x/cb?next=" + pct(pct(f"https://y/?token={R}")), R)
_form("pct-url-in-query", "https://x/login?redirect=" + pct(f"https://bob:{W}@y.com/"), W)
_form("json-escaped-twice", json.dumps(json.dumps({"password": W})), W)
_form("json-escaped-thrice", json.dumps(json.dumps(json.dumps({"password": W}))), W)
_form("json-unicode-escapes", '{"password": "' + "".join(f"\\u{ord(c):04x}" for c in W) + '"}', "".join(f"\\u{ord(c):04x}" for c in W))
_form("json-unicode-escaped-name", '{"\\u0070assword": "' + W + '"}', W)
_form("html-entities-decimal", "".join(f"&#{ord(c)};" for c in f"password={W}"), "".join(f"&#{ord(c)};" for c in W))
_form("html-entities-hex", "".join(f"&#x{ord(c):x};" for c in f"password={W}"), "".join(f"&#x{ord(c):x};" for c in W))
_form("html-entities-named", html.escape(f'<input name="password" value="{W}">'), W)
_form("html-input-value", f'<input type="password" name="pw" value="{W}">', W)
_form("html-input-hidden-token", f'<input type="hidden" name="csrf_token" value="{R}{V}">', R + V)
_form("qp-encoded", quopri.encodestring(f"password={W}\n".encode()).decode(), W)
_form("qp-soft-break", "password=3D" + W[:5] + "=\n" + W[5:] + "\n", W[:5])
_form("yaml-folded", f"db:\n  password: >\n    {W}\n", W)
_form("yaml-literal", f"db:\n  password: |\n    {W}\n", W)
_form("yaml-literal-strip", f"api_key: |-\n  {R}\n", R)
_form("yaml-quoted-single", f"password: '{W}'\n", W)
_form("yaml-anchor-in-text", f"# values for the job\nx: &pw {W}\npassword: *pw\n[broken", W)
_form("yaml-flow-map", f"{{user: bob, password: {W}}}", W)
_form("yaml-tagged", f"password: !!str {W}\n", W)
_form("shell-continuation", f"curl -s \\\n  -u bob:{W} \\\n  https://x", W)
_form("shell-continuation-token", f"docker run \\\n  -e API_TOKEN={R} \\\n  img", R)
_form("shell-continuation-split-opt", f"mysql \\\n  --password={W} \\\n  app", W)
_form("ansi-c-quote", f"export API_TOKEN=$'{R}\\n'", R)
_form("ansi-c-hex", "PASSWORD=$'" + "".join(f"\\x{b:02x}" for b in W.encode()) + "'", "".join(f"\\x{b:02x}" for b in W.encode()))
_form("ansi-c-octal", "PASSWORD=$'" + "".join(f"\\{b:03o}" for b in W.encode()) + "'", "".join(f"\\{b:03o}" for b in W.encode()))
_form("printf-hex-pipe", "printf '" + "".join(f"\\x{b:02x}" for b in W.encode()) + "' | docker login -u bob --password-stdin", "".join(f"\\x{b:02x}" for b in W.encode()))
_form("base64-d-pipe", f"echo {b64(W)} | base64 -d | docker login -u bob --password-stdin", b64(W))
_form("base64-d-subst", f"export DB_PASSWORD=$(echo {b64(W)} | base64 -d)", b64(W))
_form("base64-d-subst-word", f"mysql -ubob -p$(echo {b64(W)} | base64 --decode)", b64(W))
_form("xxd-r-pipe", f"echo {hexs(W)} | xxd -r -p | passwd --stdin bob", hexs(W))
_form("rot13-none", f"API_TOKEN={R[::-1]}", R[::-1])
_form("url-userinfo-pct", f"postgresql://bob:{pct(P)}@db/app", pct(P))
_form("url-userinfo-pct-all", "postgresql://bob:" + "".join(f"%{b:02X}" for b in W.encode()) + "@db/app", "".join(f"%{b:02X}" for b in W.encode()))
_form("json-in-yaml-in-b64", b64(f"config: '{json.dumps({'password': W})}'\n"), b64(f"config: '{json.dumps({'password': W})}'\n"))
_form("env-in-json-in-b64url", b64u(json.dumps({"env": f"API_TOKEN={R}"})), b64u(json.dumps({"env": f"API_TOKEN={R}"})))
_form("crlf-lines", f"user=bob\r\npassword={W}\r\n", W)
_form("tab-separated-kv", f"password\t{W}\n", W)
_form("toml-literal-string", f"password = '{W}'\n", W)
_form("toml-multiline-literal", f"password = '''\n{W}'''\n", W)
_form("toml-inline-table", f"db = {{ user = \"bob\", password = \"{W}\" }}\n", W)
_form("ini-colon", f"[db]\npassword: {W}\n", W)
_form("xml-attr", f'<datasource username="bob" password="{W}"/>', W)
_form("xml-cdata", f"<password><![CDATA[{W}]]></password>", W)
_form("xml-escaped-in-json", json.dumps({"xml": f"<password>{W}</password>"}), W)
_form("csv-quoted", f'user,password\n"bob","{W}"\n', W)
_form("markdown-code", f"```\nexport API_TOKEN={R}\n```", R)
_form("markdown-inline", f"Set `API_TOKEN={R}` first.", R)
_form("log-line-kv", f"2026-01-01T00:00:00Z INFO start user=bob password={W} ok", W)
_form("log-line-json", f'2026-01-01 INFO {{"event":"login","password":"{W}"}}', W)
_form("log-python-repr", f"Namespace(lr=0.1, api_key='{R}', epochs=3)", R)
_form("log-python-dict-repr", f"{{'lr': 0.1, 'api_key': '{R}'}}", R)
_form("log-argv-list", f"argv=['train.py', '--hf-token', '{R}{V}']", R + V)
_form("log-argv-json", json.dumps({"argv": ["train.py", "--wandb-key", H40]}), H40)
_form("argparse-namespace-token", f"Namespace(hf_token='hf_{R}{V[:8]}', seed=42)", f"hf_{R}")
_form("hydra-override", f"python train.py db.password={W} trainer.max_epochs=3", W)
_form("hydra-override-plus", f"python train.py +secrets.api_key={R}", R)
_form("fire-flag", f"python train.py --api_key={R}", R)
_form("click-envvar-dump", f"API_TOKEN: {R}", R)
_form("gin-binding", f"train.api_token = '{R}'", R)
# --- round-8 xfail classes: variants
_form("cisco-tacacs-key-7", f"tacacs-server key 7 {H32[:20]}\n", H32[:20])
_form("cisco-radius-host-key", f"radius-server host 10.0.0.2 auth-port 1812 key {W}\n", W)
_form("cisco-radius-new", f"radius server r1\n address ipv4 10.0.0.2\n key {W}\n", W)
_form("cisco-tacacs-new", f"tacacs server t1\n address ipv4 10.0.0.3\n key 0 {W}\n", W)
_form("cisco-snmp-community-rw", f"snmp-server community {W} RW\n", W)
_form("cisco-enable-secret", f"enable secret 0 {W}\n", W)
_form("cisco-enable-password", f"enable password {W}\n", W)
_form("cisco-ntp-key", f"ntp authentication-key 1 md5 {W}\n", W)
_form("cisco-ospf-key", f"ip ospf authentication-key {W}\n", W)
_form("cisco-key-chain", f"key chain k\n key 1\n  key-string {W}\n", W)
_form("cisco-wpa-psk", f"wpa-psk ascii 0 {W}\n", W)
_form("juniper-secret", f'set system radius-server 10.0.0.2 secret "{W}"\n', W)
_form("junos-snmp-community", "set snmp community " + W + " authorization read-only\n", W)
_form("mikrotik-user", f"/user add name=bob password={W} group=full\n", W)
_form("fortigate-set-password", f"config system admin\n    edit admin\n        set password {W}\n    next\nend\n", W)
_form("fortigate-psk", f"set psksecret {W}\n", W)
_form("vyos-psk", f"set vpn ipsec site-to-site peer 1.2.3.4 authentication pre-shared-secret {W}\n", W)
_form("strongswan-psk-conf", f"    psk = {W}\n", W)
_form("wireguard-private", f"[Interface]\nPrivateKey = {b64(R[:24] + V[:8])}\n", b64(R[:24] + V[:8]))
_form("wireguard-psk", f"[Peer]\nPresharedKey = {b64(V[:24] + R[:8])}\n", b64(V[:24] + R[:8]))
_form("wpa-supplicant-psk", f'network={{\n  ssid="home"\n  psk="{W}"\n}}\n', W)
_form("hostapd-passphrase", f"wpa_passphrase={W}\n", W)
_form("keepalived-auth-pass", f"authentication {{\n    auth_type PASS\n    auth_pass {W}\n}}\n", W)
_form("bgp-neighbor-password", f"neighbor 10.0.0.1 password {W}\n", W)
_form("php-mysqli-new", f'$db = new mysqli("db", "bob", "{W}", "app");', W)
_form("php-pdo-new", f'$pdo = new PDO("mysql:host=db;dbname=app", "bob", "{W}");', W)
_form("python-ftp-login", f'ftp = FTP("h"); ftp.login("bob", "{W}")', W)
_form("python-ftplib-ctor", f'ftplib.FTP("h", "bob", "{W}")', W)
_form("python-imaplib-login", f'imap.login("bob", "{W}")', W)
_form("python-mysql-connector", f'mysql.connector.connect("db", "bob", "{W}")', W)
_form("node-mysql-createconnection", f"mysql.createConnection({{host: 'db', user: 'bob', password: '{W}'}})", W)
_form("node-pg-client", f'new Client({{ user: "bob", password: "{W}", host: "db" }})', W)
_form("node-buffer-from", f'Buffer.from("bob:{W}").toString("base64")', W)
_form("python-b64-basic", f'base64.b64encode(b"bob:{W}")', W)
_form("ruby-basic-auth", f'req.basic_auth "bob", "{W}"', W)
_form("ruby-strict-encode", f'Base64.strict_encode64("bob:{W}")', W)
_form("csharp-auth-header-basic", f'new AuthenticationHeaderValue("Basic", "{b64("bob:" + W)}")', b64("bob:" + W))
_form("csharp-auth-header-bearer", f'new AuthenticationHeaderValue("Bearer", "{R}{V}")', R + V)
_form("rust-reqwest-bearer", f'client.get(url).bearer_auth("{R}{V}")', R + V)
_form("rust-reqwest-basic", f'client.get(url).basic_auth("bob", Some("{W}"))', W)
_form("consul-encrypt-b64", f'encrypt = "{b64(R[:24] + V[:8])}"\n', b64(R[:24] + V[:8]))
_form("consul-keygen-output", f"consul agent -encrypt={b64(R[:24] + V[:8])}", b64(R[:24] + V[:8]))
_form("plist-password", f"<key>Password</key>\n<string>{W}</string>", W)
_form("plist-apitoken", f"<dict><key>APIToken</key><string>{R}{V}</string></dict>", R + V)
_form("davfs-line-two", f"/mnt/dav bob {W}\n", W)
_form("chap-quoted", f'"bob" * "{W}" *\n', W)
# --- misc vendors and places
_form("slack-bot-in-py", f'WebClient(token="xoxb-1234567890-1234567890123-{R[:24]}")', f"xoxb-1234567890-1234567890123-{R[:24]}")
_form("sentry-auth-token", f"SENTRY_AUTH_TOKEN=sntrys_{b64(json.dumps({'iat': 1, 'url': 'x'}))}_{R}", R)
_form("sentry-user-token", f"sntryu_{H64}", H64)
_form("datadog-api-key", f"DD_API_KEY={H32}", H32)
_form("datadog-app-key-header", f"DD-APPLICATION-KEY: {H40}", H40)
_form("newrelic-license", f"NEW_RELIC_LICENSE_KEY={H40}", H40)
_form("pagerduty-token-header", f"Authorization: Token token={R[:20]}", R[:20])
_form("linear-api-key", f"lin_api_{R}{V[:14]}", f"lin_api_{R}")
_form("shopify-token", f"shpat_{H32}", H32)
_form("square-access", f"EAAA{R}{V}{R[:14]}", f"EAAA{R}")
_form("digitalocean", f"dop_v1_{H64}", H64)
_form("gitlab-pat", f"glpat-{R[:20]}", f"glpat-{R[:20]}")
_form("github-fine-grained", f"github_pat_11A{R[:19]}_{R}{V}{R[:9]}", f"github_pat_11A{R[:19]}")
_form("firebase-server-key", f"AAAA{R[:7]}:APA91b{R}{V}{R}{V}", f"APA91b{R}")
_form("twilio-auth-token-env", f"TWILIO_AUTH_TOKEN={H32}", H32)
_form("sendgrid", f"SG.{R[:22]}.{R}{V[:17]}", f"SG.{R[:22]}")
_form("postman-key", f"PMAK-{H32[:24]}-{H32}{H32[:2]}", f"PMAK-{H32[:24]}")
_form("grafana-sa", f"glsa_{R}{V[:6]}_{H32[:8]}", f"glsa_{R}")
_form("cloudflare-token-env", f"CLOUDFLARE_API_TOKEN={R}{V[:14]}", R + V[:14])
_form("cf-access-client-secret-header", f"CF-Access-Client-Secret: {H64}", H64)
_form("x-auth-token-header", f"X-Auth-Token: {R}{V}", R + V)
_form("x-access-token-header", f"x-access-token: {R}{V}", R + V)
_form("private-token-header", f"PRIVATE-TOKEN: glpat-{R[:20]}", f"glpat-{R[:20]}")
_form("proxy-authorization", f"Proxy-Authorization: Basic {b64('bob:' + W)}", b64("bob:" + W))
_form("cookie-header-multi", f"Cookie: theme=dark; session_id={R}{V}; lang=en", R + V)
_form("set-cookie", f"Set-Cookie: auth_token={R}{V}; Path=/; HttpOnly", R + V)
_form("query-access-token", f"https://api.x.com/v1/me?access_token={R}{V}", R + V)
_form("query-apikey-camel", f"https://maps.x.com/api?apiKey={R}", R)
_form("query-client-secret", f"https://x/oauth/token?grant_type=client_credentials&client_id=a&client_secret={R}", R)
_form("oauth-body", f"grant_type=password&username=bob&password={W}&client_id=x", W)
_form("graphql-login", json.dumps({"query": "mutation { login(username: \"bob\", password: \"" + W + "\") { token } }"}), W)
_form("graphql-vars-inline", json.dumps({"query": "mutation($p: String!) { login(password: $p) }", "variables": {"p": W}}), W)
_form("email-smtp-url", f"smtp://bob%40x.com:{W}@smtp.x.com:587", W)
_form("amqp-url", f"amqps://bob:{W}@mq.x.com/vhost", W)
_form("kafka-jaas", f'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="bob" password="{W}";', W)
_form("elastic-url", f"https://elastic:{W}@es.x.com:9200", W)
_form("elastic-apikey-header", f"Authorization: ApiKey {b64(UUID + ':' + R)}", b64(UUID + ":" + R))
_form("snowflake-conn", f"snowflake://bob:{W}@acct/db/schema?warehouse=wh", W)
_form("clickhouse-client", f"clickhouse-client --user bob --password {W}", W)
_form("influx-token", f"influx config create -n c -u http://x -t {R}{V}== -o org", R + V)
_form("influx-env", f"INFLUX_TOKEN={R}{V}==", R + V)
_form("cassandra-cqlsh", f"cqlsh -u bob -p {W} h", W)
_form("neo4j-uri-auth", f'GraphDatabase.driver(uri, auth=("neo4j", "{W}"))', W)
_form("rabbitmq-env", f"RABBITMQ_DEFAULT_PASS={W}", W)
_form("postgres-env", f"POSTGRES_PASSWORD={W}", W)
_form("mysql-root-env", f"MYSQL_ROOT_PASSWORD={W}", W)
_form("redis-url-env", f"REDIS_URL=redis://:{W}@r:6379/0", W)
_form("secret-key-base", f"SECRET_KEY_BASE={H64}", H64)
_form("django-secret", f"SECRET_KEY = 'django-insecure-{R}{V}'", R + V)
_form("flask-secret", f'app.secret_key = "{R}"', R)
_form("flask-config-secret", f"app.config['SECRET_KEY'] = '{R}'", R)
_form("jwt-secret-env", f"JWT_SECRET={R}", R)
_form("nextauth-secret", f"NEXTAUTH_SECRET={b64(R[:24] + V[:8])}", b64(R[:24] + V[:8]))
_form("encryption-key-env", f"ENCRYPTION_KEY={H64}", H64)
_form("master-key-env", f"RAILS_MASTER_KEY={H32}", H32)
_form("webhook-secret-env", f"WEBHOOK_SECRET={R}", R)
_form("signing-secret-env", f"SLACK_SIGNING_SECRET={H32}", H32)
_form("session-secret", f"SESSION_SECRET={R}", R)
_form("cookie-secret", f"COOKIE_SECRET={R}", R)
_form("license-key-env-none", f"LICENSE_KEY={R}", R)
_form("private-key-pem-in-env", f"PRIVATE_KEY=\"-----BEGIN PRIVATE KEY-----\\n{R}{V}{R}\\n-----END PRIVATE KEY-----\"", R + V)
_form("pem-ec", f"-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI{R}{V}\n-----END EC PRIVATE KEY-----", R + V)
_form("pem-encrypted", f"-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQI{R}{V}\n-----END ENCRYPTED PRIVATE KEY-----", R + V)
_form("pgp-private", f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF{R}{V}\n-----END PGP PRIVATE KEY BLOCK-----", R + V)
_form("jwt-in-cookie", f"Cookie: jwt={JWT}", JWT[-20:])
_form("jwt-bare-log", f"decoded {JWT} ok", JWT[-20:])
_form("aws-creds-file", f"[default]\naws_access_key_id = AKIA{KU}\naws_secret_access_key = {R}{V[:14]}\n", R + V[:14])
_form("aws-session-token-env", f"AWS_SESSION_TOKEN=IQoJb3JpZ2luX2Vj{R}{V}", f"IQoJb3JpZ2luX2Vj{R}")
_form("gcp-api-key-query", f"https://maps.googleapis.com/maps/api/geocode/json?address=x&key=AIzaSy{R}{V[:7]}", f"AIzaSy{R}")
_form("azure-openai-key-env", f"AZURE_OPENAI_API_KEY={H32}", H32)
_form("azure-client-secret-env", f"AZURE_CLIENT_SECRET={R}~{V}", R)
_form("arm-client-secret", f"ARM_CLIENT_SECRET={R}{V}", R + V)
_form("google-app-credentials-json-env", f"GOOGLE_APPLICATION_CREDENTIALS_JSON={b64(json.dumps({'type': 'service_account', 'private_key': '-----BEGIN PRIVATE KEY-----' + chr(10) + R + V + chr(10) + '-----END PRIVATE KEY-----'}))}", b64(json.dumps({"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----"}))[:20])

# --- written for the classes found shown (more members of each) ------------------------------------
# positional arguments of calls that open a connection or log in (POSITIONAL_CALLS)
_form("cls-php-mysqli-connect", f'$c = mysqli_connect("db.x", "app", "{P}", "shop");', P)
_form("cls-php-mysql-pconnect", f"$c = mysql_pconnect('db', 'app', '{W}');", W)
_form("cls-php-oci-connect", f'$c = oci_connect("scott", "{W}", "db/orcl");', W)
_form("cls-php-ftp-login", f'ftp_login($conn, "bob", "{P}");', P)
_form("cls-php-ldap-bind", f'ldap_bind($ds, "cn=admin,dc=x", "{W}");', W)
_form("cls-php-ssh2-auth", f"ssh2_auth_password($s, 'bob', '{R}');", R)
_form("cls-php-pdo-single", f"new PDO('pgsql:host=db;dbname=app', 'bob', '{P}', $opts)", P)
_form("cls-py-ftp-tls", f'ftplib.FTP_TLS("h", "bob", "{W}")', W)
_form("cls-py-mysqldb", f'MySQLdb.connect("db", "bob", "{R}", "app")', R)
_form("cls-py-cx-oracle", f'cx_Oracle.connect("scott", "{W}", "db/orcl")', W)
_form("cls-rust-basic-auth-ref", f'.basic_auth("bob", Some(&"{W}"))', W)
_form("cls-csharp-auth-header-token", f'new AuthenticationHeaderValue("Token", "{R}{V}")', R + V)
_form("cls-py-pymysql-bytes", f'pymysql.connect("db", "bob", b"{W}")', W)
# a network device's credential lines (DEVICE_HEADS, DEVICE_KEYWORDS)
_form("cls-ios-tacacs-key-7", f"tacacs-server host 10.1.1.1 single-connection key 7 {H32[:18].upper()}\n", H32[:18].upper())
_form("cls-ios-radius-host-key", f"radius-server host 10.1.1.2 auth-port 1645 acct-port 1646 key {P}\n", P)
_form("cls-ios-snmp-community-acl", f"snmp-server community {V[:14]} RO 10\n", V[:14])
_form("cls-ios-enable-secret-9", f"enable secret 9 $9${R}${V}\n", R)
_form("cls-ios-ntp-key", f"ntp authentication-key 42 md5 {R[:16]} 7\n", R[:16])
_form("cls-ios-ospf-md5", f" ip ospf message-digest-key 1 md5 {W}\n", W)
_form("cls-ios-key-chain-string", f"key chain BGP\n key 10\n  key-string 7 {H32[:20]}\n", H32[:20])
_form("cls-ios-isakmp-key", f"crypto isakmp key {P} address 203.0.113.5\n", P)
_form("cls-ios-bgp-neighbor-pw", f" neighbor 192.0.2.1 password 7 {H32[:16]}\n", H32[:16])
_form("cls-ios-radius-block", f"radius server ISE\n address ipv4 10.2.2.2 auth-port 1812\n key {R[:16]}\n", R[:16])
_form("cls-junos-ike-psk", f'set security ike policy p pre-shared-key ascii-text "{W}"\n', W)
_form("cls-junos-snmp-community", f"set snmp community {R[:12]} authorization read-write\n", R[:12])
_form("cls-fortios-psk", f"config vpn ipsec phase1-interface\n    edit vpn1\n        set psksecret ENC {b64(R)}\n    next\nend\n", b64(R))
_form("cls-keepalived-auth", f"vrrp_instance VI_1 {{\n    authentication {{\n        auth_type PASS\n        auth_pass {R[:8]}\n    }}\n}}\n", R[:8])
_form("cls-wpa-psk-hex", f"interface Dot11Radio0\n ssid home\n  wpa-psk hex 0 {H64}\n", H64)
# a user:password literal given to an encoding call (ENCODER_CALLS)
_form("cls-js-btoa-template", f'const h = "Basic " + btoa("admin:{P}");', P)
_form("cls-node-buffer-from-single", f"Buffer.from('ci-bot:{R}').toString('base64')", R)
_form("cls-py-b64encode-str", f'base64.b64encode("bob:{W}".encode())', W)
_form("cls-py-urlsafe-b64encode", f'base64.urlsafe_b64encode(b"svc:{R}")', R)
_form("cls-ruby-encode64", f'Base64.encode64("deploy:{W}").strip', W)
_form("cls-go-encodetostring", f'base64.StdEncoding.EncodeToString([]byte("bob:{P}"))', P)
_form("cls-csharp-getbytes", f'Convert.ToBase64String(Encoding.ASCII.GetBytes("bob:{W}"))', W)
_form("cls-php-base64-encode", f'base64_encode("bob:{W}")', W)
# a property list's value after its key element
_form("cls-plist-secret-data", f"<key>ClientSecret</key>\n\t<data>{b64(R + V)}</data>", b64(R + V))
_form("cls-plist-token-indented", f"<dict>\n  <key>api_token</key>\n  <string>{R}{V}</string>\n</dict>", R + V)
_form("cls-plist-passphrase", f"<key>Passphrase</key><string>{P}</string>", P)
# a gossip key under ``encrypt`` (KEY_VALUE_NAMES)
_form("cls-consul-encrypt-json-16", json.dumps({"datacenter": "dc1", "encrypt": b64(R[:16])}), b64(R[:16]))
_form("cls-nomad-encrypt-hcl", f'server {{\n  enabled = true\n  encrypt = "{b64(V + R[:8])}"\n}}\n', b64(V + R[:8]))
_form("cls-consul-encrypt-env", f"CONSUL_ENCRYPT={b64(R[:24] + V[:8])}", b64(R[:24] + V[:8]))
_form("cls-consul-encrypt-yaml", f"consul:\n  encrypt: {b64(V[:16] + R[:16])}\n", b64(V[:16] + R[:16]))
# what is echoed into a pipe reaching a stdin reader through decoding filters (PIPE_FILTERS)
_form("cls-pipe-b64-docker", f"echo '{b64(P)}' | base64 --decode | docker login -u bob --password-stdin r.x", b64(P))
_form("cls-pipe-b64-twice", f"printf %s {b64(b64(W))} | base64 -d | base64 -d | podman login --password-stdin -u bob q.io", b64(b64(W)))
_form("cls-pipe-tr-kinit", f"echo {W}X | tr -d X | kinit bob@X.COM", W)
_form("cls-pipe-openssl-b64", f"echo {b64(R)} | openssl base64 -d | helm registry login r.x -u bob --password-stdin", b64(R))
# a token grown backwards into an escape's digits (``%22sk-…``)
_form("cls-escape-pct-quote-token", "cfg=x%3D%22ghp_" + R + V[:10] + "%22", "ghp_" + R)
_form("cls-escape-x-quote-token", "b'x=\\x22sk-" + R + V + "\\x22'", "sk-" + R)
_form("cls-escape-u-quote-token", '{"v": "\\u0022glpat-' + R[:20] + '\\u0022"}', "glpat-" + R[:20])
# a bare key with a vendor's structure (PROVIDER_TOKENS: Airtable's ``pat`` + 14 + ``.`` + 64 hex)
_form("cls-airtable-pat-env", f"AIRTABLE_CONFIG=pat{V[:14]}.{H64[::-1]}", f"pat{V[:14]}.{H64[::-1][:20]}")
_form("cls-airtable-pat-header", f"Authorization: Bearer pat{R[:14]}.{H64}", f"pat{R[:14]}.{H64[:20]}")
_form("cls-airtable-pat-prose", f"use pat{K[:14]}.{H64} for the base", f"pat{K[:14]}.{H64[:20]}")
# tools' options and positional tokens (COMMANDS), a self-hosted W&B key (PROVIDER_TOKENS)
_form("cls-vault-token-revoke", f"vault token revoke s.{V}", f"s.{V}")
_form("cls-vault-token-renew", f"vault token renew -increment=1h hvs.{R}{V}", f"hvs.{R}")
_form("cls-influx-query-t", f"influx query -o org -t {R}{V}== 'from(bucket:\"b\")'", R + V)
_form("cls-wandb-local-env", f"WANDB_BASE_URL=https://wandb.x.com wandb login local-{H40[::-1]}", f"local-{H40[::-1]}")
_form("cls-wandb-local-json", json.dumps({"wandb": {"host": "https://wandb.x.com", "k": f"local-{H40[::-1]}"}}), f"local-{H40[::-1]}")
# fmt: on

#: Forms still shown (strict xfails), each with its reason.
KNOWN_GAPS: dict[str, str] = {
    "consul-acl-hcl": "members of an HCL block inside a block named for credentials (``acl { tokens { agent = X } }``): a block is read one level deep",
    "ceph-auth-add": "a plain ``key = X`` echoed, with no section or tool to say whose key (a Ceph keyring's key has no literal)",
    "openssl-passin-env": "``-passin env:NAME`` names the variable holding the password; ``KEYPW=X`` is judged by its own name",
    "base64-d-subst-word": "``-p$(echo B64 | base64 -d)``: a substitution decoding a literal, given attached to an option",
    "ruby-basic-auth": "a call's arguments without brackets (Ruby's ``basic_auth \"bob\", X``)",
    "davfs-line-two": "a file of positional lines (mount point, user, password) with no name",
    "chap-quoted": "a file of positional lines (client, server, secret) with no name",
    "square-access": "Square's ``EAAA…`` tokens (a known gap of tests/test_secrets_unlisted.py: ``EAAA`` starts base64 of zero bytes)",
    "yaml-anchor-in-text": "a YAML anchor's value named by its alias only (``x: &pw X``, ``password: *pw``): found where the document parses (alone), not in a text that does not (diff's report of all forms)",
    "graphql-vars-inline": "a GraphQL variable given the password elsewhere in the document (a place is judged by its last keys, not by the query beside them)",
}

#: Near misses of this round's rules: calls given variables or a user alone, device lines with no
#: secret (numbers, a key chain's key number, prose), encodings of no password, plist keys that
#: describe, ``encrypt`` settings, pipes through decoders to no reader, escapes before no token.
CLEAN = [
    "new mysqli($host, $user, $pass, $db);",
    "$pdo = new PDO($dsn, $user, $password, $options);",
    'ftplib.FTP("ftp.example.com")',
    'ftp.login("anonymous")',
    "pymysql.connect(host, user, db_pass, db)",
    'new AuthenticationHeaderValue("Bearer", token)',
    'new AuthenticationHeaderValue("Bearer")',
    ".basic_auth(user, None::<&str>)",
    "key chain BGP\n key 10\n",
    "ip tunnel add gre1 mode gre remote 10.0.0.2 key 42",
    "key points to remember",
    "key 0 is the default",
    "set -o pipefail",
    "snmp-server enable traps",
    "enable\nconfigure terminal\n",
    "radius-server dead-criteria time 5 tries 3",
    'Buffer.from("hello world").toString("base64")',
    'btoa("user:1000")',
    'base64.b64encode(b"host:8080")',
    'Buffer.from("image:tag")',
    "Buffer.from(`${user}:${pass}`)",
    'x.encode("utf-8")',
    "<key>PasswordPolicy</key><string>strong</string>",
    "<key>TokenType</key><string>Bearer</string>",
    "<key>SecretName</key><string>db-secret</string>",
    "encrypt = true",
    "encrypt: yes",
    'encrypt = "aes256"',
    "echo hello | base64 -d | wc -l",
    "cat notes.txt | tr a-z A-Z | sort",
    "cfg=x%3D%22hello%22",
    "mutation($p: String!) { login(password: $p) { token } }",
    "vault token lookup -accessor 2c84f488",
    "vault token revoke -self",
    "kubectl get pv local-path",
    "local-storage",
    # a call's keyword argument given a variable (a false mask before: the variable's name was masked)
    "pymysql.connect(host=host, user=user, password=password)",
    "Client(api_key=api_key, timeout=3)",
    "connect(password=db_password)",
    "f(a, token=self.token)",
    "path pattern patch compat",
    "patches.0123456789abcdef0123456789abcdef",
]

#: Forms shown in one container of tests/test_secrets_compose.py only (strict xfails there).
CONTAINER_GAPS: dict[tuple[str, str], str] = {
    **{
        (
            name,
            "bash-c",
        ): "quotes written ``'\"'\"'`` inside ``bash -c '…'`` (as round 8's ``cls-call-put-secret``)"
        for name in ("ansi-c-hex", "ansi-c-octal", "cls-node-buffer-from-single")
    },
    (
        "kubeconfig-exec-token",
        "html",
    ): "a YAML list over lines as HTML-escaped text (as round 8's ``yaml-folded-block``)",
}

globals().update(form_tests(FORMS, KNOWN_GAPS, at_least=580, container_gaps=CONTAINER_GAPS, clean=CLEAN))


# --- every form in holders and encodings -----------------------------------------------------------


KEPT = [form for form in FORMS if form[0] not in KNOWN_GAPS]

#: Forms shown in one holder and encoding of the shared composition (tests/secret_forms.py: HOLDERS,
#: ENCODINGS) only: left out of it, each a strict xfail in that holder.
#: (YAML in HTML and ``$'…'`` in ``bash -c '…'``: closed by tests/test_secrets_round12.py.)
HELD_GAPS: dict[tuple[str, str, str], str] = {
    **{
        (
            name,
            "bare",
            "percent",
        ): "HTML numeric entities percent-encoded (one decoding, not the other after it)"
        for name in ("html-entities-decimal", "html-entities-hex")
    },
}
HELD = [form for form in KEPT if form[0] not in {name for name, _, _ in HELD_GAPS}]

test_every_form_in_every_holder_and_encoding = held_test(HELD)


@pytest.mark.parametrize(("name", "holder", "encoding"), sorted(HELD_GAPS))
@pytest.mark.xfail(strict=True, reason="a known gap in one holder (HELD_GAPS)")
def test_held_gaps_are_still_shown(name: str, holder: str, encoding: str) -> None:
    from tests.secret_forms import ENCODINGS, HOLDERS

    _, text, secret = next(form for form in FORMS if form[0] == name)
    written = ENCODINGS[encoding](HOLDERS[holder](text))
    scrubbed = scrub(written)
    assert not shown(secret, scrubbed) and scrub(scrubbed) == scrubbed


# --- the classes this round closed, beyond their rows -----------------------------------------------

SECRETS = st.sampled_from([R, "hunter2x", "Tr0ub4dor&3", "x7Qz9!pL", "P@ssw0rd", V])
USERS = st.sampled_from(["bob", "admin", "ci-bot", "svc_user", "root"])
QUOTES = st.sampled_from(['"', "'"])


def _exactly(text: str, secret: str) -> None:
    """``secret`` is masked in ``text`` and nothing else changes."""
    assert scrub(text) == text.replace(secret, mask(secret)), scrub(text)


@settings(max_examples=120, deadline=None, derandomize=True, database=None)
@given(
    call=st.sampled_from(
        [
            ("new mysqli({a})", 2, 4),
            ("mysqli_connect({a})", 2, 3),
            ("mysql_connect({a})", 2, 3),
            ("new PDO({a})", 2, 3),
            ("oci_connect({a})", 1, 3),
            ("ftp_login({a})", -1, 3),
            ("ldap_bind({a})", -1, 3),
            ("ssh2_auth_password({a})", -1, 3),
            ("ftplib.FTP({a})", 2, 3),
            ("pymysql.connect({a})", 2, 4),
            ("MySQLdb.connect({a})", 2, 3),
            ("cx_Oracle.connect({a})", 1, 3),
            ("mysql.connector.connect({a})", 2, 3),
            ("client.basic_auth({a})", -1, 2),
            ("new AuthenticationHeaderValue({a})", -1, 2),
        ]
    ),
    secret=SECRETS,
    quote=QUOTES,
    variables=st.lists(st.booleans(), min_size=4, max_size=4),
    spaced=st.booleans(),
)
def test_a_password_given_by_position(
    call: tuple[str, int, int], secret: str, quote: str, variables: list[bool], spaced: bool
) -> None:
    form, place, count = call
    arguments = [
        f"{quote}arg{index}{quote}" if not variables[index] else f"$v{index}" for index in range(count)
    ]
    arguments[place] = f"{quote}{secret}{quote}"
    text = form.format(a=(", " if spaced else ",").join(arguments))
    _exactly(text, secret)
    others = [f"$v{index}" for index in range(count)]  # (a variable in its place: nothing to mask)
    assert scrub(form.format(a=", ".join(others))) == form.format(a=", ".join(others))


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(
    line=st.sampled_from(
        [
            "tacacs-server host 10.0.0.{n} key {t}{s}",
            "radius-server key {t}{s}",
            "radius-server host 10.0.0.{n} auth-port 1812 key {t}{s}",
            "snmp-server community {s} RO",
            "snmp-server community {s} RW {n}",
            "enable secret {t}{s}",
            "enable password {t}{s}",
            "ntp authentication-key {n} md5 {s}",
            " ip ospf authentication-key {t}{s}",
            " ip ospf message-digest-key {n} md5 {s}",
            "  key-string {t}{s}",
            " wpa-psk ascii {t}{s}",
            "crypto isakmp key {s} address 10.0.0.{n}",
            " neighbor 10.0.0.{n} password {t}{s}",
            'set system radius-server 10.0.0.{n} secret "{s}"',
            "set snmp community {s} authorization read-only",
            "set vpn ipsec site-to-site peer 10.0.0.{n} authentication pre-shared-secret {s}",
            "set psksecret {s}",
            "    auth_pass {s}",
            "tacacs server T{n}\n address ipv4 10.0.0.{n}\n key {t}{s}",
            "radius server R{n}\n address ipv4 10.0.0.{n}\n key {s}",
        ]
    ),
    secret=st.sampled_from([R[:16], "hunter2x", "Tr0ub4dor&3", V, H32[:20], "c1sc0Rtr9"]),
    kind=st.sampled_from(["", "0 ", "7 "]),
    number=st.integers(1, 254),
    around=st.sampled_from(["{}", "!\n{}\n!\n", "hostname r1\n{}\nend\n"]),
)
def test_a_network_devices_credential_line(
    line: str, secret: str, kind: str, number: int, around: str
) -> None:
    text = around.format(line.format(t=kind, s=secret, n=number))
    _exactly(text, secret)


@settings(max_examples=120, deadline=None, derandomize=True, database=None)
@given(
    call=st.sampled_from(
        [
            "btoa({q}{u}:{s}{q})",
            "Buffer.from({q}{u}:{s}{q})",
            "base64.b64encode(b{q}{u}:{s}{q})",
            "base64.urlsafe_b64encode(b{q}{u}:{s}{q})",
            "Base64.strict_encode64({q}{u}:{s}{q})",
            "Base64.encode64({q}{u}:{s}{q})",
            "base64.StdEncoding.EncodeToString([]byte({q}{u}:{s}{q}))",
            "Encoding.UTF8.GetBytes({q}{u}:{s}{q})",
            "base64_encode({q}{u}:{s}{q})",
        ]
    ),
    user=USERS,
    secret=st.sampled_from([R, "hunter2x", "Tr0ub4dor&3", "x7Qz9!pL", V]),
    quote=QUOTES,
    holder=st.sampled_from(["{}", 'headers["Authorization"] = "Basic " + {}', "auth = {};\n"]),
)
def test_a_user_and_password_about_to_be_encoded(
    call: str, user: str, secret: str, quote: str, holder: str
) -> None:
    text = holder.format(call.format(q=quote, u=user, s=secret))
    _exactly(text, secret)


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(
    key=st.sampled_from(["Password", "APIToken", "ClientSecret", "api_key", "Passphrase", "PrivateKey"]),
    element=st.sampled_from(["string", "data"]),
    space=st.sampled_from(["", "\n", "\n\t", "\n    "]),
    secret=st.sampled_from([R + V, "hunter2x", b64(R + V), "Tr0ub4dor"]),
)
def test_a_property_lists_value_after_its_key(key: str, element: str, space: str, secret: str) -> None:
    _exactly(f"<dict>{space}<key>{key}</key>{space}<{element}>{secret}</{element}>{space}</dict>", secret)


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(
    size=st.sampled_from([16, 24, 32]),
    data=st.data(),
    syntax=st.sampled_from(
        ['encrypt = "{k}"', "-encrypt={k}", '{{"encrypt": "{k}"}}', "encrypt: {k}", "ENCRYPT={k}"]
    ),
)
def test_a_gossip_key_under_encrypt(size: int, data: st.DataObject, syntax: str) -> None:
    raw = data.draw(st.binary(min_size=size, max_size=size).filter(lambda b: len(set(b)) > 8))
    key = base64.b64encode(raw).decode()
    text = syntax.format(k=key)
    assert not shown(key, scrub(text)), scrub(text)
    assert scrub(syntax.format(k="true")) == syntax.format(k="true")


@settings(max_examples=80, deadline=None, derandomize=True, database=None)
@given(
    filters=st.lists(
        st.sampled_from(["base64 -d", "base64 --decode", "tr -d '\\n'", "openssl base64 -d", "rev"]),
        min_size=1,
        max_size=3,
    ),
    reader=st.sampled_from(
        [
            "docker login -u bob --password-stdin r.x",
            "gh auth login --with-token",
            "kinit bob@X.COM",
            "passwd --stdin bob",
            "helm registry login r.x -u bob --password-stdin",
        ]
    ),
    secret=st.sampled_from([b64(W), b64(R + V), b64(b64(P))]),
)
def test_a_secret_echoed_through_decoders_to_its_reader(filters: list[str], reader: str, secret: str) -> None:
    text = f"echo {secret} | {' | '.join(filters)} | {reader}"
    assert not shown(secret, scrub(text)), scrub(text)
    assert (
        scrub(f"echo hello | {' | '.join(filters)} | wc -c") == f"echo hello | {' | '.join(filters)} | wc -c"
    )


@settings(max_examples=80, deadline=None, derandomize=True, database=None)
@given(
    token=st.sampled_from(
        [f"ghp_{R}{V[:10]}", f"sk-{R}{V}", f"glpat-{R[:20]}", f"hf_{R}{V[:8]}", f"xoxb-1234567890-{R}"]
    ),
    escape=st.sampled_from(["%22", "%27", "%3D", "\\x22", "\\u0022", "%20"]),
    holder=st.sampled_from(["cfg=x{e}{t}{e}", "{e}{t}", "a={e}{t}&b=1", "[{e}{t}{e}]"]),
)
def test_a_token_after_an_escape_keeps_the_escape(token: str, escape: str, holder: str) -> None:
    text = holder.format(e=escape, t=token)
    assert scrub(text) == text.replace(token, mask(token)), scrub(text)


@settings(max_examples=80, deadline=None, derandomize=True, database=None)
@given(
    name=st.sampled_from(["password", "api_key", "token", "secret", "passwd", "access_token"]),
    variable=st.sampled_from(["password", "api_key", "db_password", "self.token", "cfg.secret", "pw"]),
    secret=st.sampled_from(["hunter2x", R, "s3cr3t", V, H40]),
    call=st.sampled_from(["connect({a})", "Client(host, {a})", "f(x=1, {a}, y=2)", "login({a})"]),
)
def test_a_keyword_argument_given_a_variable_or_a_value(
    name: str, variable: str, secret: str, call: str
) -> None:
    # (a variable names a credential held elsewhere: it stayed masked before; a value is masked, and
    # only the value: ``wandb.login(key=X)`` lost ``(key=`` to a prose reading of ``login``)
    given = call.format(a=f"{name}={variable}")
    assert scrub(given) == given
    _exactly(call.format(a=f"{name}={secret}"), secret)


# --- linear work ---------------------------------------------------------------------------------

#: The patterns this round added to the name reader, whose reading is counted.
_COUNTED = (
    "device-space",
    "device-lead",
    "device-block",
    "device-words",
    "device-word",
    "positional-argument",
    "encoded-literal",
    "plist-value",
)


@pytest.mark.parametrize(
    "unit",
    [
        "tacacs-server host 10.0.0.1 key hunter2x\n",
        " key 0 hunter2x\n",
        "radius server r1\n key hunter2x\n",
        "key " * 20 + "\n",
        "snmp-server community " + "x " * 30 + "\n",
        'new mysqli("db", "bob", "hunter2x", "app"); ',
        "mysqli(" * 10,
        'btoa("bob:hunter2x") + ',
        "<key>Password</key><string>hunter2x</string>",
    ],
)
def test_the_new_readers_work_linearly(monkeypatch: pytest.MonkeyPatch, unit: str) -> None:
    assert_linear(named_work(monkeypatch, _COUNTED, unit))


# --- output channels: every place an input value reaches an output ---------------------------------

#: Forms every reader masks (a command's option, a document in base64, a URL's password, a token):
#: planted where an input value is printed but not judged at a secret place.
PLANTED = [
    (f"sshpass -p {W} ssh bob@h", W),
    (b64(f"db:\n  password: {W}x\n"), b64(f"db:\n  password: {W}x\n")),
    (f"postgresql://bob:{W}y@db/app", f"{W}y"),
    (f"hf_{R}{V[:8]}", f"hf_{R}"),
]
AIHC_SEED = json.loads((REPO / "schemas/examples/aihc-job-detail/seed.json").read_text("utf-8"))
RUNAI_SEED = json.loads((REPO / "schemas/examples/runai-distributed-workload/seed.json").read_text("utf-8"))


def _aihc_with_key(key: str) -> dict[str, Any]:
    """The AIHC seed with ``key`` as a pod annotation's and label's key, given a number (a map of
    strings: the finding's pointer names the key)."""
    job = copy.deepcopy(AIHC_SEED)
    meta = job["result"]["podList"]["pods"][0]["objectMeta"]
    meta["annotations"] = {key: 1}
    meta["labels"] = {key: 1}
    return job


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "junit", "github"])
def test_validate_masks_a_key_in_a_findings_pointer(run_cli: Any, tmp_path: Path, fmt: str) -> None:
    capture = tmp_path / "keys.ndjson"
    capture.write_text("".join(json.dumps(_aihc_with_key(form)) + "\n" for form, _ in PLANTED), "utf-8")
    result = run_cli(["validate", "-f", fmt, str(capture)], code=1)
    assert "annotations" in result.stdout
    assert [secret for _, secret in PLANTED if shown(secret, result.stdout, result.stderr)] == []


def test_diff_history_masks_a_jobs_id(run_cli: Any, tmp_path: Path) -> None:
    capture = tmp_path / "history.ndjson"
    lines = []
    for form, _ in PLANTED:
        job = copy.deepcopy(RUNAI_SEED)
        job["workloadId"] = form
        lines.append(json.dumps(job))
    capture.write_text("\n".join(lines) + "\n", "utf-8")
    for fmt in ("text", "json", "markdown"):
        result = run_cli(["diff", "--history", "-f", fmt, str(capture)])
        assert result.exit_code in (0, 1)
        assert fmt == "markdown" or result.stdout.count("<secret:") >= len(PLANTED)
        assert [secret for _, secret in PLANTED if shown(secret, result.stdout, result.stderr)] == []


@pytest.mark.parametrize(("form", "secret"), PLANTED)
def test_a_urls_path_segment_is_read_on_its_own(form: str, secret: str) -> None:
    # (serve's access log, record's HAR and redact's URLs: a segment is read as a value of its own)
    for url in (f"/api/v1/workloads/{form}", f"https://x.com/a/{urllib.parse.quote(form)}/b?x=1"):
        assert not shown(secret, mask_url(url)), mask_url(url)
        assert mask_url(mask_url(url)) == mask_url(url)
    assert not shown(secret, shown_path({"path": f"/api/v1/workloads/{form}", "query_string": b""}))


def test_a_urls_ordinary_segments_stay() -> None:
    for url in (
        "/api/v1/workloads/6dce772a-33c1-473b-b21b-000000000001",
        "https://registry.x.com/v2/library/python/manifests/sha256:" + H64,
        "/api/v1/org-unit/projects/4/nodepools?limit=10",
        "https://huggingface.co/meta-llama/Llama-3.1-8B/resolve/main/config.json",
    ):
        assert mask_url(url) == url
