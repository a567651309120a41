# ruff: noqa: E501  (the table of forms: one row a line, each token written whole)
"""Credential forms of a thirteenth round: 298 forms of kinds no round tried, the classes of those
shown closed each by one rule and tried beyond the rows (``cls-…`` rows, hypothesis, near misses).

The forms: ML platforms' and launchers' configs given inside an argument (DeepSpeed, Hydra,
Lightning, Ray, accelerate, ClearML's HOCON, Neptune, Comet, MLflow, NGC, Kubeflow, W&B, Modal,
Run:ai, AIHC, BCE, DVC), providers' prefixed tokens no row had, argument vectors printed by tools
(auditd, strace, ``/proc/PID/cmdline``, ``ps``, Go, Java, Rust, Node), encodings (PowerShell's
``-EncodedCommand``, zlib, bzip2, xz, base32, base85, ``\\u{…}``, ``%u…``, CSS escapes, ``xxd``),
literal syntax (doubled quotes, raw and verbatim strings, heredocs, Lua, Erlang), references given
a default, literals decoded on the spot, shells and languages setting environment variables, tools
with positional credentials, authorization schemes, clouds' presigned URLs, object dumps in fifteen
languages, logs quoting a config, Kubernetes placements, SQL.

Before this round 64 of them were shown by ``scrub`` or in a holder of tests/secret_forms.py (a 65th,
a Fly.io token, only because its row was shorter than a real token: the row now has a real length);
now 7 are (``KNOWN_GAPS``). The 49 ``cls-…`` rows, written for the classes after, tried the rules
beyond the forms: the code before this round showed 38 of them. The classes closed, each by one rule:

- **a provider's prefixed token** (Tavily, Anyscale, Jina, LlamaCloud, RunPod, Kaggle, SonarQube,
  Buildkite, PASETO's local tokens, ElevenLabs, Firecrawl, Fireworks, Voyage, Alibaba's STS token):
  rows of ``shapes.PROVIDER_TOKENS``.
- **text in base64 that is not UTF-8** (PowerShell's ``-EncodedCommand`` is UTF-16LE; a byte order
  mark) and **compressed data** (bzip2, xz beside gzip and zlib): ``encodings._utf16_text``,
  ``encodings._COMPRESSED``; a command line's NULs (``/proc/PID/cmdline``) are text too.
- **an argument vector written as anything but a command line** (a language's literals,
  ``exec.Command("sshpass", "-p", X)``, a builder's ``.args([…])``, an audit record's ``aN="…"``
  fields, a flow list without quotes, ``[mysql -pX]``, NUL-separated words): read as the command line
  it is (``secrets/vectors.py``; a tool first in a bracket).
- **a literal's own syntax**: a quote doubled inside its quotes (YAML's and SQL's ``'it''s'``), Rust's
  ``r#"…"#``, C#'s ``@"…"``, Lua's ``[[…]]``, Erlang's ``<<"…">>``, Python's prefixes (``b'…'``) in
  any placement; **a literal decoded on the spot** (``b64decode('…')``, ``atob``, Java's
  ``Base64.getDecoder().decode``): the literal is the value.
- **a reference given a default**: ``${X-x}``, ``{{ .Values.x | default "x" }}``, ``{{ x |
  default('x') }}``, ``{{ or .Env.X "x" }}``, Make's ``$(or $(X),x)``, PowerShell's ``$env:X ?? "x"``.
- **a tool's positional or own credential**: Oracle's ``mkstore -createCredential``, SAP HANA's
  ``hdbuserstore SET``, ZooKeeper's ``addauth digest``, Qiniu's ``qshell account``, net-snmp's
  ``createUser``, ``ACL SETUSER … >X`` typed alone, NGC's ``ngc config set`` and
  ``mysql_config_editor`` fed on stdin; Sybase's ``isql -P`` (its row was replaced by a second
  ``isql`` key of ``table.COMMANDS``: the table's one duplicate key); MongoDB's
  ``changeUserPassword``, ClickHouse's ``mysql(…)``/``postgresql(…)`` table functions
  (``POSITIONAL_CALLS``).
- **a JSON Patch operation** setting a member named like a credential (``{"op": "replace", "path":
  "/data/password", "value": X}``).
"""

from __future__ import annotations

import base64
import bz2
import gzip
import json
import lzma
import urllib.parse
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.secrets import masked, scrub
from tests.linear_support import CountingPattern, assert_linear, named_work, shape_work, work_of
from tests.secret_forms import form_tests, held_test, shown

W = "Hq7Lm2Vx9Rt4"  # a password as people write them, 12 characters
R = "Pz8Kd3Wq6Ln1Vb5Xc9Mr2Tj7Hs"  # random-looking, 26 characters
H = "9f3c1a7e5b2d8046c1e9a3f7b5d2c8e0"  # 32 hex digits, a key some providers write in hex
U = "3f9c2b7e-8a41-4d6f-b2c9-71e5a0d4c8f3"  # a UUID that is a token (Consul, Nomad, Heroku)

FORMS: list[tuple[str, str, str]] = []


def _form(name: str, text: str, secret: str = W) -> None:
    FORMS.append((name, text, secret))


def _b64(text: str | bytes) -> str:
    data = text.encode() if isinstance(text, str) else text
    return base64.b64encode(data).decode()


