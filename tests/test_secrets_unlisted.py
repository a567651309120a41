# ruff: noqa: E501  (the table of forms: one row a line, each token written whole)
"""Credential forms nobody had listed (an outside review's method, run again before the outside
check): vendor token shapes (GitLab deploy/runner/trigger tokens, Slack ``xoxc``/``xoxe``, Stripe
test keys, Doppler service tokens with their config, Notion, Perplexity, Tailscale, 1Password,
Supabase, PlanetScale, RubyGems, NuGet, Dynatrace, Mapbox, age, Azure DevOps, a Hugging Face org
token, Tencent and Alibaba key pairs), key files (PuTTY, SSH2 armour, encrypted JWTs), headers with
quoted parameters inside JSON strings, tools' own options (``curl --cert F:X``, ``rar -hpX``,
Windows ``/pass:X`` and ``/rp X``, ``net user U X``, ``cargo login X``, ``vault operator unseal X``,
``openssl passwd X``, ``sqlplus u/X`` without a database), secrets fed on standard input to a
secret store (``docker secret create N -``, ``gcloud secrets create N --data-file=-``), code
(``SetEnvironmentVariable``, ``setPassword("x")``, ``login('u', 'x')``, ``set_password(s, u, x)``,
Make's ``?=``), ``\\xNN`` escapes and the shell's ``$'…'``.

Each form is a row: masked by ``scrub``; masked in every container the policy must see through
(base64, gzip, percent-encoding, JSON strings, HTML, YAML blocks, ``bash -c``, here-documents); in a
Run:ai workload's command, args, annotations and labels and an AIHC job's command and labels,
flagged by ``redact --check`` and gone after ``redact``; absent from every output of validate, diff
and timeline. Random compositions of forms, containers and payload places (hypothesis). The forms
still shown are listed as known gaps (strict xfail: a fix must move them), and ML and infrastructure
vocabulary that looks close to these forms stays as it is.
"""

from __future__ import annotations

import json
import re

import pytest

from jobschema.secrets import scrub
from tests.secret_forms import b64, form_tests

R = "Qz7vK2mX9pL4wR8tNb3YcD6fHj"  # random-looking, 26 characters
H32 = "9f86d081884c7d659a2feaa0c55ad015"
H64 = H32 + "7e1a2b3c4d5e6f708192a3b4c5d6e7f8"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJRejd2SzJtWDlwTDR3UjgiLCJpYXQiOjE1MTYyMzkwMjJ9."
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)


#: ``(id, text, secret)``: the secret must not be shown once ``text`` is read.
FORMS: list[tuple[str, str, str]] = []


def _form(name: str, text: str, secret: str) -> None:
    FORMS.append((name, text, secret))


