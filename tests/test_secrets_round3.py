# ruff: noqa: E501  (the table of forms: one row a line, each token written whole)
"""Credential forms of a third round, by kinds the earlier tables had not tried: nested encodings
(base64 of JSON/YAML/INI/dotenv, percent-encoding twice, JSON in JSON in a YAML block, quoted-printable
with soft line breaks), credential files (``.netrc``, ``.pgpass``, ``.git-credentials``, npmrc, pip.conf,
Maven ``settings.xml``, properties, TOML, XML attributes), connection strings of many schemes,
presigned URLs (S3, GCS, Azure SAS, OSS, BOS, CloudFront, COS, OBS), cookies, webhook URLs (Slack,
Discord, Teams, Feishu/Lark, DingTalk, WeCom, Mattermost, Zapier), Chinese cloud keys, ML tokens in
training jobs' env values and command lines, and the options whose value's meaning depends on another
option (``http -A bearer -a TOKEN``) or has no separator (``curl -u TOKEN:``).

The classes this round found shown, and fixed:

- an auth option read as ``user:password`` whose auth type says token (``http -A bearer -a X``,
  ``xh --auth-type=jwt -a X``), or whose value has no password (``curl -u TOKEN:``): Tool.typed,
  AUTH_PAIR_TYPES, and a random-looking value without its separator is the credential;
- ``-p`` of a command that logs in (``regctl registry login -p X``), and tools' short token options
  (``glab auth login -t``, ``doctl -t``, ``gitlab-runner register -r``, ``rabbitmqadmin -p``),
  ``ftp``'s ``user NAME X`` on standard input, ``az devops login`` reading a PAT, ``curl
  --oauth2-bearer=X``, ``xh --bearer X``, ``curl -b 'JSESSIONID=X'``;
- what ``echo``/``printf``/``tee`` write to a file named like a credential (``> ~/.pgpass``,
  ``> ~/.cache/huggingface/token``), and a ``.pgpass`` line as a quoted string;
- a JSON document that starts inside a text that is none (a log line's tail, a script's line);
- quoted-printable (``=3D``, soft line breaks);
- a webhook URL whose path after its hook segment holds the token (Feishu/Lark, Teams, Mattermost,
  Zapier, any ``/hooks/<generated id>``).

Each form is held to the checks of tests/secret_forms.py, as the earlier table is: masked by
``scrub`` and in every container, in every payload place (flagged by ``redact --check``, gone after
``redact``), absent from every output of validate, diff and timeline, and in random compositions;
near misses stay as they are.
"""

from __future__ import annotations

import copy
import json
import quopri
import re
from typing import Any

import pytest

from jobschema.redact import redact_payload, unmasked_secrets
from jobschema.secrets import masked, scrub
from tests.secret_forms import aihc_with, b64, form_tests, pct, shown
from tests.support import REPO

R = "Qz7vK2mX9pL4wR8tNb3YcD6fHj"  # random-looking, 26 characters
H32 = "9f86d081884c7d659a2feaa0c55ad015"
H40 = "a050fa06411610a12a06bd9ffb1dbd660d6264e7"


#: ``(id, text, secret)``: the secret must not be shown once ``text`` is read.
FORMS: list[tuple[str, str, str]] = []


def _form(name: str, text: str, secret: str) -> None:
    FORMS.append((name, text, secret))