# === forms of kinds no round tried (298) ============================================================
# --- ML platforms and launchers: configs given inside an argument -----------------------------------
_form(
    "ds-config-comet",
    f'deepspeed train.py --deepspeed_config \'{{"comet": {{"enabled": true, "api_key": "{R}"}}}}\'',
    R,
)
_form(
    "ds-config-wandb-arg",
    f'--deepspeed \'{{"train_batch_size": 8, "wandb": {{"enabled": true, "team": "t", "api_key": "{R}"}}}}\'',
    R,
)
_form("hydra-plus-override", f"python train.py +logger.wandb.api_key={R} trainer.max_epochs=3", R)
_form("hydra-double-plus", f"python train.py ++db.password={W} model=resnet")
_form("hydra-tilde-then-set", f"python run.py ~callbacks db.password={W}")
_form("lightning-cli-init-args", f"python main.py fit --trainer.logger.init_args.api_key={R}", R)
_form(
    "lightning-cli-json",
    f'python main.py fit --trainer.logger=\'{{"class_path": "CometLogger", "init_args": {{"api_key": "{R}"}}}}\'',
    R,
)
_form(
    "ray-runtime-env-json",
    f'ray job submit --runtime-env-json \'{{"env_vars": {{"HF_TOKEN": "{R}"}}}}\' -- python t.py',
    R,
)
_form("ray-runtime-env-yaml", f"runtime_env:\n  env_vars:\n    WANDB_API_KEY: {R}\n", R)
_form(
    "accelerate-yaml-arg",
    f"accelerate launch --config_file <(printf 'compute_environment: LOCAL\\nhub_token: {R}\\n') t.py",
    R,
)
_form("torchrun-env-prefix", f"env NCCL_DEBUG=INFO HF_TOKEN={R} torchrun --nproc_per_node 8 t.py", R)
_form(
    "clearml-hocon",
    f'api {{\n  credentials {{\n    "access_key" = "KX7Q2M9P4R",\n    "secret_key" = "{R}"\n  }}\n}}',
    R,
)
_form("clearml-hocon-colon", f"sdk.aws.s3 {{ key: AKIAIOSFODNN7EXAMPLE, secret: {R} }}", R)
_form(
    "neptune-token-b64json",
    "NEPTUNE_API_TOKEN="
    + _b64(
        json.dumps(
            {"api_address": "https://app.neptune.ai", "api_url": "https://app.neptune.ai", "api_key": R}
        )
    ),
    R,
)
_form("comet-config-ini", f"[comet]\napi_key = {R}\nworkspace = team\n", R)
_form("mlflow-basic-env", f"MLFLOW_TRACKING_USERNAME=bob MLFLOW_TRACKING_PASSWORD={W} mlflow runs list")
_form("mlflow-server-store", f"mlflow server --backend-store-uri mysql+pymysql://mlflow:{W}@db:3306/mlflow")
_form("ngc-config-stdin", f"printf '{R}\\njson\\nnvidia\\n' | ngc config set", R)
_form("ngc-docker-oauth", f"echo {R} | docker login nvcr.io -u '$oauthtoken' --password-stdin", R)
_form("kfp-client-token", f'kfp.Client(host="https://kf.x/pipeline", existing_token="{R}")', R)
_form("wandb-login-relogin", f"wandb login --relogin --host https://wandb.x.com {R}", R)
_form("hf-auth-login", f"hf auth login --token {R} --add-to-git-credential", R)
_form("modal-token-set", f"modal token set --token-id ak-AbCdEf123456 --token-secret as-{R}", R)
_form("runai-login-app", f"runai login application --name ci --secret {R}", R)
_form(
    "runai-token-request",
    f'{{"grantType": "client_credentials", "clientId": "ci-app", "clientSecret": "{R}"}}',
    R,
)
_form("aihc-create-env", f'aihc job create --env "BCE_SECRET_ACCESS_KEY={H}" --name j1', H)
_form("bce-sts-header", f"x-bce-security-token: ZjkyZDQ1NjdhYmNkZWYxMjM0NTY3ODkwYWJjZGVm{R}", R)
_form("bcecmd-conf-credentials", f"[Defaults]\nAk = ALTAKx9Qz3Lm7Vp2Rt8Wc4Nd6H\nSk = {H}\n", H)
_form("bosfs-mount", f"bosfs bucket /mnt -o endpoint=bj.bcebos.com,ak=ALTAKx9Qz3Lm7Vp2Rt8Wc4Nd6H,sk={H}", H)
_form("dvc-remote-modify", f"dvc remote modify --local store secret_access_key {R}", R)
_form("dvc-remote-password", f"dvc remote modify --local ssh-remote password {W}")
_form("label-studio-env", f"LABEL_STUDIO_API_KEY={H} label-studio-ml start", H)
_form(
    "triton-repo-creds",
    f"tritonserver --model-repository=s3://AKIAIOSFODNN7EXAMPLE:{R}@s3.amazonaws.com/models",
    R,
)
# --- providers' prefixed tokens, bare (new prefixes) -----------------------------------------------
_form("tok-tavily", f"tvly-{R}AbC1", f"tvly-{R}")
_form("tok-tavily-dev", f"using tvly-dev-{R}Q9", f"tvly-dev-{R}")
_form("tok-openrouter", f"sk-or-v1-{H}{H}", f"{H}{H}")
_form("tok-langfuse-secret", f"sk-lf-{U}", f"sk-lf-{U}")
_form("tok-fireworks", f"fw_{R}xY", f"fw_{R}")
_form("tok-anyscale", f"esecret_{R}", f"esecret_{R}")
_form("tok-jina", f"jina_{H}{R}", f"jina_{H}")
_form("tok-llamacloud", f"llx-{R}{R[:6]}", f"llx-{R}")
_form("tok-runpod", f"rpa_{R}{R[:10]}", f"rpa_{R}")
_form("tok-kaggle-new", f"KGAT_{H}", f"KGAT_{H}")
_form("tok-sonar-user", f"sqp_{H}a1b2c3d4", f"sqp_{H}")
_form("tok-sonar-user-squ", f"-Dsonar.login=squ_{H}0f0f0f0f", f"squ_{H}")
_form("tok-buildkite", f"bkua_{H}1234abcd", f"bkua_{H}")
_form("tok-fly", f"FlyV1 fm2_{R}{R}{R}{R}", f"fm2_{R}")
_form("tok-paseto-local", f"v4.local.{R}{R}-{R}_{R}", f"{R}-{R}_{R}")
_form("tok-elevenlabs", f"sk_{H}{H[:16]}", f"sk_{H}")
_form("tok-firecrawl", f"fc-{H}", f"fc-{H}")
_form("tok-aliyun-sts", f"CAIS{R}Gq8Ft6Yd5Ue4Ih3Jo2Kp1{R}", f"CAIS{R}")
_form("tok-voyage", f"pa-{R}{R[:17]}", f"pa-{R}")
_form("tok-consul-env", f"CONSUL_HTTP_TOKEN={U}", U)
_form("tok-nomad-env", f"NOMAD_TOKEN={U} nomad status", U)
_form("tok-heroku-uuid", f"HEROKU_API_KEY={U}", U)
_form("tok-vault-secret-id", f"VAULT_SECRET_ID={U} vault write auth/approle/login role_id=r1", U)
_form("tok-postmark-header", f"X-Postmark-Server-Token: {U}", U)
# --- argument vectors printed by tools --------------------------------------------------------------
_form(
    "auditd-execve",
    f'type=EXECVE msg=audit(1700000000.123:42): argc=4 a0="mysql" a1="-uroot" a2="-p{W}" a3="app"',
)
_form(
    "auditd-execve-split",
    f'type=EXECVE msg=audit(1700000000.123:43): argc=5 a0="sshpass" a1="-p" a2="{W}" a3="ssh" a4="h"',
)
_form(
    "auditd-execve-hex",
    'type=EXECVE msg=audit(1.2:3): argc=3 a0="sh" a1="-c" a2=' + f"mysql -p{W} app".encode().hex().upper(),
    f"mysql -p{W} app".encode().hex().upper(),
)
_form("strace-execve", f'execve("/usr/bin/mysql", ["mysql", "-uroot", "-p{W}"], 0x7ffd /* 20 vars */) = 0')
_form(
    "strace-execve-split",
    f'execve("/usr/bin/sshpass", ["sshpass", "-p", "{W}", "ssh", "h"], 0x7ff /* 9 vars */) = 0',
)
_form("proc-cmdline-nul", f"mysql\0-uroot\0-p{W}\0app\0")
_form("proc-cmdline-nul-split", f"sshpass\0-p\0{W}\0ssh\0bob@h\0")
_form(
    "ps-aux-line",
    f"root      4242  0.0  0.1  12345  6789 ?        Ss   10:00   0:00 mysqld_safe --user=mysql --password={W}",
)
_form("ps-ef-line", f"bob   311   1  0 10:00 pts/0 00:00:00 sshpass -p {W} ssh -o StrictHostKeyChecking=no h")
_form("go-argv-print", f"exec: [mysql -h db -uroot -p{W} app] failed")
_form(
    "k8s-event-command",
    f'Error: failed to create containerd task: exec: "sshpass": command [sshpass -p {W} ssh h] not found',
)
_form("python-argv-repr", f"sys.argv = ['train.py', '--db-password', '{W}', '--epochs', '3']")
_form("python-subprocess-list", f"subprocess.run(['sshpass', '-p', '{W}', 'ssh', 'h'], check=True)")
_form("java-processbuilder", f'new ProcessBuilder("mysql", "-uroot", "-p{W}", "app").start();')
_form("go-exec-command", f'exec.Command("sshpass", "-p", "{W}", "ssh", "h").Run()')
_form("node-spawn", f"spawn('mysql', ['-u', 'root', '--password', '{W}'])")
_form("rust-command-args", f'Command::new("sshpass").args(["-p", "{W}", "ssh", "h"]).status()')
_form("dockerfile-exec-form", f'CMD ["redis-server", "--requirepass", "{W}"]')
_form("compose-command-list", f'command: ["mysqld", "--user=mysql", "--password={W}"]')
_form("k8s-args-yaml-list", f"args:\n- --db-password\n- {W}\n- --port\n- '5432'\n")
_form("k8s-args-flow", f"args: [--api-token, {R}, --verbose]", R)
_form("args-json-short", f'["sshpass", "-p", "{W}", "rsync", "-a", "src", "h:dst"]')
_form("args-json-pgpassword", f'["env", "PGPASSWORD={W}", "psql", "-h", "db"]')
_form("args-json-token-eq", f'["python", "serve.py", "--hf-token={R}"]', R)
_form("args-json-redis", f'["redis-cli", "-h", "r", "-a", "{W}", "ping"]')
# --- encodings no round tried ----------------------------------------------------------------------
_form(
    "ps-encoded-command",
    "powershell -NoProfile -EncodedCommand "
    + base64.b64encode(f"$env:DB_PASSWORD = '{W}'; .\\run.ps1".encode("utf-16-le")).decode(),
    base64.b64encode(f"$env:DB_PASSWORD = '{W}'; .\\run.ps1".encode("utf-16-le")).decode(),
)
_form(
    "ps-enc-short",
    "pwsh -enc " + base64.b64encode(f"Connect -Password '{W}'".encode("utf-16-le")).decode(),
    base64.b64encode(f"Connect -Password '{W}'".encode("utf-16-le")).decode(),
)
_form(
    "zlib-b64",
    "cfg: " + _b64(zlib.compress(f"db:\n  password: {W}\n".encode())),
    _b64(zlib.compress(f"db:\n  password: {W}\n".encode())),
)
_form(
    "bz2-b64",
    "blob=" + _b64(bz2.compress(f"DB_PASSWORD={W}\n".encode())),
    _b64(bz2.compress(f"DB_PASSWORD={W}\n".encode())),
)
_form(
    "xz-b64",
    "blob=" + _b64(lzma.compress(f"DB_PASSWORD={W}\n".encode())),
    _b64(lzma.compress(f"DB_PASSWORD={W}\n".encode())),
)
_form(
    "zlib-b64-url",
    "state=" + base64.urlsafe_b64encode(zlib.compress(json.dumps({"password": W}).encode())).decode(),
    base64.urlsafe_b64encode(zlib.compress(json.dumps({"password": W}).encode())).decode(),
)
_form(
    "base32-env",
    "CONF_B32=" + base64.b32encode(f"password={W}".encode()).decode(),
    base64.b32encode(f"password={W}".encode()).decode(),
)
_form(
    "base85-py",
    "blob = b'" + base64.b85encode(f"password={W}".encode()).decode() + "'",
    base64.b85encode(f"password={W}".encode()).decode(),
)
_form(
    "js-unicode-brace",
    'const password = "' + "".join(f"\\u{{{ord(c):x}}}" for c in W) + '"',
    "".join(f"\\u{{{ord(c):x}}}" for c in W),
)
_form(
    "iis-percent-u",
    "password=" + "".join(f"%u{ord(c):04x}" for c in W),
    "".join(f"%u{ord(c):04x}" for c in W),
)
_form(
    "double-percent",
    "next=" + urllib.parse.quote(urllib.parse.quote(f"https://x/?password={W}", safe=""), safe=""),
    W,
)
_form("json-slash-escaped", f'{{"url": "https:\\/\\/bob:{W}@db.internal\\/app"}}')
_form(
    "html-hex-entities-value",
    "password=" + "".join(f"&#x{ord(c):x};" for c in W),
    "".join(f"&#x{ord(c):x};" for c in W),
)
_form("html-named-entity-key", f"pass&#119;ord={W}")
_form("yaml-binary-tag", "password: !!binary " + _b64(W), _b64(W))
_form(
    "data-uri-json",
    "data:application/json;base64," + _b64(json.dumps({"api_key": R})),
    _b64(json.dumps({"api_key": R})),
)
_form(
    "octal-escape-json",
    'password: "' + "".join(f"\\{ord(c):03o}" for c in W) + '"',
    "".join(f"\\{ord(c):03o}" for c in W),
)
_form(
    "css-escape",
    'content: "' + "".join(f"\\{ord(c):x} " for c in f"password={W}") + '"',
    "".join(f"\\{ord(c):x} " for c in W),
)
_form(
    "utf16-b64-config",
    "CFG=" + base64.b64encode(f"api_key={R}".encode("utf-16")).decode(),
    base64.b64encode(f"api_key={R}".encode("utf-16")).decode(),
)
_form("hex-0x", "PW_HEX=0x" + W.encode().hex(), W.encode().hex())
_form(
    "xxd-dump",
    "00000000: 7061 7373 776f 7264 3d48 7137 4c6d 3256  password=Hq7Lm2V\n00000010: 7839 5274 340a                           x9Rt4.\n",
    "7061 7373 776f 7264 3d48 7137 4c6d 3256",
)
_form(
    "b64-in-yaml-in-json-arg",
    "--values '" + json.dumps({"values": _b64(f"auth:\n  rootPassword: {W}\n")}) + "'",
    _b64(f"auth:\n  rootPassword: {W}\n"),
)
_form("triple-b64", "X=" + _b64(_b64(_b64(f"token={R}"))), _b64(_b64(_b64(f"token={R}"))))
# --- quoting and value syntax -----------------------------------------------------------------------
_form("json-escaped-quote-in-value", '{"password": "ab\\"' + W + '"}')
_form("odbc-brace-pwd", f"Driver={{ODBC Driver 18}};Server=db;UID=sa;PWD={{a;{W}}};")
_form("yaml-block-literal", f"db:\n  password: |\n    {W}\n  host: db\n")
_form("yaml-block-folded-strip", f"api_token: >-\n  {R}\nreplicas: 2\n", R)
_form("yaml-single-quote-escape", f"password: 'it''s{W}'")
_form("yaml-double-quote-continued", f'password: "{W}\\\n  tail"')
_form("toml-multiline-basic", f'password = """\n{W}"""\n')
_form("toml-multiline-literal", f"token = '''{R}'''\n", R)
_form("hcl-heredoc", f"password = <<EOT\n{W}\nEOT\n")
_form("hcl-heredoc-indent", f"  api_key = <<-EOF\n    {R}\n  EOF\n", R)
_form("python-triple-quoted", f'PASSWORD = """{W}"""')
_form("python-bytes-literal", f"password = b'{W}'")
_form("python-raw-literal", f'api_key = r"{R}"', R)
_form("python-unicode-prefix", f"secret = u'{R}'", R)
_form("go-backtick", f"password := `{W}`")
_form("js-template", f"const apiToken = `{R}`;", R)
_form("rust-raw-string", f'let password = r#"{W}"#;')
_form("csharp-verbatim", f'var password = @"{W}";')
_form("java-text-block", f'String password = """\n    {W}""";')
_form("php-nowdoc", f"$password = <<<'EOT'\n{W}\nEOT;\n")
_form("perl-q", f"my $password = q{{{W}}};")
_form("ruby-percent-q", f"password = %q({W})")
_form(
    "ini-value-with-spaces", "[db]\npassword = correct horse battery staple\n", "correct horse battery staple"
)
_form("json-number-password", '{"user": "bob", "password": 48291735}', "48291735")
_form("lua-long-string", f"local password = [[{W}]]")
# --- references with a default literal ---------------------------------------------------------------
_form("shell-default", f'export DB_PASSWORD="${{DB_PASSWORD:-{W}}}"')
_form("shell-assign-default", f": ${{API_TOKEN:={R}}}", R)
_form("compose-default", f"    environment:\n      POSTGRES_PASSWORD: ${{PG_PASS:-{W}}}\n")
_form("helm-default", f'password: {{{{ .Values.auth.password | default "{W}" }}}}')
_form("jinja-default", f"db_password: \"{{{{ vault_db_password | default('{W}') }}}}\"")
_form("go-template-or", f'token: {{{{ or .Env.TOKEN "{R}" }}}}', R)
_form("makefile-or", f"DB_PASSWORD ?= $(or $(PW),{W})")
_form("py-setdefault", f'os.environ.setdefault("HF_TOKEN", "{R}")', R)
_form("dotenv-expand-default", f"API_KEY=${{API_KEY-{R}}}", R)
_form("powershell-null-coalesce", f'$pw = $env:DB_PASSWORD ?? "{W}"')
# --- values computed from a literal ------------------------------------------------------------------
_form("cmdsubst-echo", f"export DB_PASSWORD=$(echo {W})")
_form("cmdsubst-backtick", f"API_KEY=`printf %s {R}`", R)
_form("cmdsubst-b64d", "export GH_TOKEN=$(echo " + _b64(R) + " | base64 -d)", _b64(R))
_form("cmdsubst-rev", f"PASSWORD=$(echo {W[::-1]} | rev)", W[::-1])
_form("py-b64decode-literal", "password = base64.b64decode('" + _b64(W) + "').decode()", _b64(W))
_form("js-atob", "const token = atob('" + _b64(R) + "');", _b64(R))
_form("java-decoder", 'String pw = new String(Base64.getDecoder().decode("' + _b64(W) + '"));', _b64(W))
# --- shells and languages setting environment variables ---------------------------------------------
_form("fish-set-gx", f"set -gx OPENAI_API_KEY {R}", R)
_form("csh-setenv", f"setenv DB_PASSWORD {W}")
_form("nushell-env", f'$env.API_TOKEN = "{R}"', R)
_form("powershell-env-drive", f'Set-Item -Path Env:DB_PASSWORD -Value "{W}"')
_form("cmd-set-quoted", f'set "DB_PASSWORD={W}"')
_form("bash-declare-x", f"declare -x API_TOKEN={R}", R)
_form("ksh-typeset", f"typeset -x DB_PASSWORD={W}")
_form("go-setenv", f'os.Setenv("DB_PASSWORD", "{W}")')
_form("rust-set-var", f'env::set_var("API_TOKEN", "{R}");', R)
_form("java-setproperty", f'System.setProperty("javax.net.ssl.keyStorePassword", "{W}");')
_form("r-sys-setenv", f'Sys.setenv(OPENAI_API_KEY = "{R}")', R)
_form("julia-env", f'ENV["HF_TOKEN"] = "{R}"', R)
_form("matlab-setenv", f"setenv('DB_PASSWORD', '{W}')")
_form("c-setenv", f'setenv("API_TOKEN", "{R}", 1);', R)
_form("c-putenv", f'putenv("DB_PASSWORD={W}");')
_form("env-dash-S", f"#!/usr/bin/env -S API_TOKEN={R} python3", R)
_form("java-opts-d", f'JAVA_OPTS="-Xmx2g -Djavax.net.ssl.trustStorePassword={W}"')
_form("jmeter-J", f"jmeter -n -t plan.jmx -Jdb.password={W} -l out.jtl")
_form("jmeter-G", f"jmeter -n -t plan.jmx -Gapi_token={R}", R)
_form("gradle-P", f"./gradlew publish -PmavenPassword={W} -PmavenUser=bob")
_form("gradle-orggradle", f"ORG_GRADLE_PROJECT_signingPassword={W} ./gradlew sign")
_form("git-c-extraheader", f'git -c http.extraHeader="Authorization: Bearer {R}" clone https://g.x/r.git', R)
_form(
    "git-c-extraheader-basic",
    'git -c http.https://g.x/.extraheader="AUTHORIZATION: basic ' + _b64(f"x-access-token:{R}") + '" fetch',
    _b64(f"x-access-token:{R}"),
)
_form("sqoop-password", f"sqoop import --connect jdbc:mysql://db/app --username bob --password {W} --table t")
_form("beeline-p", f"beeline -u jdbc:hive2://h:10000/default -n bob -p {W} -e 'show tables'")
_form("trino-env", f"TRINO_PASSWORD={W} trino --server https://t.x --user bob --password")
_form("newman-env-var", f'newman run c.json --env-var "apiKey={R}"', R)
_form("uv-publish", f"uv publish --token pypi-{R}{R}", f"pypi-{R}")
_form("uv-publish-password", f"uv publish --username bob --password {W}")
_form(
    "velero-creds",
    f"printf '[default]\\naws_access_key_id=AKIAIOSFODNN7EXAMPLE\\naws_secret_access_key={R}\\n' > credentials-velero",
    R,
)
_form("goofys-env", f"AWS_SECRET_ACCESS_KEY={R} goofys bucket /mnt", R)
_form("cosfs-passwd", f"echo bucket-125:AKIDx9Qz3Lm7Vp2Rt8Wc4Nd6Hk1Yj5Fs:{R} > /etc/passwd-cosfs", R)
_form("qshell-account", f"qshell account AkQ9x7Lm2Vp8Rt3Wc4Nd6Hk1Yj5FsBg {R} bob", R)
# --- tools and protocols with positional credentials ------------------------------------------------
_form("redis-acl-setuser", f"ACL SETUSER app on >{W} ~cache:* +get +set")
_form("redis-acl-file", f"user app on >{W} ~* &* +@all")
_form("redis-cli-acl", f'redis-cli ACL SETUSER bob on ">{W}" allkeys allcommands')
_form("mongo-db-auth", f'db.auth("admin", "{W}")')
_form("mongo-change-pw", f'db.changeUserPassword("app", "{W}")')
_form("zk-addauth", f"addauth digest bob:{W}")
_form("zkcli-addauth", f"zkCli.sh -server zk:2181 addauth digest super:{W}")
_form("oracle-mkstore", f"mkstore -wrl /wallet -createCredential prod_db scott {W}")
_form("hana-userstore", f"hdbuserstore SET BACKUP hana:30015 SYSTEM {W}")
_form("teradata-logon", f".LOGON tdprod/dbc,{W};")
_form("neo4j-initial", f"neo4j-admin dbms set-initial-password {W}")
_form("grafana-reset", f"grafana-cli admin reset-admin-password {W}")
_form("netdom-join", f"netdom join PC01 /domain:corp.x /UserD:corp\\bob /PasswordD:{W}")
_form("es-keystore-stdin", f"echo {W} | bin/elasticsearch-keystore add -x bootstrap.password")
_form("kibana-keystore-stdin", f"printf '%s' {W} | kibana-keystore add elasticsearch.password --stdin")
_form("mac-security-w", f"security add-generic-password -a bob -s api -w {R}", R)
_form("snmpwalk-v3", f"snmpwalk -v3 -u monitor -l authPriv -a SHA -A {W} -x AES -X Qm8Nc3Vz1Tw5 10.0.0.1")
_form("snmpd-createuser", f'createUser monitor SHA "{W}" AES "Qm8Nc3Vz1Tw5"')
_form("jenkins-cli-auth", f"java -jar jenkins-cli.jar -s https://ci.x/ -auth bob:{R} build job", R)
_form("isql-fused-P", f"isql -Usa -P{W} -SSYB")
_form("hdbsql-p", f"hdbsql -n hana:30015 -u SYSTEM -p {W} 'select 1'")
_form("godaddy-sso-key", f"Authorization: sso-key 3mM44UbhBvP9_{R}:{W}")
_form("mount-cifs-percent", f"mount -t cifs //srv/share /mnt -o user=bob%{W},vers=3.0")
_form("curl-empty-user", f"curl -u :{R} https://api.x.com/v1", R)
_form("curl-oauth2-bearer", f"curl --oauth2-bearer {R} https://api.x.com", R)
_form(
    "wg-private-key-procsub",
    f"wg set wg0 private-key <(echo {_b64(R)[:32]}NlXo2Q=) peer x",
    f"{_b64(R)[:32]}NlXo2Q=",
)
_form("mysql-config-editor", f"echo {W} | mysql_config_editor set --login-path=prod --user=bob --password")
_form("httpie-auth", f"http -a bob:{W} GET https://api.x.com/me")
_form("httpie-query-item", f"http GET https://api.x.com/v1 api_key=={R}", R)
_form("httpie-header-item", f"http POST https://api.x.com/v1 'Authorization:Token {R}'", R)
_form("ab-basic", f"ab -n 100 -A bob:{W} https://x.com/")
_form("rdesktop-p", f"rdesktop -u admin -p {W} 10.0.0.4")
_form("xfreerdp-p", f"xfreerdp /v:10.0.0.4 /u:admin /p:{W} /cert:ignore")
_form("vncviewer-passwd", f"echo {W} | vncpasswd -f > ~/.vnc/passwd")
_form("ftp-url-ffmpeg", f"ffmpeg -i rtsp://admin:{W}@10.0.0.8:554/stream1 -c copy out.mp4")
_form(
    "openvpn-auth-file",
    f"printf 'bob\\n{W}\\n' > auth.txt && openvpn --config c.ovpn --auth-user-pass auth.txt",
)
# --- auth schemes no round tried ------------------------------------------------------------------
_form("scheme-apikey", f"Authorization: ApiKey {_b64('id1:' + R)}", _b64("id1:" + R))
_form("scheme-token-token", f'Authorization: Token token="{R}", email="bob@x.com"', R)
_form("scheme-geniekey", f"Authorization: GenieKey {U}", U)
_form("scheme-splunk", f"Authorization: Splunk {U}", U)
_form("scheme-key", f"Authorization: Key {R}", R)
_form("scheme-klaviyo", f"Authorization: Klaviyo-API-Key pk_{H}", f"pk_{H}")
_form("scheme-deepl", f"Authorization: DeepL-Auth-Key {U}:fx", U)
_form("scheme-zoho", f"Authorization: Zoho-oauthtoken 1000.{H}.{H}", f"1000.{H}")
_form("scheme-accesskey", f"Authorization: AccessKey {R}", R)
_form("scheme-oauth", f"Authorization: OAuth y0_{R}", f"y0_{R}")
_form("scheme-api-key", f"Authorization: Api-Key AQVN{R}", f"AQVN{R}")
_form("scheme-hmac", f"Authorization: HMAC-SHA256 Credential=ak1,Signature={H}", H)
_form(
    "scheme-mac",
    f'Authorization: MAC id="h480djs93hd8", ts="1336363200", nonce="dj83hs9s", mac="{_b64(R)}"',
    _b64(R),
)
_form("scheme-bot", f"Authorization: Bot MTA4{R}.GhXk2P.{R}", f"MTA4{R}")
_form("scheme-in-curl-lower", f"curl -H 'authorization: apikey {R}' https://x", R)
# --- presigned URLs of clouds no round tried ---------------------------------------------------------
_form(
    "cos-q-signature",
    f"https://b-125.cos.ap-bj.myqcloud.com/o.bin?q-sign-algorithm=sha1&q-ak=AKIDx9Qz3Lm7Vp2Rt8Wc4Nd6Hk1Yj5Fs&q-sign-time=1700000000;1700003600&q-key-time=1700000000;1700003600&q-header-list=host&q-url-param-list=&q-signature={H}a1b2c3d4",
    f"{H}a1b2c3d4",
)
_form(
    "obs-signature",
    f"https://b.obs.cn-north-4.myhuaweicloud.com/o?AccessKeyId=HPUAX9QZ3LM7VP2RT8WC&Expires=1700003600&Signature={urllib.parse.quote(_b64(R[:20]), safe='')}",
    urllib.parse.quote(_b64(R[:20]), safe=""),
)
_form(
    "cloudfront-signed",
    f"https://d1.cloudfront.net/v.mp4?Expires=1700003600&Signature={R}~{R}__&Key-Pair-Id=K2JCJMDEHXQW5F",
    f"{R}~{R}",
)
_form(
    "qiniu-private",
    f"http://cdn.x.com/a.jpg?e=1700003600&token=AkQ9x7Lm2Vp8Rt3Wc4Nd6Hk1Yj5FsBg:{_b64(R[:20])}",
    _b64(R[:20]),
)
_form(
    "oss-sts-url",
    f"https://b.oss-cn-hz.aliyuncs.com/o?OSSAccessKeyId=STS.NUgYrLnoC37mZZCNnAbez2ZSp&Expires=1700003600&Signature={urllib.parse.quote(_b64(R[:20]), safe='')}&security-token=CAIS{R}{R}",
    f"CAIS{R}",
)
_form(
    "bos-presigned-pct",
    "https://b.bj.bcebos.com/o?authorization="
    + urllib.parse.quote(
        f"bce-auth-v1/ALTAKx9Qz3Lm7Vp2Rt8Wc4Nd6H/2026-01-01T00:00:00Z/3600/host/{H}{H}", safe=""
    ),
    f"{H}{H}",
)
_form(
    "gcs-v2-signature",
    f"https://storage.googleapis.com/b/o?GoogleAccessId=sa@p.iam.gserviceaccount.com&Expires=1700003600&Signature={urllib.parse.quote(_b64(R + R), safe='')}",
    urllib.parse.quote(_b64(R + R), safe=""),
)
_form(
    "azure-sas-in-args",
    f'["azcopy", "copy", "./d", "https://acct.blob.core.windows.net/c?sv=2022-11-02&ss=b&srt=co&sp=rwdlac&se=2026-12-31&st=2026-01-01&spr=https&sig={urllib.parse.quote(_b64(R + "xy"), safe="")}"]',
    urllib.parse.quote(_b64(R + "xy"), safe=""),
)
_form(
    "s3-v2-signature",
    f"https://b.s3.amazonaws.com/o?AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Expires=1700003600&Signature={urllib.parse.quote(_b64(R[:20]), safe='')}",
    urllib.parse.quote(_b64(R[:20]), safe=""),
)
# --- object dumps in languages no round tried --------------------------------------------------------
_form("kotlin-data-class", f"DbConfig(url=jdbc:postgresql://db/app, user=bob, password={W})")
_form("csharp-record", f"DbOptions {{ Host = db, User = bob, Password = {W} }}")
_form("swift-dump", f'Config(user: "bob", password: "{W}", host: "db")')
_form("haskell-record", f'Config {{user = "bob", password = "{W}"}}')
_form("ocaml-record", f'{{ user = "bob"; password = "{W}" }}')
_form("erlang-record", f'#config{{user = <<"bob">>, password = <<"{W}">>}}')
_form("go-sharp-v", f'main.Config{{User:"bob", Password:"{W}", Host:"db"}}')
_form("java-map-tostring", f"{{host=db, password={W}, user=bob}}")
_form("python-yaml-object", f"!!python/object:app.Config\npassword: {W}\nuser: bob\n")
_form("dart-map", f"{{user: bob, password: {W}}}")
_form("scala-case-named", f'Settings(apiKey = "{R}", region = "bj")', R)
_form("nix-attrset", f'services.app = {{ password = "{W}"; port = 8080; }};')
_form("jsonnet-field", f"{{ password:: '{W}', user: 'bob' }}")
_form("cue-field", f'db: {{ password: "{W}" & string }}')
_form("dhall-record", f'{{ user = "bob", password = "{W}" }}')
# --- logs, traces and errors quoting a config --------------------------------------------------------
_form(
    "axios-error-dump",
    f"AxiosError: Request failed with status code 401\n  config: {{\n    headers: {{ Authorization: 'Bearer {R}' }},\n  }}",
    R,
)
_form(
    "java-trace-jdbc",
    f"Caused by: java.sql.SQLException: Access denied (url=jdbc:mysql://db:3306/app?user=bob&password={W})\n\tat com.mysql.cj.jdbc.ConnectionImpl.<init>(ConnectionImpl.java:1)",
)
_form("celery-broker-repr", f"[config]\n.> transport:   redis://:{W}@redis:6379/0")
_form(
    "go-panic-struct",
    f"panic: dial failed\n\ngoroutine 1 [running]:\nmain.connect(0xc000010000, {{Addr:db:5432 User:bob Password:{W}}})",
)
_form(
    "airflow-log-conn",
    f"[2026-01-01, 00:00:00 UTC] {{base.py:73}} INFO - Using connection ID 'pg' for task execution: postgres://bob:{W}@db:5432/app",
)
_form(
    "status-message-cmd",
    f"Back-off restarting failed container; last command: mysql --host=db --user=root --password={W}",
)
_form("k8s-event-env", f"Error: container has runAsNonRoot; env [API_TOKEN={R} LOG_LEVEL=info]", R)
_form("python-logging-dict", f"INFO:root:settings {{'user': 'bob', 'password': b'{W}', 'port': 5432}}")
_form("pytest-locals", f"config    = {{'api_key': '{R}', 'timeout': 30}}", R)
_form("terraform-plan-sensitive-leak", f'  + master_password = "{W}"')
_form("docker-inspect-env", f'"Env": [\n    "PATH=/usr/bin",\n    "REDIS_PASSWORD={W}"\n]')
_form("kubectl-describe-env", f"    Environment:\n      API_TOKEN:  {R}\n      LOG_LEVEL:  info\n", R)
_form(
    "journal-sudo-cmd",
    f"Jan 01 00:00:00 h sudo[42]: bob : TTY=pts/0 ; PWD=/home/bob ; USER=root ; COMMAND=/usr/bin/mysql -uroot -p{W}",
)
_form("bash-history-ts", f"#1700000000\nsshpass -p {W} scp f h:/tmp\n")
_form("set-x-trace", f"+ curl -s -H 'X-Api-Key: {R}' https://api.x.com", R)
# --- Kubernetes and payload placements ---------------------------------------------------------------
_form("helm-set-env-index", f"helm upgrade app ./c --set env[0].name=DB_PASSWORD,env[0].value={W}")
_form("helm-set-json", f'helm install app ./c --set-json \'auth={{"rootPassword":"{W}"}}\'')
_form("json-patch-path", f'[{{"op": "replace", "path": "/data/password", "value": "{_b64(W)}"}}]', _b64(W))
_form(
    "json-patch-env",
    f'[{{"op": "add", "path": "/spec/template/spec/containers/0/env/-", "value": {{"name": "API_TOKEN", "value": "{R}"}}}}]',
    R,
)
_form("kubectl-set-env", f"kubectl set env deployment/app API_TOKEN={R}", R)
_form("kubectl-exec-env", f"kubectl exec -it db-0 -- env PGPASSWORD={W} psql -U postgres")
_form("kustomize-literal", f"secretGenerator:\n- name: app\n  literals:\n  - api-token={R}\n", R)
_form("argo-param-value", f"arguments:\n  parameters:\n  - name: db-password\n    value: {W}\n")
_form("tekton-param", f'params:\n  - name: registry-token\n    value: "{R}"\n', R)
_form("pod-env-yaml-flow", f"env: [{{name: HF_TOKEN, value: {R}}}]", R)
_form("image-pull-inline", f'imagePullSecrets: [{{"auth": "{_b64("bob:" + W)}"}}]', _b64("bob:" + W))
_form("volume-nfs-url", f"volume: smb://corp;bob:{W}@fs.x/share")
_form("s3-url-keys", f"s3://AKIAIOSFODNN7EXAMPLE:{R}@bucket/path", R)
_form("git-url-oauth2", f"repository: https://oauth2:{R}@gitlab.x.com/g/r.git", R)
_form(
    "annotation-json-env", f'{{"sidecar.x/env": "[{{\\"name\\":\\"API_KEY\\",\\"value\\":\\"{R}\\"}}]"}}', R
)
_form("label-like-token", f"auth-token={R}", R)
_form(
    "runai-env-list-json",
    f'"environmentVariables": [{{"name": "WANDB_API_KEY", "value": "{H}{H[:8]}"}}]',
    f"{H}{H[:8]}",
)
_form("aihc-envs-kv", f'"envs": [{{"key": "HF_TOKEN", "value": "{R}"}}]', R)
# --- SQL forms no round tried ------------------------------------------------------------------------
_form("sql-change-master", f"CHANGE MASTER TO MASTER_HOST='db', MASTER_USER='repl', MASTER_PASSWORD='{W}';")
_form("sql-change-source", f"CHANGE REPLICATION SOURCE TO SOURCE_USER='repl', SOURCE_PASSWORD='{W}';")
_form(
    "sql-scoped-credential",
    f"CREATE DATABASE SCOPED CREDENTIAL c WITH IDENTITY = 'SHARED ACCESS SIGNATURE', SECRET = '{R}';",
    R,
)
_form("sql-user-mapping", f"CREATE USER MAPPING FOR bob SERVER remote OPTIONS (user 'bob', password '{W}');")
_form(
    "sql-dblink", f"SELECT * FROM dblink('host=db user=bob password={W} dbname=app', 'select 1') AS t(a int);"
)
_form(
    "sql-snowflake-stage",
    f"CREATE STAGE s URL='s3://b/' CREDENTIALS=(AWS_KEY_ID='AKIAIOSFODNN7EXAMPLE' AWS_SECRET_KEY='{R}');",
    R,
)
_form(
    "sql-federated",
    f"CREATE SERVER fed FOREIGN DATA WRAPPER mysql OPTIONS (USER 'bob', PASSWORD '{W}', HOST 'db');",
)
_form("sql-hive-jdbc", f"jdbc:hive2://h:10000/default;user=bob;password={W}")
_form("sql-clickhouse-mysql-fn", f"SELECT * FROM mysql('db:3306', 'app', 't', 'bob', '{W}')")
_form("sql-pg-foreign-opts", f"ALTER USER MAPPING FOR bob SERVER s OPTIONS (SET password '{W}');")