# fmt: off
# vendor shapes (bare, with light context)
_form("gitlab-deploy", f"token gldt-{R[:20]}", f"gldt-{R[:20]}")
_form("gitlab-runner", f"runner: glrt-{R[:20]}", f"glrt-{R[:20]}")
_form("gitlab-trigger", f"curl -F token=glptt-{H32[:20]}x https://gitlab.com/api", f"glptt-{H32[:20]}")
_form("gitlab-feed", f"feed glft-{R[:20]} ok", f"glft-{R[:20]}")
_form("gitlab-oauth-app", f"GITLAB_APP=gloas-{H64}", f"gloas-{H64}")
_form("pypi", "pypi-AgEIcHlwaS5vcmcCJGE0ZjY3NmEzLTk1YzMtNDk4MS1hMjA0LTE5YjJlNWQ0ZWRhNgACKlszLCI1YjRhZGQ0Yy1kNGM0LTQ3Y2EtYTc5Zi1iZmY5NTlmYzI4YTIiXQAABiDlnrm3", "pypi-AgEIcHlwaS5vcmcCJGE0ZjY3NmEzLTk1YzMtNDk4MS1hMjA0")
_form("databricks", f"host=x dapi{H32}-3", f"dapi{H32}")
_form("hf-org", "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", "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")
_form("openai-svcacct", f"sk-svcacct-{R}{R}T3BlbkFJ{R}", f"sk-svcacct-{R}{R}T3BlbkFJ{R}")
_form("openai-admin", f"sk-admin-{R}{R}T3BlbkFJ{R}", f"sk-admin-{R}{R}T3BlbkFJ{R}")
_form("anthropic-admin", f"sk-ant-admin01-{R}{R}{R}-AA", f"sk-ant-admin01-{R}{R}{R}-AA")
_form("slack-xoxe", f"refresh xoxe.xoxp-1-Mi0yLTE0{R}{R}", f"xoxe.xoxp-1-Mi0yLTE0{R}{R}")
_form("slack-xoxe1", f"xoxe-1-My0xLTE0{R}{R}", f"xoxe-1-My0xLTE0{R}{R}")
_form("slack-xoxc", f"xoxc-1234567890-1234567890-1234567890-{H64}", f"xoxc-1234567890-1234567890-1234567890-{H64}")
_form("stripe-test", f"sk_test_51H{R}{R}", f"sk_test_51H{R}{R}")
_form("shopify", f"shpat_{H32}", f"shpat_{H32}")
_form("shopify-ss", f"shpss_{H32}", f"shpss_{H32}")
_form("digitalocean", f"doctl auth init -t dop_v1_{H64}", f"dop_v1_{H64}")
_form("newrelic", "NRAK-QZ7VK2MX9PL4WR8TNB3YCD6FH1J", "NRAK-QZ7VK2MX9PL4WR8TNB3YCD6FH1J")
_form("doppler", f"dp.st.prod.{R}{R[:14]}", f"dp.st.prod.{R}{R[:14]}")
_form("sentry-org", f"sntrys_eyJpYXQiOjE2ODQ{R}{R}", f"sntrys_eyJpYXQiOjE2ODQ{R}{R}")
_form("postman", f"PMAK-{H32[:24]}-{H64[:34]}", f"PMAK-{H32[:24]}-{H64[:34]}")
_form("figma", f"figd_{R}{R[:14]}", f"figd_{R}{R[:14]}")
_form("heroku", f"HRKU-AA{R}{R}{R[:6]}", f"HRKU-AA{R}{R}{R[:6]}")
_form("notion", f"ntn_12345678901{R}{R[:9]}", f"ntn_12345678901{R}{R[:9]}")
_form("notion-old", f"NOTION=secret_{R}{R[:17]}", f"secret_{R}{R[:17]}")
_form("replicate", f"r8_{R}{R[:11]}", f"r8_{R}{R[:11]}")
_form("perplexity", f"pplx-{H64[:48]}", f"pplx-{H64[:48]}")
_form("google-oauth-secret", f"GOCSPX-{R}ab", f"GOCSPX-{R}ab")
_form("google-access", f"ya29.a0AfH6SM{R}{R}-{R}", f"ya29.a0AfH6SM{R}{R}-{R}")
_form("google-refresh", f"1//0g{R}{R}-{R[:10]}", f"1//0g{R}{R}-{R[:10]}")
_form("age-key", "AGE-SECRET-KEY-1QQPQQZQ9QQGR5Q7QYQHQ5Q8QXQ5QKQ2QZQVQ7QHQXQ3Q9Q5Q8QMQSQEGXAZL", "AGE-SECRET-KEY-1QQPQQZQ9QQGR5Q7QYQHQ5Q8QXQ5QKQ2QZQVQ7QHQXQ3Q9Q5Q8QMQSQEGXAZL")
_form("tailscale", f"tskey-auth-k{R[:10]}CNTRL-{R}", f"tskey-auth-k{R[:10]}CNTRL-{R}")
_form("onepassword-sa", f"ops_eyJzaWduSW5BZGRyZXNzIjoibXkuMXBhc3N3b3JkLmNvbSIsInVzZXJBdXRoIjp7Im1ldGhvZCI6IlNSUGctNDA5NiIsImFsZyI6IlBCRVMyZy1IUzI1NiIsIml0ZXJhdGlvbnMiOjY1MDAwMCwic2FsdCI6Ik{R}", f"ops_eyJzaWduSW5BZGRyZXNzIjoibXkuMXBhc3N3b3JkLmNvbSIsInVzZXJBdXRoIjp7Im1ldGhvZCI6IlNSUGctNDA5NiIsImFsZyI6IlBCRVMyZy1IUzI1NiIsIml0ZXJhdGlvbnMiOjY1MDAwMCwic2FsdCI6Ik{R}")
_form("supabase", f"sbp_{H32}{H32[:8]}", f"sbp_{H32}{H32[:8]}")
_form("planetscale", f"pscale_tkn_{R}{R[:17]}", f"pscale_tkn_{R}{R[:17]}")
_form("planetscale-pw", f"pscale_pw_{R}{R[:17]}", f"pscale_pw_{R}{R[:17]}")
_form("tencent-akid-pair", f"AKIDz8krbsJ5yKBZQpn74WFkmLPx3{R[:7]} {R}x6abcd", f"{R}x6abcd")
_form("alibaba-ltai-pair", f"echo bucket:LTAI5tHx3Jm8Wq2Zp6Vd:{R}abcd > /etc/passwd-ossfs", R + "abcd")
_form("s3fs-pair", "echo AKIAIOSFODNN7QZ7VK2M:wJalrXUtnFEMI/K7MDENG/bPxRfiCYzzQz7vK2mX > ~/.passwd-s3fs", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzzQz7vK2mX")
_form("rubygems", f"rubygems_{H32}{H32[:16]}", f"rubygems_{H32}{H32[:16]}")
_form("nuget", f"oy2{R.lower()}abcdefghijklmnopq", f"oy2{R.lower()}abcdefghijklmnopq")
_form("jfrog", f"AKCp8{R}{R}{R[:17]}", f"AKCp8{R}{R}{R[:17]}")
_form("dynatrace", f"dt0c01.{R[:24].upper()}.{H64.upper()}", f"dt0c01.{R[:24].upper()}.{H64.upper()}")
_form("grafana-cloud", f"glc_eyJvIjoiMTIzNDU2IiwibiI6InN0YWNrLTEyMzQtaW50ZWdyYXRpb24iLCJrIjoi{R}", f"glc_eyJvIjoiMTIzNDU2IiwibiI6InN0YWNrLTEyMzQtaW50ZWdyYXRpb24iLCJrIjoi{R}")
_form("github-app", f"ghs_{R}abcdefghij", f"ghs_{R}abcdefghij")
_form("vault-batch", f"hvb.AAAAAQ{R}{R}", f"hvb.AAAAAQ{R}{R}")
_form("mapbox", f"sk.eyJ1IjoibWUiLCJhIjoi{R}In0.{R[:22]}", f"sk.eyJ1IjoibWUiLCJhIjoi{R}In0.{R[:22]}")
_form("square", f"EAAAE{R}{R}{R[:8]}", f"EAAAE{R}{R}{R[:8]}")
_form("facebook", f"EAACEdEose0cBA{R}{R}", f"EAACEdEose0cBA{R}{R}")
_form("dashscope", f"DASHSCOPE_KEY_1 sk-{H32}", f"sk-{H32}")
_form("zhipu", f"{H32}.{R[:16]}", f"{H32}.{R[:16]}")
_form("azure-devops", f"{R}{R}{R[:24]}AZDO{R[:4]}", f"{R}{R}{R[:24]}AZDO{R[:4]}")
_form("putty", f"PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: me\nPublic-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAIB\nx\nPrivate-Lines: 1\nAAAAI{R}QQQQ\nPrivate-MAC: {H64}\n", f"AAAAI{R}QQQQ")
_form("ssh2-key", f"---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: \"rsa-key\"\nP2/56wAAAi4AAAA3aWYtbW{R}\n---- END SSH2 ENCRYPTED PRIVATE KEY ----", f"P2/56wAAAi4AAAA3aWYtbW{R}")
_form("openvpn-static", f"<tls-auth>\n-----BEGIN OpenVPN Static key V1-----\n{H32}\n{H64}\n-----END OpenVPN Static key V1-----\n</tls-auth>", H64)
_form("pem-flattened", f"SSH_KEY=-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAA{R} {R}QQ -----END OPENSSH PRIVATE KEY-----", f"b3BlbnNzaC1rZXktdjEAAAAA{R} {R}QQ")
_form("pem-truncated", f"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA{R}{R}\n{R}{R}\n...", f"MIIEowIBAAKCAQEA{R}{R}\n{R}{R}")
_form("pem-double-escaped", '{\\"private_key\\": \\"-----BEGIN PRIVATE KEY-----\\\\nMIIEvQIBADANBgkqhkiG9w0B' + R + '\\\\n-----END PRIVATE KEY-----\\\\n\\"}', "MIIEvQIBADANBgkqhkiG9w0B" + R)
# schemes
_form("auth-aws-v2", "Authorization: AWS AKIAIOSFODNN7QZ7VK2M:frJIUN8DYpKDtOLCwo//yllqDzg=", "frJIUN8DYpKDtOLCwo//yllqDzg=")
_form("auth-oss", f"Authorization: OSS LTAI5tHx3Jm8Wq2Zp6Vd:{R[:20]}xYz=", f"{R[:20]}xYz=")
_form("auth-tc3", f"Authorization: TC3-HMAC-SHA256 Credential=AKIDz8krbsJ5yKBZQpn74WFkmLPx3{R[:7]}/2019-02-25/cvm/tc3_request, SignedHeaders=content-type;host, Signature={H64}", H64)
_form("auth-cos", f"Authorization: q-sign-algorithm=sha1&q-ak=AKIDHx3Jm8Wq2Zp6VdKc3bcd&q-sign-time=1&q-key-time=1&q-header-list=host&q-url-param-list=&q-signature={H32}abcd1234", f"{H32}abcd1234")
_form("auth-sas", f"Authorization: SharedAccessSignature sr=myhub.azure-devices.net&sig={R}%3D&se=1600000000&skn=iothubowner", R)
_form("auth-googlelogin", f"Authorization: GoogleLogin auth={R}{R}", f"{R}{R}")
_form("auth-splunk", f"Authorization: Splunk {R}", R)
_form("auth-key", f"Authorization: key={R}{R}", f"{R}{R}")
_form("auth-apikey-space", f"Authorization: Api-Key {R}", R)
_form("auth-rails", f'Authorization: Token token="{R}", email="a@b.c"', R)
_form("auth-dpop", f"Authorization: DPoP {R}{R}", f"{R}{R}")
_form("auth-bot", f"Authorization: Bot MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.{R}", f"Cl2FMQ.{R}")
_form("auth-mac", f'Authorization: MAC id="h480djs93hd8", ts="1336363200", nonce="dj83hs9s", mac="{R}="', f"{R}=")
_form("auth-hmac-azure", f"Authorization: HMAC-SHA256 SignedHeaders=x-ms-date;host&Signature={R}=", f"{R}=")
_form("auth-genie", f"Authorization: GenieKey {R}", R)
_form("auth-zoho", f"Authorization: Zoho-oauthtoken 1000.{H32}.{H32}", f"{H32}.{H32}")
# headers by name
_form("hdr-ocp", f"Ocp-Apim-Subscription-Key: {H32}", H32)
_form("hdr-shopify", f"X-Shopify-Access-Token: {R}", R)
_form("hdr-cf-key", f"X-Auth-Key: {H32}abcdef1", f"{H32}abcdef1")
_form("hdr-sse-c", f"x-amz-server-side-encryption-customer-key: {b64(R[:24]+'abcdefgh')}", b64(R[:24]+'abcdefgh'))
_form("hdr-vault", f"X-Vault-Token: {R}", R)
_form("hdr-registry-auth", "X-Registry-Auth: " + b64(json.dumps({"username": "bot", "password": R})), b64(json.dumps({"username": "bot", "password": R})))
_form("hdr-csrf", f"X-CSRF-Token: {R}{R}", f"{R}{R}")
_form("hdr-plex", f"X-Plex-Token: {R[:20]}", R[:20])
_form("hdr-consul", f"X-Consul-Token: {R}", R)
_form("hdr-gitlab-webhook", f"X-Gitlab-Token: {R}", R)
_form("hdr-jfrog", f"X-JFrog-Art-Api: {R}{R}", f"{R}{R}")
_form("hdr-session", f"X-Session-Id: {R}{R}", f"{R}{R}")
# commands
_form("curl-b", f"curl -b 'session={R}' https://x", R)
_form("curl-cookie", f"curl --cookie \"sid={R}\" https://x", R)
_form("curl-cert-pass", f"curl --cert client.pem:{R} https://x", R)
_form("curl-E-pass", f"curl -E client.pem:{R} https://x", R)
_form("curl-proxy-user", f"curl --proxy-user bob:{R} https://x", R)
_form("curl-U", f"curl -U bob:{R} -x proxy:3128 https://x", R)
_form("curl-header-eq", f"curl --header=X-API-Key:{R} https://x", R)
_form("xh-auth", f"xh -a bob:{R} https://x", R)
_form("xhs-auth-long", f"xhs --auth bob:{R} https://x", R)
_form("curlie-user", f"curlie -u bob:{R} https://x", R)
_form("curlie-cert", f"curlie --cert client.pem:{R} https://x", R)
_form("curl-data-urlencode", f"curl --data-urlencode 'password={R}' https://x", R)
_form("wget-http-password", f"wget --http-password={R} --http-user=bob https://x", R)
_form("wget-proxy-password", f"wget --proxy-password {R} https://x", R)
_form("aria2c", f"aria2c --http-passwd={R} https://x", R)
_form("ipmitool", f"ipmitool -I lanplus -H 10.0.0.5 -U admin -P {R} power status", R)
_form("snmp-community", f"snmpwalk -v2c -c {R} 10.0.0.1", R)
_form("snmp-v3", f"snmpget -v3 -u bob -l authPriv -a SHA -A {R} -x AES -X {R[::-1]} host sysName.0", R)
_form("rar-hp", f"rar a -hp{R} out.rar dir", R)
_form("openssl-k", f"openssl enc -aes-256-cbc -k {R} -in a -out b", R)
_form("net-user", f"net user svc_backup {R} /add", R)
_form("cmdkey", f"cmdkey /generic:TERMSRV/host /user:bob /pass:{R}", R)
_form("schtasks", f"schtasks /create /tn t /tr x.exe /ru bob /rp {R}", R)
_form("ps-env", f"$env:OPENAI_API_KEY = '{R}'", R)
_form("ps-setenv", f"[Environment]::SetEnvironmentVariable('DB_PASSWORD', '{R}', 'User')", R)
_form("declare-x", f"declare -x DB_PASSWORD={R}", R)
_form("readonly", f"readonly API_TOKEN='{R}'", R)
_form("default-expansion", f"psql -h db -U app -W ${{DB_PASSWORD:-{R}}}", R)
_form("default-assign", f': "${{API_TOKEN:={R}}}"', R)
_form("compose-default", f"environment:\n  POSTGRES_PASSWORD: ${{POSTGRES_PASSWORD:-{R}}}\n", R)
_form("make-qassign", f"API_KEY ?= {R}\n", R)
_form("apache-setenv", f"SetEnv DB_PASSWORD {R}", R)
_form("redis-masterauth", f"masterauth {R}", R)
_form("redis-auth-cmd", f"redis-cli -h r <<< 'AUTH default {R}'", R)
_form("vault-unseal", f"vault operator unseal {R}{R}", f"{R}{R}")
_form("vault-approle", f"vault write auth/approle/login role_id=abc secret_id={R}", R)
_form("wandb-login", f"wandb login {H32}{H32[:8]}", f"{H32}{H32[:8]}")
_form("cargo-login", f"cargo login cio{R}", f"cio{R}")
_form("pulumi-config", f"pulumi config set --secret dbPassword {R}", R)
_form("ssm-put", f"aws ssm put-parameter --name /prod/db_password --type SecureString --value {R}", R)
_form("docker-secret-stdin", f"printf '{R}' | docker secret create db_password -", R)
_form("gcloud-secret-stdin", f"echo -n {R} | gcloud secrets create db-pass --data-file=-", R)
_form("sqlplus-noat", f"sqlplus -S system/{R} @script.sql", R)
_form("expdp", f"expdp system/{R} directory=d dumpfile=x.dmp", R)
_form("openssl-passwd", f"openssl passwd -6 '{R}'", R)
_form("keyring", f"keyring.set_password('svc', 'bob', '{R}')", R)
_form("smtplib", f"server.login('bob@example.com', '{R}')", R)
_form("go-basic", f'req.SetBasicAuth("bob", "{R}")', R)
_form("go-static", f'credentials.NewStaticCredentials("AKIAIOSFODNN7QZ7VK2M", "{R}x/{R[:12]}", "")', f"{R}x/{R[:12]}")
_form("java-setpassword", f'ds.setPassword("{R}");', R)
_form("java-getconn", f'DriverManager.getConnection(url, "sa", "{R}")', R)
_form("js-env", f"process.env.API_KEY = '{R}'", R)
_form("js-obj", f"const transport = nodemailer.createTransport({{ auth: {{ user: 'bob', pass: '{R}' }} }})", R)
_form("js-apikey-obj", f"new Client({{ apiKey: '{R}' }})", R)
_form("rust-let", f'let api_key = "{R}";', R)
_form("ansible-become", f"ansible_become_pass: {R}", R)
_form("ansible-inline", f"ansible-playbook site.yml -e ansible_ssh_pass={R}", R)
_form("wpa-psk", f'network={{\n  ssid="lab"\n  psk="{R}"\n}}', R)
_form("ipsec-psk", f': PSK "{R}"', R)
_form("wg-psk", f"[Peer]\nPublicKey = x\nPresharedKey = {b64(R+'abcdef')}\n", b64(R+'abcdef'))
_form("haproxy-userlist", f"userlist admins\n  user admin insecure-password {R}", R)
_form("cloudinit-chpasswd", f"chpasswd:\n  list: |\n    root:{R}\n  expire: false", R)
_form("gem-credentials", f"---\n:rubygems_api_key: rubygems_{H32}{H32[:16]}\n", f"rubygems_{H32}{H32[:16]}")
_form("kaggle-json", json.dumps({"username": "bob", "key": H32}), H32)
_form("consul-secretid", f"SecretID: {R}", R)
_form("unseal-output", f"Unseal Key 1: {b64(R+R)}", b64(R+R))
_form("snowflake-copy", f"COPY INTO t FROM 's3://b/p' CREDENTIALS=(AWS_KEY_ID='AKIAIOSFODNN7QZ7VK2M' AWS_SECRET_KEY='{R}x')", f"{R}x")
_form("redshift-copy", f"COPY t FROM 's3://b' CREDENTIALS 'aws_access_key_id=AKIAIOSFODNN7QZ7VK2M;aws_secret_access_key={R}x'", f"{R}x")
_form("pg-with-password", f"CREATE ROLE app WITH LOGIN PASSWORD '{R}';", R)
_form("mssql-login", f"CREATE LOGIN app WITH PASSWORD = '{R}';", R)
_form("fdw-options", f"CREATE USER MAPPING FOR app SERVER s OPTIONS (user 'x', password '{R}');", R)
_form("spark-azure-key", f"--conf spark.hadoop.fs.azure.account.key.myacct.dfs.core.windows.net={R}{R}==", f"{R}{R}==")
_form("spark-azure-sas", f"fs.azure.sas.container.myacct.blob.core.windows.net=sv=2020-08-04&sig={R}%3D", R)
_form("s3a-bucket-secret", f"-Dfs.s3a.bucket.mybucket.secret.key={R}", R)
_form("soap-wsse", f'<wsse:UsernameToken><wsse:Username>bob</wsse:Username><wsse:Password Type="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordText">{R}</wsse:Password></wsse:UsernameToken>', R)
_form("graphql", json.dumps({"query": f'mutation {{ login(email: "a@b.c", password: "{R}") {{ token }} }}'}), R)
_form("ws-protocol", f"Sec-WebSocket-Protocol: access_token, {R}{R}", f"{R}{R}")
_form("oauth-fragment", f"https://app.example.com/cb#access_token={R}&token_type=Bearer&expires_in=3600", R)
_form("location-fragment", f"Location: https://app.example.com/cb#id_token={JWT}", JWT.split('.')[2])
_form("url-private-token", f"https://gitlab.example.com/api/v4/projects?private_token={R}", R)
_form("url-apikey-dash", f"https://api.example.com/v1?api-key={R}", R)
_form("url-auth-firebase", f"https://x.firebaseio.com/a.json?auth={R}{R}", f"{R}{R}")
_form("url-pg-password-query", f"postgresql://app@db:5432/x?sslmode=require&password={R}", R)
_form("nats-url", f"nats://bob:{R}@nats:4222", R)
_form("ldap-url", f"ldap://cn=admin,dc=x:{R}@ldap:389", R)
_form("data-uri", "data:application/json;base64," + b64(json.dumps({"password": R})), b64(json.dumps({"password": R})))
_form("jwt-wrapped-json", json.dumps({"t": JWT[:60] + "\n" + JWT[60:]}), JWT.split('.')[2])
_form("jwt-split-yaml", "token: >-\n  " + JWT[:50] + "\n  " + JWT[50:100] + "\n  " + JWT[100:] + "\n", JWT.split('.')[2][10:])
_form("jwe", "eyJhbGciOiJSU0EtT0FFUCIsImVuYyI6IkEyNTZHQ00ifQ.OKOawDo13gRp2ojaHV7LFpZcgV7T6DVZKTyKOMTYUmKoTCVJRgckCL9kiMT03JGeipsEdY3mx_etLbbWSrFr05kLzcSr4qKAq7YN7e9jwQRb23nfa6c9d-StnImGyFDbSv04uVuxIp5Zms1gNxKKK2Da14B8S4rzVRltdYwam_lDp5XnZAYpQdb76FdIKLaVmqgfwX7XWRxv2322i-vDxRfqNzo_tETKzpVLzfiwQyeyPGLBIO56YJ7eObdv0je81860ppamavo35UgoRdbYaBcoh9QcfylQr66oc6vFWXRcZ_ZT2LawVCWTIy3brGPi6UklfCpIMfIjf7iGdXKHzg.48V1_ALb6US04U3b.5eym8TW_c8SuK0ltJ3rpYIzOeDQz7TALvtu6UG9oMo4vpzs9tX_EFShS8iB7j6jiSdiwkIr3ajwQzaBtQD_A.XFBoMYUZodetZdvTiFvSkQ", "5eym8TW_c8SuK0ltJ3rpYIzOeDQz7TALvtu6UG9oMo4vpzs9tX")
# encodings
_form("b64-bare-ghp", b64("ghp_" + R + "abcdefghij"), b64("ghp_" + R + "abcdefghij")[8:30])
_form("hex-bare-ghp", ("ghp_" + R + "abcdefghij").encode().hex(), ("ghp_" + R + "abcdefghij").encode().hex()[8:40])
_form("hex-password", f"cfg={'password=' + R}".encode().hex(), ("password=" + R).encode().hex()[20:50])
_form("pct-all", "".join(f"%{b:02X}" for b in f"password={R}".encode()), "".join(f"%{b:02X}" for b in R.encode()))
_form("u-escape-all", json.dumps({"cfg": "x"}).replace("x", "".join(f"\\u{ord(c):04x}" for c in f"ghp_{R}abcdefghij")), "".join(f"\\u{ord(c):04x}" for c in f"ghp_{R}abcdefghij"))
_form("x-escape-py", "b'" + "".join(f"\\x{b:02x}" for b in f"password={R}".encode()) + "'", "".join(f"\\x{b:02x}" for b in R.encode()))
_form("shell-ansi-c", "export DB_PASSWORD=$'" + "".join(f"\\x{b:02x}" for b in f"{R}".encode()) + "'", "".join(f"\\x{b:02x}" for b in R.encode()))
_form("b64-of-curl-u", b64(f"curl -u bob:{R} https://x"), b64(f"curl -u bob:{R} https://x")[8:40])
_form("qp-encoded", f"password=3D{R}", R)
_form("b64-docker-auth-only", json.dumps({"auths": {"r.io": {"auth": b64("bob:" + R)}}}), b64("bob:" + R))
_form(
    "auth-mac-in-json",
    json.dumps({"h": f'Authorization: MAC id="h480djs93hd8", mac="{R}="'}),
    f"{R}=",
)
_form(
    "auth-mac-in-json-in-json",
    json.dumps(json.dumps({"h": f'Authorization: MAC id="h480djs93hd8", mac="{R}="'})),
    f"{R}=",
)
# classes closed after the review (each gap's class, generalised, with forms beyond the one listed)
# a header's name judged as an env var's (any key but an identifier's), an API's header with a random value
_form("hdr-jfrog-curl", f'curl -H "X-JFrog-Art-Api:{R}" https://x/artifactory/api/repositories', R)
_form("hdr-api-json", json.dumps({"headers": {"X-JFrog-Art-Api": R}}), R)
_form("hdr-api-har", json.dumps([{"name": "X-Acme-Api", "value": R}]), R)
_form("hdr-customer-key-curl", f'curl -H "X-Customer-Key: {R}" https://x', R)
_form("hdr-customer-key-json", json.dumps({"x-goog-customer-key": R}), R)
_form("hdr-sse-c-har", json.dumps([{"name": "x-amz-server-side-encryption-customer-key", "value": b64(R[:24] + "abcdefgh")}]), b64(R[:24] + "abcdefgh"))
# a numbered credential label (``Unseal Key 1:``, ``Recovery Key 3:``)
_form("recovery-output", f"Recovery Key 3: {b64(R+R)}", b64(R + R))
_form("unseal-output-2", f"Unseal Key 2: {R}{R}", f"{R}{R}")
_form("api-key-numbered", f"api key 2: {R}", R)
_form("password-numbered", f"password #2: {R}", R)
# the value a command stores as a secret
_form("ssm-put-secret-name", f"aws ssm put-parameter --name /prod/db_password --value {R}", R)
_form("ssm-put-equals", f"aws ssm put-parameter --name /prod/x --type=SecureString --value={R}", R)
_form("az-keyvault-set", f"az keyvault secret set --vault-name v --name db --value {R}", R)
_form("gh-secret-set", f"gh secret set DEPLOY --body {R}", R)
# a Redis client's AUTH, as its arguments or as lines fed on standard input
_form("redis-auth-args", f"redis-cli -h r -p 6379 AUTH default {R}", R)
_form("redis-auth-pipe", f"echo \"AUTH default {R}\" | redis-cli -h r", R)
_form("redis-auth-printf", f"printf 'AUTH {R}\\nPING\\n' | valkey-cli -h r", R)
_form("redis-auth-heredoc", f"redis-cli -h r <<EOF\nAUTH bob {R}\nSET a b\nEOF\n", R)
_form("kinit-heredoc", f"kinit bob@EXAMPLE.COM <<EOF\n{R}\nEOF\n", R)
# cloud-init's chpasswd list, as a block, a list, a flow mapping, JSON
_form("cloudinit-chpasswd-list", f"#cloud-config\nchpasswd:\n  list:\n    - ubuntu:{R}\n  expire: false\n", R)
_form("cloudinit-chpasswd-flow", f"chpasswd: {{list: [ 'root:{R}' ], expire: false}}\n", R)
_form("cloudinit-chpasswd-json", json.dumps({"chpasswd": {"list": [f"root:{R}"], "expire": False}}), R)
# a JDBC-style call given a user and a password
_form("java-getconn-url", f'Connection c = DriverManager.getConnection("jdbc:postgresql://db:5432/app", "app", "{R}");', R)
_form("java-ds-getconn", f'try (Connection c = dataSource.getConnection("app", "{R}")) {{', R)
_form("java-pooled", f'val c = pool.getPooledConnection("app", "{R}")', R)
_form("java-xa", f'xa.getXAConnection("app", "{R}")', R)
# a token as a WebSocket subprotocol
_form("ws-protocol-list", f"sec-websocket-protocol: graphql-ws, auth_token, {R}", R)
_form("ws-protocol-json", json.dumps({"headers": {"Sec-WebSocket-Protocol": f"access_token, {R}"}}), R)
_form("ws-protocol-har", json.dumps([{"name": "Sec-WebSocket-Protocol", "value": f"Authorization, {R}"}]), R)
# ipsec.secrets lines
_form("ipsec-psk-selectors", f'%any %any : PSK "{R}"', R)
_form("ipsec-psk-0s", f"@moon.strongswan.org @sun.strongswan.org : PSK 0s{R}==\n", R)
_form("ipsec-xauth", f'carol : XAUTH "{R}"', R)
_form("ipsec-psk-single", f"10.0.0.1 : PSK '{R}'", R)
# fmt: on

#: Forms the policy still shows, and why (see the report of this review): a fix moves a row to FORMS.
KNOWN_GAPS = {
    "google-refresh": "no anchor whose first character the gates branch on (``1//0``)",
    "square": "``EAAA`` is too common an anchor in base64 bodies",
    "zhipu": "no literal at all (32 hex digits, a dot, 16 characters)",
    "jwt-wrapped-json": "a JWT broken by an escaped line break",
}


# --- what must stay as it is ------------------------------------------------------------------------

#: ML and infrastructure vocabulary close to these forms (and to the rules added for them).
CLEAN = [
    "python generate.py --max-tokens 4096 --tokenizer meta-llama/Llama-2-7b-hf",
    "image: nvcr.io/nvidia/pytorch:24.01-py3@sha256:3f2a9c1e4b5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f",
    "git checkout 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b",
    "job 6dce772a-33c1-473b-b21b-ab2cafcecd48 finished",
    "app.kubernetes.io/name=trainer,app.kubernetes.io/instance=llama-sft",
    "net user",
    "net user bob",
    "net user bob /delete",
    "net user bob * /add",
    "net user /domain",
    "schtasks /create /tn nightly /tr train.cmd /ru SYSTEM /sc daily",
    "cmdkey /list",
    "cmdkey /delete:TERMSRV/host",
    "cargo login",
    "cargo build --release",
    "vault operator unseal",
    "vault operator unseal -reset",
    "openssl passwd -6 -stdin",
    "openssl passwd -6 -in passwords.txt",
    "docker secret ls",
    "docker secret create db_password ./db_password.txt",
    "echo done | docker secret ls",
    "gcloud secrets create db-pass --data-file=./pass.txt",
    "gcloud secrets create db-pass --data-file=-",
    "gcloud secrets versions access latest --secret=db-pass",
    "password --data-file=-",
    "rar x archive.rar",
    "curl --cert client.pem https://x",
    "curl --cert /etc/ssl/client.pem --key /etc/ssl/client.key https://x",
    "curl --header=Accept:application/json https://x",
    "sqlplus / as sysdba",
    "sqlplus /nolog",
    "sqlplus scott/${ORACLE_PWD}",
    'tokenizer.setTokenizer("bpe")',
    'cfg.setPasswordPolicy("strict")',
    'x.setTimeout("30")',
    "client.login()",
    "ftp.login('anonymous')",
    "db.connect('host', 'db')",
    'huggingface_hub.login(token=os.environ["HF_TOKEN"])',
    "password=getpass.getpass()",
    'API_KEY=os.getenv("API_KEY")',
    "token = get_token()",
    "CFLAGS ?= -O2",
    "TOKENIZER ?= bpe",
    "PASSWORD_FILE ?= /run/secrets/db",
    "[Environment]::SetEnvironmentVariable('PATH', 'C:\\tools', 'User')",
    "print('\\x1b[31mred\\x1b[0m')",
    '{"h": "X-Request-Id: 5f3c\\nAccept: */*"}',
    '{"headers": "Content-Type: application/json\\nX-Trace: 1"}',
    "CONTAINER_RUNTIME=containerd MAINTAINER=ml-team DETAIL=on",
    "secret_manager_access_for_service_account",
    "AKIDS are listed",
    "AZDO pipelines",
    "dp.st.is-not-a-token",
    "ntn_12345",
    "rubygems_mirror=https://gems.example.com",
    "AGE-SECRET-KEY-1 is how age keys start",
    "Private-Lines: see docs",
    "---- BEGIN SSH2 PUBLIC KEY ----\nAAAAB3NzaC1yc2EAAAADAQABAAABAQC\n---- END SSH2 PUBLIC KEY ----",
    "LTAI keys are Alibaba's",
    "--max-new-tokens=512 --pad-token-id=0",
    "x-jobschema-api: runai",
    '{"x-jobschema-api": "runai", "customer_key": "c_123456789abcdefXYZ", "X-Cache-Key": "Qz7vK2mX9pL4wR8tNb3YcD6fHj"}',
    "x-amz-server-side-encryption-customer-key-MD5: Qz7vK2mX9pL4wR8tNb3YcD6fHj==",
    "Sec-WebSocket-Protocol: graphql-ws, chat",
    "token 1 of 3 expired",
    "layer 1: key 12 of 24",
    "aws ssm put-parameter --name /prod/replicas --type String --value 3",
    "gh issue create --body 'hello world'",
    "redis-cli -h r PING",
    "redis-cli <<< 'GET key'",
    "DriverManager.getConnection(url, props)",
    "getConnection(url, user, password)",
    "authby=psk\nkey_mgmt=WPA-PSK\nPSK mode: enabled",
    "chpasswd:\n  expire: false\n",
    "num_key_value_heads: 8",
    '{"username": "bob", "meta": {"key": "sort"}}',
    '[{"user": "bob"}, {"key": "team", "value": "ml"}]',
]

globals().update(form_tests(FORMS, KNOWN_GAPS, at_least=180, clean=CLEAN))


@pytest.mark.parametrize(
    "text",
    [
        "curl --header=X-API-Key:abcdEFGH12345678 https://x.example.com/api",
        '["curl", "--header=X-API-Key:abcdEFGH12345678", "https://x.example.com/api"]',
        "wget --header=X-Auth-Token:abcdEFGH12345678 -O out.json https://x.example.com/api",
    ],
)
def test_a_header_given_to_an_option_is_one_word(text: str) -> None:
    """``--header=NAME:VALUE`` unquoted is one word of its command: what follows stays."""
    masked = scrub(text)
    assert re.sub(r"<secret:[0-9a-f]{8}>", "abcdEFGH12345678", masked) == text != masked