# fmt: off
# nested encodings
_form("b64-json-env", "CONFIG_B64=" + b64(json.dumps({"db": {"password": R}})), R)
_form("b64-yaml-env", "APP_CFG=" + b64(f"db:\n  host: x\n  password: {R}\n"), R)
_form("b64-ini", b64(f"[default]\naws_access_key_id = AKIAIOSFODNN7QZ7VK2M\naws_secret_access_key = {R}x\n"), R)
_form("b64-dotenv", "ENV_FILE=" + b64(f"HOST=x\nAPI_TOKEN={R}\n"), R)
_form("b64-of-b64-json", b64(b64(json.dumps({"token": R}))), R)
_form("pct-twice", "https://x/cb?state=" + pct(pct(f"password={R}")), R)
_form("pct-twice-url-param", "redirect=" + pct("https://x/?" + "access_token=" + R), R)
_form("json-in-json-in-yaml", "config: |\n  " + json.dumps({"inner": json.dumps({"apiKey": R})}) + "\n", R)
_form("shell-continuation-split", f"curl -H 'Authorization: Bearer {R}' \\\n  https://x", R)
_form("continuation-in-word", f"mysql -u bob \\\n  -p{R} db", R)
_form("heredoc-env", f"cat > .env <<EOF\nHOST=db\nDB_PASSWORD={R}\nEOF\n", R)
_form("heredoc-json", f"cat <<'EOF' > cfg.json\n{{\"client_secret\": \"{R}\"}}\nEOF", R)
_form("data-url-env", "data:text/plain;base64," + b64(f"API_KEY={R}\n"), R)
_form("data-url-plain", "data:text/plain," + pct(f"token={R}"), R)
_form("qp-soft-break", "password=3D" + R[:10] + "=\n" + R[10:], R[10:])
_form("qp-json", quopri.encodestring(json.dumps({"password": R}).encode()).decode(), R)
_form("k8s-secret-in-configmap-annot", json.dumps({"kind": "ConfigMap", "metadata": {"annotations": {"kubectl.kubernetes.io/last-applied-configuration": json.dumps({"kind": "Secret", "data": {"tls.key": b64(R + "abc")}})}}}), b64(R + "abc"))
_form("k8s-secret-yaml-stringdata", f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: x\nstringData:\n  config.yaml: |\n    endpoint: x\n    key: {R}\n", R)
_form("k8s-secret-yaml-data-any", f"kind: Secret\ndata:\n  foo: {b64(R)}\n", b64(R))
_form("docker-config-auth", json.dumps({"auths": {"https://index.docker.io/v1/": {"auth": b64("bob:" + R)}}}), b64("bob:" + R))
_form("netrc-multiline", f"machine api.x.com\n  login bob\n  password {R}\n", R)
_form("netrc-default", f"default login anonymous password {R}", R)
_form("pgpass-line", f"db.x.com:5432:*:app:{R}", R)
_form("git-credentials", f"https://bob:{R}@github.com", R)
_form("git-credentials-token", f"https://x-access-token:ghs_{R}abcdefghij@github.com", R)
_form("aws-ini-session", f"[profile x]\naws_session_token = {R}{R}\n", R)
_form("npmrc-authtoken", f"//registry.npmjs.org/:_authToken={R}", R)
_form("npmrc-password", f"//npm.x.com/:_password={b64(R)}", b64(R))
_form("npmrc-auth", f"_auth={b64('bob:'+R)}", b64("bob:" + R))
_form("pip-conf", f"[global]\nindex-url = https://bob:{R}@pypi.x.com/simple\n", R)
_form("pip-extra-index", f"extra-index-url=https://__token__:{R}@x/simple", R)
_form("maven-settings", f"<settings><servers><server><id>x</id><username>bob</username><password>{R}</password></server></servers></settings>", R)
_form("maven-privatekey-pass", f"<server><passphrase>{R}</passphrase></server>", R)
_form("java-properties", f"spring.datasource.password={R}\n", R)
_form("java-properties-colon", f"db.pass : {R}\n", R)
_form("java-properties-escaped", f"app.secret\\ key={R}", R)
_form("toml-table", f"[database]\npassword = \"{R}\"\n", R)
_form("toml-inline", f"creds = {{ user = \"bob\", token = \"{R}\" }}", R)
_form("xml-attr", f'<db user="bob" password="{R}"/>', R)
_form("xml-attr-single", f"<connection pwd='{R}' />", R)
_form("xml-attr-apikey", f'<add key="ApiKey" value="{R}" />', R)
_form("xml-attr-escaped-json", json.dumps({"x": f'<db password="{R}"/>'}), R)
# connection strings
_form("amqp", f"amqp://bob:{R}@rabbit:5672/vhost", R)
_form("amqps", f"amqps://bob:{R}@rabbit/vh", R)
_form("kafka-jaas", f'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="bob" password="{R}";', R)
_form("kafka-jaas-scram", f"org.apache.kafka.common.security.scram.ScramLoginModule required username='bob' password='{R}';", R)
_form("kafka-jaas-env", f"KAFKA_OPTS=-Dsasl.jaas.config=PlainLoginModule required username=bob password={R};", R)
_form("mongodb-srv", f"mongodb+srv://bob:{R}@cluster0.x.mongodb.net/db?retryWrites=true", R)
_form("redis-acl", f"redis://bob:{R}@redis:6379/0", R)
_form("rediss-acl", f"rediss://default:{R}@x.upstash.io:6379", R)
_form("ldap-bind", f"ldaps://cn=admin,dc=x,dc=com:{R}@ldap.x.com", R)
_form("smb", f"smb://WORKGROUP;bob:{R}@fileserver/share", R)
_form("sftp", f"sftp://bob:{R}@host:22/path", R)
_form("jdbc-sqlserver", f"jdbc:sqlserver://db:1433;databaseName=x;user=bob;password={R};encrypt=true", R)
_form("jdbc-sqlserver-pwd-case", f"jdbc:sqlserver://db;Password={R}", R)
_form("jdbc-postgres-query", f"jdbc:postgresql://db/x?user=bob&password={R}", R)
_form("clickhouse-url", f"clickhouse://bob:{R}@ch:9000/db", R)
_form("snowflake-url", f"snowflake://bob:{R}@acct/db", R)
_form("mqtt-url", f"mqtt://bob:{R}@broker:1883", R)
_form("nats-token-url", f"nats://{R}@nats:4222", R)
_form("ftp-url", f"ftp://bob:{R}@ftp.x.com/file", R)
_form("http-token-userinfo", f"https://{R}@github.com/org/repo.git", R)
_form("http-token-userinfo-oauth2", f"https://oauth2:{R}@gitlab.com/x.git", R)
# presigned
_form("s3-presign", f"https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7QZ7VK2M%2F20240101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20240101T000000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature={H32}{H32}", H32 + H32)
_form("s3-presign-token", f"https://b.s3.amazonaws.com/k?X-Amz-Security-Token={R}{R}%2F{R}&X-Amz-Signature=x", R + R)
_form("gcs-signed", f"https://storage.googleapis.com/b/o?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=x%40p.iam.gserviceaccount.com%2F20240101&X-Goog-Signature={H32}{H32}", H32 + H32)
_form("gcs-v2-signed", f"https://storage.googleapis.com/b/o?GoogleAccessId=x@p.iam.gserviceaccount.com&Expires=1700000000&Signature={pct(R + '+/' + R + '==')}", R)
_form("azure-sas", f"https://acct.blob.core.windows.net/c/b?sv=2022-11-02&ss=b&srt=o&sp=r&se=2024-01-01&st=2023-01-01&spr=https&sig={pct(R + '+' + R + '=')}", R)
_form("aliyun-oss-signed", f"https://b.oss-cn-hangzhou.aliyuncs.com/o?OSSAccessKeyId=LTAI5tHx3Jm8Wq2Zp6Vd&Expires=1700000000&Signature={pct(R + '=')}", R)
_form("aliyun-oss-v4", f"https://b.oss-cn-hangzhou.aliyuncs.com/o?x-oss-signature-version=OSS4-HMAC-SHA256&x-oss-credential=LTAI5t%2F20240101&x-oss-signature={H32}{H32}", H32 + H32)
_form("baidu-bos-auth-query", f"https://b.bj.bcebos.com/o?authorization=bce-auth-v1%2F{H32}%2F2024-01-01T00%3A00%3A00Z%2F3600%2Fhost%2F{H32[::-1]}{H32}", H32[::-1] + H32)
_form("cloudfront", f"https://d111.cloudfront.net/x.mp4?Expires=1700000000&Signature={R}~{R}__&Key-Pair-Id=APKAEIBAERJR2EXAMPLE", R + "~" + R)
_form("cloudfront-policy", f"https://d111.cloudfront.net/x?Policy=eyJTdGF0ZW1lbnQiOlt7IlJlc291cmNlIjoiaHR0cHM6Ly9k&Signature={R}{R}&Key-Pair-Id=K2JCJMDEHXQW5F", R + R)
_form("tencent-cos-signed", f"https://b.cos.ap-guangzhou.myqcloud.com/o?q-sign-algorithm=sha1&q-ak=AKIDx&q-signature={H40}", H40)
_form("huawei-obs-signed", f"https://b.obs.cn-north-4.myhuaweicloud.com/o?AccessKeyId=HPUAXXXXXXXXXXXX&Expires=1700000000&Signature={pct(R + '=')}", R)
# cookies
_form("cookie-header", f"Cookie: _ga=GA1.2.3; connect.sid=s%3A{R}.{R[::-1]}", R)
_form("set-cookie-jwt-like", f"Set-Cookie: __Host-next-auth.session-token={R}{R}; Path=/; HttpOnly", R + R)
_form("cookie-json", json.dumps({"cookies": [{"name": "remember_user_token", "value": R}]}), R)
_form("cookie-curl-b", f"curl -b 'JSESSIONID={R}; other=1' x", R)
_form("cookie-jar-netscape", f"# Netscape HTTP Cookie File\n.x.com\tTRUE\t/\tTRUE\t1700000000\tsessionid\t{R}\n", R)
# webhooks
_form("slack-webhook", f"https://hooks.slack.com/services/T00000000/B00000000/{R[:24]}", R[:24])
_form("discord-webhook", f"https://discord.com/api/webhooks/123456789012345678/{R}{R}-{R[:16]}", R + R)
_form("teams-webhook", f"https://x.webhook.office.com/webhookb2/{'6dce772a-33c1-473b-b21b-ab2cafcecd48'}@{'6dce772a-33c1-473b-b21b-ab2cafcecd49'}/IncomingWebhook/{H32}/{'6dce772a-33c1-473b-b21b-ab2cafcecd50'}/V2{R}", H32)
_form("feishu-webhook", "https://open.feishu.cn/open-apis/bot/v2/hook/0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0", "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0")
_form("lark-webhook", "https://open.larksuite.com/open-apis/bot/v2/hook/1a2b3c4d-5e6f-4071-8293-a4b5c6d7e8f9", "1a2b3c4d-5e6f-4071-8293-a4b5c6d7e8f9")
_form("dingtalk-webhook", f"https://oapi.dingtalk.com/robot/send?access_token={H32}{H32}", H32 + H32)
_form("dingtalk-secret", f"DINGTALK_SECRET=SEC{H32}{H32}", "SEC" + H32)
_form("wecom-webhook", "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0", "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0")
_form("mattermost-webhook", f"https://chat.x.com/hooks/{R.lower()[:26]}", R.lower()[:26])
_form("google-chat-webhook", f"https://chat.googleapis.com/v1/spaces/AAAA/messages?key=AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI&token={R}%3D", R)
_form("zapier-hook", f"https://hooks.zapier.com/hooks/catch/123456/{R.lower()[:8]}/", R.lower()[:8])
# chinese cloud keys
_form("baidu-ak-sk-env", f"BCE_AK={H32} BCE_SK={H32[::-1]}", H32[::-1])
_form("baidu-ak-sk-yaml", f"bos:\n  ak: {H32}\n  sk: {H32[::-1]}\n", H32[::-1])
_form("baidu-sk-flag", f"--bce-secret-access-key {H32[::-1]}", H32[::-1])
_form("baidu-credentials-ini", f"[Defaults]\nAk = {H32}\nSk = {H32[::-1]}\n", H32[::-1])
_form("aliyun-ltai-pair-json", json.dumps({"AccessKeyId": "LTAI5tHx3Jm8Wq2Zp6Vd", "AccessKeySecret": R[:30]}), R[:30])
_form("aliyun-ltai-space", f"LTAI5tHx3Jm8Wq2Zp6Vd {R}abcd", R + "abcd")
_form("tencent-akid-json", json.dumps({"SecretId": "AKIDz8krbsJ5yKBZQpn74WFkmLPx3abcdefg", "SecretKey": R[:32]}), R[:32])
_form("tencent-env", f"TENCENTCLOUD_SECRET_KEY={R[:32]}", R[:32])
_form("huawei-env", f"HUAWEICLOUD_SDK_SK={R}{R[:14]}", R)
_form("huawei-obs-ini", f"[obs]\nak=HPUAXXXXXXXXXXXXXXXX\nsk={R}{R[:14]}\n", R)
_form("volc-env", f"VOLC_SECRETKEY={b64(R+R)}", b64(R + R)[:20])
_form("qiniu", f"QINIU_SECRET_KEY={R}{R[:14]}", R)
# ML tokens
_form("hf-env", f"HUGGING_FACE_HUB_TOKEN=hf_{R}abcdefghi", f"hf_{R}")
_form("hf-login", f"huggingface-cli login --token hf_{R}abcdefghi --add-to-git-credential", f"hf_{R}")
_form("hf-login-noprefix", f"huggingface-cli login --token {R}", R)
_form("wandb-env", f"WANDB_API_KEY={H40}", H40)
_form("wandb-login", f"wandb login {H40}", H40)
_form("wandb-login-relogin", f"wandb login --relogin {H40}", H40)
_form("wandb-netrc", f"machine api.wandb.ai\n  login user\n  password {H40}\n", H40)
_form("openai-env", f"OPENAI_API_KEY=sk-proj-{R}{R}T3BlbkFJ{R}", f"sk-proj-{R}")
_form("anthropic-env", f"ANTHROPIC_API_KEY=sk-ant-api03-{R}{R}{R}-AA", f"sk-ant-api03-{R}")
_form("replicate-env", f"REPLICATE_API_TOKEN=r8_{R}{R[:11]}", f"r8_{R}")
_form("torchrun-args", f"torchrun --nproc_per_node 8 train.py --hub_token hf_{R}abcdefghi --report_to wandb", f"hf_{R}")
_form("deepspeed-args", f"deepspeed --num_gpus 8 train.py --deepspeed ds.json --hf_token={R}", R)
_form("accelerate-env-args", f"accelerate launch --config_file x.yaml train.py --wandb_api_key {H40}", H40)
_form("python-m-args", f"python -m llamafactory.cli train --hub_token {R}", R)
_form("modelscope-token", f"modelscope login --token {R}", R)
_form("ms-sdk-token", f"MODELSCOPE_API_TOKEN={R}", R)
_form("comet", f"COMET_API_KEY={R}", R)
_form("neptune", f"NEPTUNE_API_TOKEN={b64(json.dumps({'api_address': 'https://app.neptune.ai', 'api_key': R}))}", b64(json.dumps({'api_address': 'https://app.neptune.ai', 'api_key': R}))[20:60])
_form("clearml", f"CLEARML_API_SECRET_KEY={R}", R)
_form("mlflow-env", f"MLFLOW_TRACKING_PASSWORD={R}", R)
_form("kaggle-env", f"KAGGLE_KEY={H32}", H32)
_form("ngc-env", f"NGC_API_KEY={R}{R}", R + R)
# auth-type class members
_form("httpie-bearer", f"http -A bearer -a {R} https://x", R)
_form("httpie-bearer-attached", f"http -Abearer -a {R} https://x", R)
_form("httpie-jwt", f"http --auth-type=jwt --auth {R} https://x", R)
_form("httpie-token-plugin", f"https -A token -a {R} x", R)
_form("xh-bearer-a", f"xh -A bearer -a {R} https://x", R)
_form("httpie-hmac", f"http -A hmac -a {R}:{R[::-1]} x", R)
_form("curl-user-token-colon", f"curl -u {R}: https://api.x.com", R)
_form("curl-user-token-only", f"curl --user {R} https://api.x.com", R)
_form("curl-oauth2-eq", f"curl --oauth2-bearer={R} x", R)
_form("bearer-env", f"BEARER={R}", R)
_form("regctl-login", f"regctl registry login r.io -u bob -p {R}", R)
_form("argocd-login", f"argocd login cd.x.com --username admin -p {R}", R)
_form("glab-t", f"glab auth login --hostname x -t {R}", R)
_form("doctl-t", f"doctl -t {R} compute droplet list", R)
_form("gitlab-runner-r", f"gitlab-runner register --non-interactive -r {R} --url https://x", R)
_form("rabbitmqadmin-p", f"rabbitmqadmin -u bob -p {R} list queues", R)
_form("ftp-heredoc", f"ftp -n host <<EOF\nuser bob {R}\nbin\nput x\nEOF\n", R)
_form("az-devops-stdin", f"echo {R} | az devops login --organization https://dev.azure.com/x", R)

# classes found in this round (more members)
_SEC = json.dumps({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "x"}, "data": {"tls.key": b64(R + "abc")}})
_form("log-line-json-secret", f"2024-01-01T00:00:00Z INFO applying {_SEC}", b64(R + "abc"))
_form("script-line-json-env", "#!/bin/sh\nset -e\n" + json.dumps([{"name": "API_TOKEN", "value": R}]) + "\n", R)
_form("log-json-pair-tail", "level=error msg=\"create failed\" body=" + json.dumps({"env": [{"name": "DB_PASSWORD", "value": R}]}), R)
_form("echo-pgpass", f"echo 'db:5432:*:app:{R}' > ~/.pgpass && chmod 600 ~/.pgpass", R)
_form("echo-hf-token-file", f"mkdir -p ~/.cache/huggingface && echo {R} > ~/.cache/huggingface/token", R)
_form("tee-token-file", f"echo -n {R} | tee /run/secrets/api_key.txt > /dev/null", R)
_form("printf-netrc-file", f"printf '%s' {R} >> ~/.config/wandb/password", R)
_form("echo-attached-redirect", f"echo {R}>~/.token", R)
_form("qp-mail-token", "Content-Transfer-Encoding: quoted-printable\n\napi_token=3D" + R[:12] + "=\n" + R[12:] + "\n", R[12:])
_form("qp-json-value", json.dumps({"mail": "token=3D" + R[:10] + "=\n" + R[10:]}), R[10:])
_form("webhook-feishu-cmd", "curl -X POST -H 'Content-Type: application/json' -d '{\"msg_type\":\"text\"}' https://open.feishu.cn/open-apis/bot/v2/hook/5a1b9c3d-8e7f-4a2b-9c1d-0e2f3a4b5c6d", "5a1b9c3d-8e7f-4a2b-9c1d-0e2f3a4b5c6d")
_form("webhook-teams-env", f"TEAMS_URL=https://acme.webhook.office.com/webhookb2/x@y/IncomingWebhook/{H32}/6dce772a-33c1-473b-b21b-ab2cafcecd50", H32)
_form("webhook-gitlab-generic", f"https://ci.x.com/project/hooks/{R}", R)
_form("httpie-json-args", json.dumps(["http", "--auth-type", "bearer", "--auth", R, "https://x"]), R)
_form("curl-user-pat-colon-json", json.dumps(["curl", "-u", f"{R}:", "https://api.github.com/user"]), R)
_form("xh-jwt-type", f"xh --auth-type=jwt -a {R} x", R)
# second batch: commands, calls, URLs, prose of more tools and clouds
_form("cont-in-word", f"python train.py --hf-token {R[:10]}\\\n{R[10:]} --epochs 3", R[10:])
_form("cont-in-word2", f"curl -u bob:{R[:10]}\\\n{R[10:]} https://x", R[10:])
_form("docker-build-arg", f"docker build --build-arg HF_TOKEN={R} .", R)
_form("docker-build-secret", f"docker build --secret id=hf,env=HF_TOKEN --build-arg GH_PAT={R} .", R)
_form("jarsigner", f"jarsigner -keystore k.jks -storepass {R} -keypass {R[::-1]} app.jar alias", R[::-1])
_form("rclone-config-create", f"rclone config create s3r s3 provider AWS access_key_id AKIAIOSFODNN7QZ7VK2M secret_access_key {R}x", R)
_form("rclone-config-create-eq", f"rclone config create s3r s3 access_key_id=AKIAX secret_access_key={R}", R)
_form("mc-admin-user-add", f"mc admin user add myminio bob {R}", R)
_form("aria2c-rpc", f"aria2c --enable-rpc --rpc-secret={R}", R)
_form("aria2c-rpc-space", f"aria2c --rpc-secret {R}", R)
_form("usermod-p", f"usermod -p '$6$abc$' bob; useradd -p {R} bob", R)
_form("win-set-quoted", f'set "API_KEY={R}"', R)
_form("hf-login-positional", f'python -c "from huggingface_hub import login; login(\'hf_{R}abcdefghi\')"', f"hf_{R}")
_form("hf-login-positional-noprefix", f"huggingface_hub.login('{R}')", R)
_form("redis-py", f"redis.Redis(host='r', password='{R}')", R)
_form("psycopg-dsn", f'psycopg2.connect("dbname=x user=bob password={R} host=db")', R)
_form("slack-workflow", f"https://hooks.slack.com/workflows/T0123/A0456/412345678901234567/{R}", R)
_form("slack-triggers", f"https://hooks.slack.com/triggers/T0123/412345678901/{H32}", H32)
_form("dingtalk-sign", f"https://oapi.dingtalk.com/robot/send?access_token=x&timestamp=1700000000000&sign={R}%3D", R)
_form("aliyun-cdn-auth-key", f"https://cdn.x.com/v.mp4?auth_key=1700000000-0-0-{H32}", H32)
_form("private-token-header", f"curl -H 'PRIVATE-TOKEN: {R}' https://gitlab.x.com/api/v4/projects", R)
_form("tracker-token", f"curl -H 'X-TrackerToken: {R}' x", R)
_form("api-token-header", f"curl -H 'Api-Token: {R}' x", R)
_form("js-cookie", f'document.cookie = "session={R}; path=/"', R)
_form("cn-prose-ak", f"阿里云AccessKey Secret：{R}abcd", R)
_form("cn-prose-aksk", f"百度AK/SK: {H32}/{H32[::-1]}", H32[::-1])
_form("cn-prose-token", f"令牌是 {R}", R)
_form("wget-post-data", f"wget --post-data 'user=bob&password={R}' x", R)
_form("kubectl-docker-registry", f"kubectl create secret docker-registry r --docker-server=x --docker-username=bob --docker-password={R}", R)
_form("helm-set", f"helm upgrade x --set global.postgresql.auth.postgresPassword={R}", R)
_form("helm-set-multi", f"helm upgrade x --set a=1,redis.password={R},b=2", R)
_form("terraform-var", f"terraform apply -var 'db_password={R}'", R)
_form("ansible-vault", f"ansible-vault decrypt --vault-password-file x; echo {R} > .vault_pass", R)
_form("export-no-quote-space", f"export OPENAI_API_KEY=sk-{R}{R}", f"sk-{R}")
_form("gh-pat-in-git-remote", f"git remote add origin https://bob:ghp_{R}abcdefghij@github.com/o/r.git", f"ghp_{R}")
_form("s3-url-keys", f"s3://AKIAIOSFODNN7QZ7VK2M:{R}abcdefghijklmn@bucket/key", R)
_form("oss-url-keys", f"oss://LTAI5tHx3Jm8Wq2Zp6Vd:{R}abcd@bucket.oss-cn-hangzhou.aliyuncs.com/x", R)
_form("bos-cli-config", f"bcecmd --conf-path /x configure --ak {H32} --sk {H32[::-1]}", H32[::-1])
_form("ossutil-config", f"ossutil config -e oss-cn-hangzhou.aliyuncs.com -i LTAI5tHx3Jm8Wq2Zp6Vd -k {R}abcd", R)
_form("coscmd-config", f"coscmd config -a AKIDz8krbsJ5yKBZQpn74WFkmLPx3abcdefg -s {R}abcdef -b b -r ap-guangzhou", R)
_form("obsutil-config", f"obsutil config -i=HPUAXXXXXXXXXXXX -k={R}{R[:14]} -e=obs.cn-north-4.myhuaweicloud.com", R)
_form("tccli-configure", f"tccli configure set secretKey {R}abcdef", R)
_form("aliyun-cli", f"aliyun configure set --profile x --mode AK --access-key-id LTAI5tHx3Jm8Wq2Zp6Vd --access-key-secret {R}abcd", R)
_form("volc-cli", f"ve configure set --secret-key {R}", R)
_form("sas-token-env", f"AZURE_STORAGE_SAS_TOKEN='?sv=2022-11-02&ss=b&sig={R}%3D'", R)
_form("azcopy-url", f"azcopy copy x 'https://a.blob.core.windows.net/c?sv=2022-11-02&se=2024&sp=rw&sig={R}%2B{R[::-1]}%3D'", R)
_form("gsutil-signurl-out", f"URL: https://storage.googleapis.com/b/o?x-goog-signature={H32}{H32}&x-goog-algorithm=GOOG4-RSA-SHA256", H32 + H32)
_form("yaml-env-list-k8s", f"env:\n- name: HF_TOKEN\n  value: hf_{R}abcdefghi\n- name: X\n  value: y\n", f"hf_{R}")
_form("k8s-args-yaml", f"args: [\"--hub-token\", \"{R}\"]", R)
_form("json-args-eq", json.dumps({"args": [f"--wandb_api_key={R}"]}), R)
_form("torchrun-env-prefix", f"HF_TOKEN={R} torchrun --nproc_per_node 8 train.py", R)
_form("deepspeed-launcher-env", f"deepspeed --launcher_args '-x HF_TOKEN={R}' train.py", R)
_form("mpirun-x", f"mpirun -np 8 -x WANDB_API_KEY={R} python train.py", R)
_form("srun-export", f"srun --export=ALL,HF_TOKEN={R} python x.py", R)
_form("accelerate-env-file", f"accelerate launch --env HF_TOKEN={R} x.py", R)
_form("modelscope-sdk", f"from modelscope.hub.api import HubApi; HubApi().login('{R}')", R)
_form("user-password-pair", f"user/password: bob/{R}", R)
_form("cn-account-password-pair", f"账号/密码：bob/{R}", R)
_form("aksk-pair-line", f"  AK/SK: {H32}/{H32[::-1]}", H32[::-1])
# third batch: argument lists in code, service configs, maps of hosts to tokens, texts in texts
_form("py-list-mysql", f"subprocess.run(['mysql', '-h', 'db', '-p{R}'])", R)
_form("py-list-httpie", f"subprocess.run(['http', '-A', 'bearer', '-a', '{R}', 'https://x'])", R)
_form("py-list-curl-u", f'subprocess.check_call(["curl", "-u", "bob:{R}", url])', R)
_form("os-system", f'os.system("mysql -u bob -p{R} -e \'select 1\'")', R)
_form("systemd-env", f'Environment="API_KEY={R}"', R)
_form("systemd-env-bare", f"Environment=DB_PASSWORD={R}", R)
_form("systemd-env-multi", f'Environment="A=1" "HF_TOKEN={R}"', R)
_form("supervisor-env", f'environment=A="1",API_TOKEN="{R}"', R)
_form("maven-master", f"<settingsSecurity><master>{{{b64(R)}}}</master></settingsSecurity>", b64(R))
_form("composer-github-oauth", json.dumps({"github-oauth": {"github.com": f"ghp_{R}abcdefghij"}}), f"ghp_{R}")
_form("composer-github-oauth-plain", json.dumps({"github-oauth": {"github.com": R}}), R)
_form("composer-http-basic", json.dumps({"http-basic": {"repo.x.com": {"username": "bob", "password": R}}}), R)
_form("composer-bearer", json.dumps({"bearer": {"repo.x.com": R}}), R)
_form("composer-gitlab-token", json.dumps({"gitlab-token": {"gitlab.com": R}}), R)
_form("nslcd-bindpw", f"binddn cn=admin,dc=x\nbindpw {R}\n", R)
_form("slapd-rootpw", f"rootdn cn=admin,dc=x\nrootpw {R}\n", R)
_form("redis-acl-user", f"user bob on >{R} ~* +@all", R)
_form("redis-acl-setuser", f"redis-cli ACL SETUSER bob on >{R} ~* +@all", R)
_form("sentinel-auth-pass", f"sentinel auth-pass mymaster {R}", R)
_form("zk-superdigest", f"-Dzookeeper.DigestAuthenticationProvider.superDigest=super:{R}=", R)
_form("haproxy-stats-auth", f"listen stats\n  stats auth admin:{R}\n", R)
_form("traefik-basicauth", "traefik.http.middlewares.a.basicauth.users=bob:$$apr1$$H6uskkkW$$IgXLP6ewTrSuBkTrqE8wj/", "IgXLP6ewTrSuBkTrqE8wj/")
_form("caddy-basicauth", f"basicauth /* {{\n  bob JDJhJDE0JE91S1FrN0Z0VEsyWmhDcDNsNzhjSWVNNWxGT3F{R}\n}}", R)
_form("jupyter-token-py", f"c.ServerApp.token = '{R}'", R)
_form("vault-read-table", f"Key                Value\n---                -----\nsecret_id          {R}\nsecret_id_ttl      0s\n", R)
_form("vault-token-table", f"Key                  Value\n---                  -----\ntoken                s.{R}\ntoken_accessor       x\n", R)
_form("b64-kubeconfig", "KUBECONFIG_B64=" + b64(f"apiVersion: v1\nkind: Config\nusers:\n- name: x\n  user:\n    token: {R}\n"), R)
_form("b64-netrc", b64(f"machine api.x.com login bob password {R}\n"), R)
_form("pct-json-env", "CFG=" + "%7B%22password%22%3A%22" + R + "%22%7D", R)
_form("yaml-json-in-block-env", f"env:\n  - name: CONFIG\n    value: |\n      {{\"db\": {{\"pass\": \"{R}\"}}}}\n", R)
_form("json-yaml-string", json.dumps({"values.yaml": f"redis:\n  auth:\n    password: {R}\n"}), R)
_form("ini-in-json", json.dumps({"credentials": f"[default]\naws_secret_access_key = {R}x\n"}), R)
_form("toml-in-yaml", f"files:\n  config.toml: |\n    [auth]\n    api_key = \"{R}\"\n", R)
_form("xml-in-json-attr", json.dumps({"settings": f'<server id="x" password="{R}"/>'}), R)
_form("props-in-b64", b64(f"spring.datasource.password={R}\n"), R)
_form("env-in-heredoc-in-json", json.dumps({"script": f"cat > .env <<EOF\nOPENAI_API_KEY=sk-{R}{R}\nEOF"}), f"sk-{R}")
_form("jaas-in-json", json.dumps({"KAFKA_SASL_JAAS_CONFIG": f"org.apache.kafka.common.security.plain.PlainLoginModule required username=\"bob\" password=\"{R}\";"}), R)
_form("jaas-in-props-b64", b64(f"sasl.jaas.config=PlainLoginModule required username=\"bob\" password=\"{R}\";"), R)
_form("double-b64-env", "X=" + b64(b64(f"DB_PASSWORD={R}")), R)
_form("url-in-url", "https://x/login?next=" + "https%3A%2F%2Fbob%3A" + R + "%40db.x.com%2F", R)
_form("hex-env", "SECRET_HEX=" + f"password={R}".encode().hex(), R.encode().hex())
_form("unicode-escape-yaml", 'password: "\\u0051z7vK2mX9pL4wR8tNb3YcD6fHj"', "z7vK2mX9pL4wR8tNb3YcD6fHj")
_form("split-concat-shell", f'TOKEN="{R[:13]}""{R[13:]}"; curl -H "Authorization: Bearer $TOKEN" x', R[:13])
_form("git-extraheader-b64", f"git -c http.extraHeader=\"Authorization: Basic {b64('x-access-token:' + R)}\" clone x", b64("x-access-token:" + R))
_form("git-config-extraheader", f"git config --global http.https://github.com/.extraheader \"AUTHORIZATION: bearer {R}\"", R)
_form("pip-install-url", f"pip install git+https://oauth2:{R}@gitlab.x.com/g/p.git", R)
_form("uv-index", f"UV_INDEX_PRIVATE_PASSWORD={R}", R)
_form("poetry-env", f"POETRY_HTTP_BASIC_PRIVATE_PASSWORD={R}", R)
_form("npm-env", f"NPM_CONFIG__AUTH={b64('bob:'+R)}", b64("bob:" + R))
_form("npm-token-env", f"NPM_CONFIG_//registry.npmjs.org/:_authToken={R}", R)
_form("yaml-line-in-json-string", json.dumps({"script": f'password: "{R}"'}), R)
_form("header-line-in-json-string", json.dumps({"notes": f'X-Auth-Token: "{R}"', "n": 1}), R)
_form("ini-line-in-json-string", json.dumps({"cfg": f"secret_key = '{R}'"}), R)
_form("args-line-in-a-script", "#!/bin/bash\nset -e\nexport NCCL_DEBUG=INFO\nargs: [\"--hub-token\", \"" + R + "\"]\npython train.py\n", R)
_form("tenth-list-in-a-text", "\n".join(f'step{i}: ["--x{i}", "y"]' for i in range(10)) + f'\nrun: ["mysql", "-h", "db", "-p{R}"]\n', R)
# fmt: on
#: Forms still shown, and why: a fix moves a row out of here.
KNOWN_GAPS = {
    "maven-master": "settings-security.xml's ``<master>{…}</master>``: ``master`` alone names no credential",
    "zk-superdigest": "ZooKeeper's ``superDigest=super:HASH``: a digest's name is no credential's",
    "caddy-basicauth": "a Caddyfile ``basicauth`` block's ``user HASH`` lines: no name beside the hash",
    "java-properties-escaped": "a properties key with an escaped space (``app.secret\\ key=X``): the name reader stops at the backslash",
    "bearer-env": "``bearer`` as a name would mask ``Bearer authentication`` (prose); curl's and xh's options are read instead",
}
#: Forms masked as they are but shown inside one container (tests/test_secrets_compose.py), found when
#: this table was given the checks of tests/secret_forms.py; a fix moves a row out of here.
CONTAINER_GAPS = {
    ("hf-login-positional-noprefix", "bash-c"): "a login call's token inside ``bash -c '…'``",
    ("k8s-secret-yaml-stringdata", "html"): "a Secret manifest's YAML as HTML-escaped text",
    ("k8s-secret-yaml-data-any", "html"): "a Secret manifest's YAML as HTML-escaped text",
    ("pgpass-line", "yaml-block"): "a .pgpass line as a YAML block scalar's line",
}
MASKED = [form for form in FORMS if form[0] not in KNOWN_GAPS]
IDS = [form[0] for form in MASKED]