# === the classes closed, further members (``cls-…``) ===============================================
# --- providers' prefixed tokens, placed
_form("cls-tok-tavily-prod-env", f"TAVILY_KEY=tvly-prod-{R}", f"tvly-prod-{R}")
_form("cls-tok-sonar-analysis", f"sonar.token=sqa_{H}0a1b2c3d", f"sqa_{H}")
_form("cls-tok-paseto-v2-header", f"Authorization: v2.local.{R}{R}_{R}", f"{R}{R}_{R}")
_form("cls-tok-kaggle-json", f'{{"username": "bob", "token": "KGAT_{H}"}}', f"KGAT_{H}")
_form("cls-tok-alibaba-sts-json", f'{{"Credentials": {{"SecurityToken": "CAIS{R}{R}{R}"}}}}', f"CAIS{R}")
_form("cls-tok-fireworks-yaml", f"llm:\n  key: fw_{R}\n", f"fw_{R}")
_form("cls-tok-jina-bearer-log", f"curl -H 'Authorization: Bearer jina_{H}{R}'", f"jina_{H}")
_form("cls-tok-runpod-args", f'["runpodctl", "config", "--apiKey", "rpa_{R}{R[:8]}"]', f"rpa_{R}")
# --- UTF-16 and compressed text in base64
_form(
    "cls-utf16-be-b64",
    "BLOB=" + base64.b64encode(f"password={W}".encode("utf-16-be")).decode(),
    base64.b64encode(f"password={W}".encode("utf-16-be")).decode(),
)
_form(
    "cls-ps-enc-netuse",
    "powershell.exe -e "
    + base64.b64encode(f"net use Z: \\\\srv\\s /user:bob {W}".encode("utf-16-le")).decode(),
    base64.b64encode(f"net use Z: \\\\srv\\s /user:bob {W}".encode("utf-16-le")).decode(),
)
_form(
    "cls-xz-b64-yaml",
    "values: " + _b64(lzma.compress(f"auth:\n  rootPassword: {W}\n".encode())),
    _b64(lzma.compress(f"auth:\n  rootPassword: {W}\n".encode())),
)
_form(
    "cls-bz2-b64-cmd",
    "echo " + _b64(bz2.compress(f"mysql -uroot -p{W}".encode())) + " | base64 -d | bunzip2 | sh",
    _b64(bz2.compress(f"mysql -uroot -p{W}".encode())),
)
_form(
    "cls-cmdline-b64", "cmdline=" + _b64(f"redis-cli\0-a\0{W}\0ping\0"), _b64(f"redis-cli\0-a\0{W}\0ping\0")
)
# --- argument vectors
_form("cls-vec-python-popen-tuple", f"Popen(('mysql', '-uroot', '-p{W}'))")
_form("cls-vec-kotlin-listof", f'ProcessBuilder(listOf("sshpass", "-p", "{W}", "ssh", "h"))')
_form("cls-vec-rust-arg-chain", f'Command::new("redis-cli").arg("-a").arg("{W}").arg("ping")')
_form("cls-vec-csharp-arguments", f'new ProcessStartInfo("mysql", new[] {{ "-uroot", "-p{W}" }})')
_form("cls-vec-auditd-redis", f'type=EXECVE msg=audit(1.1:9): argc=3 a0="redis-cli" a1="-a" a2="{W}"')
_form("cls-vec-flow-short", f"command: [sshpass, -p, {W}, ssh, h]")
_form("cls-vec-go-bracket-event", f"Liveness probe failed: exec [redis-cli -a {W} ping] timed out")
_form("cls-vec-nul-mysql", f"mysqldump\0--user=root\0--password={W}\0app\0")
# --- a literal's own syntax
_form("cls-lit-sql-doubled", f"ALTER USER bob IDENTIFIED BY 'it''s{W}';")
_form("cls-lit-vb-doubled", f'Dim password = "say ""{W}"""')
_form("cls-lit-rust-raw-two", f'const TOKEN: &str = r##"{R}"##;', R)
_form("cls-lit-lua-level", f"local api_key = [==[{R}]==]", R)
_form("cls-lit-elixir-binary", f'config :app, password: <<"{W}">>')
_form("cls-lit-py-rb-prefix", f'{{"script": "secret = rb\'{R}\'"}}', R)
_form("cls-lit-decode-ruby", "password = Base64.decode64('" + _b64(W) + "')", _b64(W))
_form("cls-lit-decode-php", "$apiKey = base64_decode('" + _b64(R) + "');", _b64(R))
_form(
    "cls-lit-decode-dotnet",
    'var pw = Encoding.UTF8.GetString(Convert.FromBase64String("' + _b64(W) + '"));',
    _b64(W),
)
_form(
    "cls-lit-decode-urlsafe",
    "token = base64.urlsafe_b64decode('" + base64.urlsafe_b64encode(R.encode()).decode() + "')",
    base64.urlsafe_b64encode(R.encode()).decode(),
)
# --- references given a default
_form("cls-def-helm-quoted", f'password: {{{{ .Values.db.password | default "{W}" | quote }}}}')
_form("cls-def-sprig-prefix", f'token: {{{{ default "{R}" .Values.token }}}}', R)
_form("cls-def-ansible-lookup", f"api_key: \"{{{{ lookup('env', 'API_KEY') | default('{R}', true) }}}}\"", R)
_form("cls-def-shell-eq", f"PASSWORD=${{PASSWORD={W}}}")
_form("cls-def-compose-no-colon", f"      API_TOKEN: ${{API_TOKEN-{R}}}\n", R)
_form("cls-def-expansion-alone", f'./migrate --db app "${{DB_PASSWORD:-{W}}}"')
_form("cls-def-make-or-env", f"API_KEY := $(or $(API_KEY),{R})", R)
# --- tools' positional and own credentials
_form("cls-tool-mkstore-modify", f"mkstore -wrl /opt/wallet -modifyCredential prod_db scott {W}")
_form("cls-tool-hdbuserstore-lower", f"hdbuserstore -i set BACKUP hana:30015 SYSTEM {W}")
_form("cls-tool-zk-in-script", f"zkCli.sh -server zk:2181 <<EOF\naddauth digest super:{W}\nls /\nEOF\n")
_form("cls-tool-snmp-create-v3", f"net-snmp-create-v3-user -ro -A {W} -a SHA -X Qm8Nc3Vz1Tw5 -x AES monitor")
_form("cls-tool-acl-lower", f"acl setuser app on >{W} ~* +@read")
_form("cls-tool-isql-spaced", f"isql -U sa -P {W} -S SYB")
_form("cls-tool-ngc-heredoc", f"ngc config set <<EOF\n{R}\njson\nEOF\n", R)
_form("cls-call-pg-table-fn", f"SELECT * FROM postgresql('pg:5432', 'app', 't', 'bob', '{W}')")
_form("cls-call-mongo-table-fn", f"SELECT * FROM mongodb('m:27017', 'app', 'c', 'bob', '{W}', 'x String')")
# --- JSON Patch
_form(
    "cls-patch-stringdata",
    f'kubectl patch secret db --type=json -p=\'[{{"op": "add", "path": "/stringData/api-token", "value": "{R}"}}]\'',
    R,
)
_form("cls-patch-escaped-path", f'[{{"op": "replace", "path": "/data/db~1password", "value": "{W}"}}]')


#: Forms still shown, each a strict xfail.
KNOWN_GAPS: dict[str, str] = {
    "base32-env": "base32 (A-Z and 2-7) has no literal to anchor on: every run of capitals and digits would have to be decoded, in every text",
    "base85-py": "base85's alphabet holds nearly every printable character: any word would have to be tried",
    "css-escape": "CSS escapes (``\\\\70 \\\\61 ``) read as text would read every backslash-digit run of every stylesheet",
    "xxd-dump": "a hex dump's columns cut the text into 16-byte lines (the secret split over two lines); no reader joins a dump's columns",
    "teradata-logon": "BTEQ's ``.LOGON host/user,X``: the Oracle login's ``user/X`` rule would mask the user (``dbc,X``); no row reads the part after the comma",
    "mount-cifs-percent": "a mount option's ``user=bob%X``: ``%`` starts percent-encoding in every URL's ``user=`` (``user=bob%40x.com``)",
    "wg-private-key-procsub": "``wg set … private-key <(echo X)``: the option is a bare word, no ``-``; only dashed options read a process substitution",
}

#: Near misses: ordinary payload text that stays as it is.
CLEAN = [
    "pa-system-overview-dashboard-for-the-cluster-nodes",
    "fw_update_required_on_node_7",
    "fc-0a1b2c",
    "tvly-",
    "CAISSON DEPLOYMENT SUCCEEDED",
    "v4.local.example.com",
    "sk_test_fixture",
    "image: nvcr.io/nvidia/pytorch:24.01-py3@sha256:9f3c1a7e5b2d8046c1e9a3f7b5d2c8e09f3c1a7e5b2d8046c1e9a3f7b5d2c8e0",
    "workloadId: 6dce772a-33c1-473b-b21b-000000000001",
    "pod/pytorchjob-12345678-worker-0 Started",
    'exec.Command("ls", "-la", "/tmp")',
    '["python", "train.py", "--epochs", "3", "--lr", "0.1"]',
    'type=EXECVE msg=audit(1.2:3): argc=3 a0="ls" a1="-la" a2="/tmp"',
    "args: [--epochs, 3, --lr, 0.1]",
    "command: [nginx, -g, daemon off;]",
    "exec [nginx -g daemon off;] started",
    "python\0train.py\0--epochs\x003\0",
    "password: {{ .Values.db.password }}",
    'password: {{ .Values.db.password | default "" }}',
    "token: {{ .Values.t | default (randAlphaNum 32) }}",
    "API_KEY=${API_KEY-}",
    "DB_PASSWORD=${DB_PASSWORD:-$FALLBACK}",
    "X=${PW:-$OTHER}",
    "PASSWORD=${PASSWORD:-${DEFAULT_PW}}",
    'echo "${API_TOKEN:?API_TOKEN is required}"',
    "PASSWORD ?= $(or $(PW),$(DEFAULT_PW))",
    'replicas: {{ .Values.replicas | default "2" }}',
    "data = base64.b64decode(payload)",
    "img = atob(encoded)",
    "greeting = base64.b64decode('aGVsbG8gd29ybGQ=')",
    "name: 'it''s a job'",
    'pattern = r"^[a-z0-9-]{1,63}$"',
    'path = @"C:\\jobs\\out"',
    "[[nodiscard]] int run();",
    'run("passwd", "-S", "bob")',
    "cfg.set('sshpass', '--help')",
    "hdbuserstore LIST",
    "createUser bob",
    "db.createUser({user: 'bob', roles: []})",
    "ACL SETUSER app off",
    "ACL WHOAMI",
    "SELECT * FROM mysql('db:3306', 'app', 't', 'bob', '')",
    "conn = mysql(host, db, table, user, pw)",
    '[{"op": "replace", "path": "/spec/replicas", "value": "3"}]',
    '[{"op": "add", "path": "/metadata/annotations/secretName", "value": "db-secret"}]',
    '{"op": "add", "path": "/metadata/labels/token-ttl", "value": "3600"}',
    "addauth digest bob:bob",
    "mkstore -wrl /opt/wallet -listCredential",
    "qshell account",
    "powershell -EncodedCommand "
    + base64.b64encode("Get-Process | Sort-Object CPU".encode("utf-16-le")).decode(),
    "blob=" + _b64(bz2.compress(b"replicas: 2\nimage: nginx\n")),
    "blob=" + _b64(lzma.compress(b"epochs=3\nlr=0.1\n")),
]