# --- what must stay as it is ------------------------------------------------------------------------

#: Near misses of the rules this round added.
CLEAN = [
    "http -a bob https://x",
    "http -A digest -a bob https://x",
    "http -A basic -a bob:$PASSWORD https://x",
    "curl -u bob: https://x",
    "curl -u bob https://x",
    "curl -u alice.smith@example.com https://x",
    "curl -b cookies.txt -c cookies.txt https://x",
    "curl -b /tmp/jar https://x",
    "ssh -p 22 login@bastion",
    "docker run -p 8080:80 nginx",
    "az login --service-principal -u app -p $AZ_SECRET -t 72f988bf-86f1-41af-91ab-2d7cd011db47",
    "regctl registry login r.io -u bob -p $REG_PASSWORD",
    "glab auth login --stdin < token.txt",
    "ftp -n host <<EOF\nuser anonymous\nbin\nEOF\n",
    "echo 3 > /proc/sys/vm/drop_caches",
    "echo hello > out.txt",
    "echo $HF_TOKEN > ~/.cache/huggingface/token",
    "echo done >> /var/log/train.log",
    "echo 10:30:00:12:45 -x",
    "10:30:00:12:45",
    "elapsed 01:02:03:04:05\nnext",
    "CHECKSUM=YWJjZA==\nAIRFLOW__CORE__EXECUTOR=CeleryExecutor\n",  # (``=`` ending a line: no quoted-printable)
    "FOO=\nBAR=1",
    "Bearer authentication",
    'INFO {not json} [x] {"a": 1}',
    'result {"tokens": 5, "key": "abc"}',
    "https://api.github.com/repos/o/r/hooks/12345678",
    "https://x.example.com/hooks/deploy-prod",
    "https://github.com/o/r/blob/main/src/hooks/useAuth2.ts",
    "see .git/hooks/pre-commit",
    "https://github.com/o/r/tree/main/hooks/v1alpha2",
    "epochs=20 lr=3e-4 warmup=100",
    "ftp.login('anonymous')",
    "client.login('bob')",
    "mc admin user add myminio bob",
    "useradd -m -s /bin/bash bob",
    "https://hooks.example.com/status",
    "input/output: a/b",
    "read/write: yes/no",
    "TCP/IP: on/off",
    "note: user/password: see the wiki",
    "user default on nopass ~* +@all",
    "ACL SETUSER bob on nopass",
    "the user said > 3 things",
    "subprocess.run(['ls', '-la'])",
    "['a', 'b']",
    '{"hosts": {"github.com": "x"}, "tokens": {"a": "b"}}',
]