globals().update(form_tests(FORMS, KNOWN_GAPS, at_least=290, clean=CLEAN))

test_every_form_in_every_holder_and_encoding = held_test(
    [form for form in FORMS if form[0] not in KNOWN_GAPS], max_examples=150
)


# --- the classes beyond their rows ------------------------------------------------------------------

_VALUES = st.sampled_from([W, R, "Xk4Tq9Vz2Lm7Pw3R", "s3cr3t-Pa55w0rd", "n0t.4.r34l.k3y!"])
_ALNUM = st.text(
    alphabet="ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789", min_size=64, max_size=64
)
_HEX = st.text(alphabet="0123456789abcdef", min_size=48, max_size=48)
_PLACES = st.sampled_from(
    [
        "{t}",
        "API_KEY={t}",
        '{{"token": "{t}"}}',
        "Authorization: Bearer {t}",
        "--api-key {t}",
        "log: using {t} now",
    ]
)


def _provider_token(kind: str, alnum: str, hexes: str) -> str:
    return {
        "tavily": f"tvly-{alnum[:32]}",
        "anyscale": f"esecret_{alnum[:28]}",
        "jina": f"jina_{alnum[:60]}",
        "llamacloud": f"llx-{alnum[:48]}",
        "runpod": f"rpa_{alnum[:40]}",
        "kaggle": f"KGAT_{hexes[:32]}",
        "sonarqube": f"squ_{hexes[:40]}",
        "buildkite": f"bkua_{hexes[:40]}",
        "paseto": f"v4.local.{alnum}",
        "elevenlabs": f"sk_{hexes}",
        "firecrawl": f"fc-{hexes[:32]}",
        "fireworks": f"fw_A1{alnum[:24]}",
        "voyage": f"pa-Q7{alnum[:41]}",
        "alibaba-sts": f"CAIS{alnum}{alnum}",
    }[kind]


@settings(max_examples=120, deadline=None, derandomize=True, database=None)
@given(
    kind=st.sampled_from(
        [
            "tavily",
            "anyscale",
            "jina",
            "llamacloud",
            "runpod",
            "kaggle",
            "sonarqube",
            "buildkite",
            "paseto",
            "elevenlabs",
            "firecrawl",
            "fireworks",
            "voyage",
            "alibaba-sts",
        ]
    ),
    alnum=_ALNUM,
    hexes=_HEX,
    place=_PLACES,
)
def test_a_providers_prefixed_token_anywhere(kind: str, alnum: str, hexes: str, place: str) -> None:
    token = _provider_token(kind, alnum, hexes)
    scrubbed = scrub(place.format(t=token))
    assert not shown(token, scrubbed), scrubbed
    assert scrub(scrubbed) == scrubbed


@settings(max_examples=80, deadline=None, derandomize=True, database=None)
@given(
    inner=st.sampled_from(
        ["password={v}", "mysql -uroot -p{v} app", "$env:API_TOKEN = '{v}'", "db:\n  password: {v}\n"]
    ),
    value=_VALUES,
    codec=st.sampled_from(["utf-16-le", "utf-16-be", "utf-16", "utf-8"]),
    packer=st.sampled_from(["none", "bz2", "xz", "zlib", "gzip"]),
    lead=st.sampled_from(["", "powershell -EncodedCommand ", "blob=", '{"data": "']),
)
def test_text_of_any_codec_compressed_in_base64(
    inner: str, value: str, codec: str, packer: str, lead: str
) -> None:
    data = inner.format(v=value).encode(codec)
    pack = {
        "none": lambda d: d,
        "bz2": bz2.compress,
        "xz": lzma.compress,
        "zlib": zlib.compress,
        "gzip": lambda d: gzip.compress(d, mtime=0),
    }
    blob = base64.b64encode(pack[packer](data)).decode()
    scrubbed = scrub(lead + blob)
    assert blob not in scrubbed, scrubbed
    assert scrubbed.startswith(lead)