globals().update(form_tests(FORMS, KNOWN_GAPS, at_least=150, container_gaps=CONTAINER_GAPS, clean=CLEAN))


def test_quoted_printable_is_read() -> None:
    text = quopri.encodestring(f"api_token={R}{R}{R}\n".encode()).decode()
    assert "=\n" in text and "=3D" in text  # soft breaks and an encoded ``=``
    assert not shown(R, scrub(text))


@pytest.mark.parametrize(
    "command",
    [
        f"mysql -p{R}",
        f"sentinel auth-pass m {R}",
        f"user bob on >{R} ~* +@all",
        f"echo {R} > ~/.token",
        f"sshpass -p {R} ssh host",
        f"bash -c 'mysql -p{R}'",
    ],
)
@pytest.mark.parametrize("wrap", [lambda c: {"s": c}, lambda c: [c], lambda c: {"a": [c], "b": {"c": c}}])
def test_a_command_in_a_json_string_is_masked_and_the_json_stays_json(command: str, wrap: Any) -> None:
    """The brackets after a quoted command's last word are the document's, not the word's: before,
    ``{"s": "mysql -pX"}`` was scrubbed to ``{"s": "mysql -p<secret>"<secret>`` (the ``}`` masked)."""
    text = json.dumps(wrap(command))
    scrubbed = scrub(text)
    assert R not in scrubbed
    json.loads(scrubbed)  # still JSON
    assert re.sub(r"<secret:[0-9a-f]{8}>", R, scrubbed) == text


RAW_REQUEST = json.loads((REPO / "schemas/examples/aihc-raw-request/seed.json").read_text("utf-8"))


@pytest.mark.parametrize(("name", "text", "secret"), MASKED, ids=IDS)
def test_every_form_in_an_aihc_raw_request_and_in_one_embedded_as_a_string(
    name: str, text: str, secret: str
) -> None:
    """The raw create request (its command, an env value, a label), also as a JSON string held by a
    job's label (a recorded request beside the answer)."""
    raw = copy.deepcopy(RAW_REQUEST)
    raw["command"] = text
    raw["jobSpec"]["Master"]["env"] = {"STARTUP": text}
    raw["labels"] = {"note": text}
    job = aihc_with("x")
    job["result"]["labels"] = [{"key": "raw-request", "value": json.dumps(raw)}]
    for payload in (raw, job):
        assert unmasked_secrets(payload) != []
        redacted, _ = redact_payload(payload)
        assert not shown(secret, json.dumps(redacted))
        assert not shown(secret, json.dumps(masked(payload)))