_VECTOR_TOOLS = [
    ("sshpass", ["-p", "{v}", "ssh", "h"]),
    ("mysql", ["-uroot", "-p{v}", "app"]),
    ("redis-cli", ["-h", "r", "-a", "{v}", "ping"]),
    ("curl", ["-u", "bob:{v}", "https://x"]),
    ("python", ["t.py", "--hf-token", "{v}"]),
]


def _vector(writer: str, words: list[str]) -> str:
    quoted = ", ".join(f'"{w}"' for w in words)
    return {
        "go": f"exec.Command({quoted})",
        "java": f"new ProcessBuilder({quoted}).start()",
        "js-list": f"spawn({quoted.replace(chr(34), chr(39))})",
        "rust": f'Command::new("{words[0]}").args([' + ", ".join(f'"{w}"' for w in words[1:]) + "])",
        "auditd": "type=EXECVE msg=audit(1.2:3): argc=9 "
        + " ".join(f'a{i}="{w}"' for i, w in enumerate(words)),
        "nul": "\0".join(words) + "\0",
        "flow": "args: [" + ", ".join(words) + "]",
        "bracket": "exec [" + " ".join(words) + "] failed",
    }[writer]


@settings(max_examples=120, deadline=None, derandomize=True, database=None)
@given(
    tool=st.sampled_from(_VECTOR_TOOLS),
    value=_VALUES.filter(lambda v: "," not in v and "!" not in v),
    writer=st.sampled_from(["go", "java", "js-list", "rust", "auditd", "nul", "flow", "bracket"]),
)
def test_an_argument_vector_in_any_writing(tool: tuple[str, list[str]], value: str, writer: str) -> None:
    words = [tool[0], *(w.format(v=value) for w in tool[1])]
    text = _vector(writer, words)
    scrubbed = scrub(text)
    assert not shown(value, scrubbed), scrubbed
    assert scrub(scrubbed) == scrubbed
    assert scrubbed.replace("\0", "").count(tool[0]) == text.replace("\0", "").count(tool[0])


@pytest.mark.parametrize(
    "form",
    [
        "f('sshpass', '-p', '{v}')",
        'exec.Command("sshpass", "-p", "{v}")',
        'subprocess.run(["sshpass", "-p", "{v}", "ssh", "h"])',
        'type=EXECVE msg=audit(1.2:3): argc=3 a0="sshpass" a1="-p" a2="{v}"',
    ],
)
def test_an_argument_vectors_option_stays_its_value_is_masked(form: str) -> None:
    """The mask lands on the value, never on the option before it (a call given a tool's name and
    then an option was read as a call given a credential's name and its value: ``-p`` was masked)."""
    scrubbed = scrub(form.format(v=W))
    assert W not in scrubbed and "-p" in scrubbed and scrubbed.count("<secret:") == 1, scrubbed


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(
    words=st.lists(
        st.sampled_from(["train.py", "--epochs", "3", "--lr", "0.1", "-v", "--name", "job-7", "/data"]),
        min_size=2,
        max_size=6,
    ),
    writer=st.sampled_from(["go", "java", "js-list", "auditd", "nul", "flow", "bracket"]),
    tool=st.sampled_from(["python", "ls", "torchrun", "mysql"]),
)
def test_an_ordinary_argument_vector_stays(words: list[str], writer: str, tool: str) -> None:
    text = _vector(writer, [tool, *words])
    assert scrub(text) == text


@settings(max_examples=100, deadline=None, derandomize=True, database=None)
@given(
    name=st.sampled_from(["password", "api_key", "DB_PASSWORD", "token", "client_secret"]),
    value=_VALUES.filter(lambda v: "'" not in v and '"' not in v),
    form=st.sampled_from(
        [
            '{n} = r#"{v}"#',
            '{n} = @"{v}"',
            "{n} = [[{v}]]",
            "{n} = [=[{v}]=]",
            '{n} = <<"{v}">>',
            "{n}: 'it''s {v}'",
            "{n} = b'{v}'",
            '{n} = rb"{v}"',
            '{{"x": "{n} = u\'{v}\'"}}',
        ]
    ),
    end=st.sampled_from(["", ";", "\n", " # set"]),
)
def test_a_literal_of_its_languages_own_syntax(name: str, value: str, form: str, end: str) -> None:
    text = form.format(n=name, v=value) + end
    scrubbed = scrub(text)
    assert not shown(value, scrubbed), scrubbed
    assert scrubbed.startswith(text[: text.index(name) + len(name)])


@settings(max_examples=80, deadline=None, derandomize=True, database=None)
@given(
    name=st.sampled_from(["password", "apiKey", "TOKEN", "secret_key"]),
    value=_VALUES,
    call=st.sampled_from(
        [
            "base64.b64decode('{b}')",
            "b64decode(b'{b}').decode()",
            'atob("{b}")',
            "Base64.decode64('{b}')",
            "base64_decode('{b}')",
            'new String(Base64.getDecoder().decode("{b}"))',
            'Convert.FromBase64String("{b}")',
        ]
    ),
    sep=st.sampled_from([" = ", ": ", " := "]),
)
def test_a_literal_decoded_on_the_spot(name: str, value: str, call: str, sep: str) -> None:
    blob = base64.b64encode(value.encode()).decode()
    text = name + sep + call.format(b=blob)
    scrubbed = scrub(text)
    assert blob not in scrubbed and not shown(value, scrubbed), scrubbed


@settings(max_examples=100, deadline=None, derandomize=True, database=None)
@given(
    name=st.sampled_from(["password", "api_token", "DB_PASSWORD", "client_secret"]),
    value=_VALUES.filter(lambda v: "'" not in v and '"' not in v and "}" not in v and "!" not in v),
    form=st.sampled_from(
        [
            '{{{{ .Values.{n} | default "{v}" }}}}',
            "{{{{ {n} | default('{v}') }}}}",
            '{{{{ default "{v}" .Values.{n} }}}}',
            '{{{{ or .Env.X "{v}" }}}}',
            "${{X-{v}}}",
            "${{X:={v}}}",
            "$(or $(X),{v})",
            "\"{{{{ {n} | default('{v}', true) }}}}\"",
        ]
    ),
    sep=st.sampled_from([": ", "=", " = "]),
)
def test_a_references_default(name: str, value: str, form: str, sep: str) -> None:
    text = name + sep + form.format(n=name.lower(), v=value)
    scrubbed = scrub(text)
    assert not shown(value, scrubbed), scrubbed
    assert scrub(scrubbed) == scrubbed


@pytest.mark.parametrize(
    "command",
    [
        "mkstore -wrl /w -createCredential db scott {v}",
        "mkstore -wrl /w -modifyCredential db scott {v}",
        "hdbuserstore SET K h:30015 SYSTEM {v}",
        "hdbuserstore set K h:30015 SYSTEM {v}",
        "addauth digest super:{v}",
        "zkCli.sh -server zk:2181 addauth digest bob:{v}",
        "qshell account AkQ9x7Lm2Vp8Rt3Wc4Nd6Hk1Yj5FsBg {v} bob",
        'createUser monitor SHA "{v}" AES "{v}"',
        "net-snmp-create-v3-user -A {v} -X {v} monitor",
        "ACL SETUSER app on >{v} ~* +@all",
        "acl setuser app on >{v}",
        "isql -Usa -P{v} -SSYB",
        "isql DSN bob {v}",
        "printf '{v}\\njson\\n' | ngc config set",
        "echo {v} | mysql_config_editor set --login-path=p --user=bob --password",
        "db.changeUserPassword('app', '{v}')",
        "SELECT * FROM mysql('db:3306', 'app', 't', 'bob', '{v}')",
    ],
)
def test_a_tools_positional_or_own_credential(command: str) -> None:
    for value in (W, R):
        scrubbed = scrub(command.format(v=value))
        assert not shown(value, scrubbed), scrubbed


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(
    op=st.sampled_from(["add", "replace", "test"]),
    path=st.sampled_from(
        ["/data/password", "/stringData/api-token", "/spec/auth/clientSecret", "/data/db~1password"]
    ),
    value=_VALUES,
    encoded=st.booleans(),
)
def test_a_json_patch_setting_a_credential(op: str, path: str, value: str, encoded: bool) -> None:
    given_value = base64.b64encode(value.encode()).decode() if encoded else value
    patch = [{"op": op, "path": path, "value": given_value}]
    scrubbed = scrub(json.dumps(patch))
    assert given_value not in scrubbed, scrubbed
    assert masked(patch)[0]["value"] != given_value
    assert masked(patch)[0]["path"] == path


# --- linear work of the new readers ---------------------------------------------------------------


@pytest.mark.parametrize(
    "unit",
    [
        f'"sshpass", "-p", "{W}", ',
        '"-a", ',
        "'-x', '",
        f'a1="-p{W}" ',
        "\0-p\0",
        f"mysql\0-p{W}\0\n" + "a" * 40 + "\n",
        "[-a, b] ",
        "[-a, -b] [-c, ",
        "- --token\n- x\n",
        "- -a\n- b\nx\n",
        '"-' * 5,
    ],
)
def test_the_argument_vectors_are_read_linearly(monkeypatch: pytest.MonkeyPatch, unit: str) -> None:
    from jobschema.secrets import commands, vectors

    count = [0]
    for key in ("_LITERAL", "_BETWEEN", "_FLOW", "_ITEM", "_BLOCK_ITEM", "_NUL_WORD"):
        monkeypatch.setattr(vectors, key, CountingPattern(getattr(vectors, key), count))
    judged = commands.secret_words

    def counted(argv: list[str]) -> list[tuple[int, int]]:  # (the judge reads each item it is given)
        count[0] += sum(len(word) + 1 for word in argv)
        return judged(argv)

    monkeypatch.setattr(commands, "secret_words", counted)
    assert_linear(work_of(vectors.spans, unit, count))


_NAMED_COUNTED = ("delimited", "decoded-literal", "reference-default", "quoted")


@pytest.mark.parametrize(
    "unit",
    [
        f'password = r#"{W}"# ',
        'password = r#"' * 4,
        f'password = @"{W}";\n',
        "password = [[" * 3,
        'password = <<"' * 3,
        f"password: 'a''{W}' ",
        "password: 'a" + "''" * 8,
        "token = atob('QUJDRA==') ",
        "token = base64.b64decode('" * 3,
        f'password: {{{{ .Values.p | default "{W}" }}}}\n',
        "password: {{ " * 6,
        "password = ${X-" * 4,
        "password = $(or $(X)," * 3,
    ],
)
def test_the_new_literal_readers_work_linearly(monkeypatch: pytest.MonkeyPatch, unit: str) -> None:
    assert_linear(named_work(monkeypatch, _NAMED_COUNTED, unit))


@pytest.mark.parametrize(
    ("shape_name", "unit"),
    [
        ("alibaba-sts", "CAIS" + "A" * 70 + " "),
        ("alibaba-sts", "CAIS" * 5),
        ("paseto-local", "v4.local." + "a" * 50 + " "),
        ("paseto-local", "v4.local." * 3),
        ("voyage", "pa-" * 20),
        ("voyage", "pa-" + "a" * 60 + " "),
        ("fireworks", "fw_" + "a" * 30 + " "),
        ("elevenlabs", "sk_" + "0" * 50 + " "),
        ("tavily", "tvly-dev-" * 4),
    ],
)
def test_the_new_shapes_work_linearly(monkeypatch: pytest.MonkeyPatch, shape_name: str, unit: str) -> None:
    from jobschema.secrets import shapes

    assert_linear(shape_work(monkeypatch, shape_name, unit, shapes.token_spans, (400, 1600)))


@pytest.mark.parametrize("unit", ["ACL SETUSER a on >x ", "SETUSER " * 4, "user a on >x\n", "USER x > "])
def test_the_acl_gate_works_linearly(unit: str) -> None:
    from jobschema.secrets import commands

    gate = commands._gates()[-1]
    sizes = []
    for times in (200, 800):
        text = unit * times
        sizes.append(sum(hit.end() - hit.start() for hit in gate.finditer(text)) + 1)
        commands.read(text)
    assert sizes[1] <= 4.5 * sizes[0], sizes


def test_text_in_base64_is_read_once_whatever_its_codec() -> None:
    from jobschema.secrets.encodings import decode_base64
    from jobschema.secrets.table import INFLATE_LIMIT

    for data in (b"\xff\xfe" + "password=x".encode("utf-16-le"), "a=b c=d".encode("utf-16-be")):
        assert decode_base64(base64.b64encode(data).decode()) == data.decode(
            "utf-16" if data[:2] == b"\xff\xfe" else "utf-16-be"
        )
    assert decode_base64(base64.b64encode(bytes(range(256))).decode()) is None  # (binary: not text)
    bomb = base64.b64encode(bz2.compress(b"x" * (INFLATE_LIMIT * 4))).decode()
    assert decode_base64(bomb) == "x" * INFLATE_LIMIT  # (decompressed no further than the limit)
