# ruff: noqa: E501  (the table of forms: one row a line, each token written whole)
"""Credential forms of an eighth round: 530 forms of families the earlier tables had not tried
(Azure SAS and connection strings, GCP client secrets and signed URLs, Kubernetes Secrets and
kubeconfig keys, docker/npm/pypi/poetry/cargo/nuget/composer/jfrog files and commands, netrc and git
credential files, Terraform and Ansible variables, systemd and supervisord, htpasswd and Redis ACLs,
MongoDB SRV, ODBC, SQLAlchemy, Go and JDBC DSNs, Kafka SASL, NATS and MQTT, webhooks, fifty vendors'
token prefixes, JWTs over lines, PEM/OpenSSH/PuTTY/PGP/OpenVPN/minisign keys, keys without armor, JSON
Web Keys, wallets' keys and seed words, signed URLs of five clouds, raw HTTP and HAR bodies, a hundred
commands of tools no row had, network devices, mail and Wi-Fi configs, XML/plist/resx/Android files,
code in eight languages, SQL, tables, YAML and TOML specifics, encodings), then 79 written for the
classes found shown.

Found shown before this round: 97 of the 530 (each in every holder: scrub, an AIHC command and a
HAR body); 41 are left (``KNOWN_GAPS``); of the 79 written for the classes, none is shown. The
classes, each fixed by a rule (not by a case):

- **prefixed tokens of vendors no row had** (``PROVIDER_TOKENS``): Netlify ``nfp_``, Render
  ``rnd_``, Linear OAuth, Contentful ``CFPAT-``, Honeycomb ``hcaik_``, Adafruit ``aio_``, Bitbucket
  ``ATBB``, Prefect ``pnu_``, Pinecone ``pcsk_``, LangSmith ``lsv2_``, Docker ``dckr_oat_``, Resend
  ``re_``, Neon ``napi_``, Supabase ``sb_secret_``, Dropbox ``sl.``, Fly ``fm2_``, Braintree
  ``access_token$production$``, an ECR login password (``eyJwYXlsb2FkIjoi…``), Cloudflare's origin CA key;
- **a private key without its armor**: a PKCS#1, PKCS#8 or PKCS#12 DER in base64 (``MIIEvQIBADAN…``,
  ``MIIEowIBAAK…``, ``MIIKYQIBAzCC…``), an EC or Ed25519 key (``MHcCAQEE…``, ``MC4CAQAwBQYDK2Vw…``),
  an OpenSSH key's body (``b3BlbnNzaC1rZXktdjE…``), a minisign or signify secret key file; a
  certificate or a public key (``MIIBIjAN…``) stays;
- **a JSON Web Key's private members** (``d``, ``p``, ``q``, ``dp``, ``dq``, ``qi``, ``k`` in an object
  holding ``kty``; ``JWK_PRIVATE_MEMBERS``), in JSON, YAML, JSON in strings, and YAML lines in a text
  that is no document (found by diff's report of all forms joined);
- **a call given a credential's name and its value** (``props.put("password", X)``,
  ``config.set("api_key", X)``, ``Map.of(…)``: any call, not only an environment's), and setters of
  other verbs (a builder's ``withPassword(X)``, ``putSecret``), ``PasswordAuthentication("u", X)``;
- **a credential's column**: a CSV, TSV, ``;`` or Markdown table whose header names a credential, an
  SQL ``INSERT … (name, password) VALUES (…), (…)``, an unpacking assignment (``user, password =
  "bob", X``, Go's ``:=``, ``const [user, apiKey] = […]``; this one was also a false mask: ``bob`` was
  masked, the password shown) (``secrets/columns.py``);
- **short flags run together before a user:password** (``curl -fsu bob:X``);
- **a Go driver's DSN** (``bob:X@tcp(db:3306)/app``, ``unix(…)``), Squid's ``login=bob:X``;
- **tools no row had**: ``mosquitto_passwd -b``, ``dscl . -passwd``, ``isql DSN U X``, ``db2 … using
  X``, ``security unlock-keychain -p``/``import -P``, ``dotnet nuget push -k``, ``nuget setapikey``,
  ``nmcli … password``/``wifi-sec.psk``; and what ``htpasswd -i``, ``smbpasswd -s`` read on stdin;
- **a command inside ``$( … )`` or ``<( … )`` not at its line's start** (``-p "$(openssl passwd -1
  X)"``, ``echo $(mysql -pX)``, ``H=$(…)``): the word was read as a text but not as the command inside;
- **a JWT wrapped after a dot** (a log's line break, ``\\r\\n``, a YAML block's indentation);
- **a wallet's seed words** (``MNEMONIC``, ``seed_phrase``, ``recovery_phrase``);
- found by the holders: **a percent-encoded value cut at a mask** (``cfg=htpasswd%20-nb%20bob%20<mask>``:
  the second scrub read the command without its last word and masked ``bob``), **a table in a JSON
  string** (a string holding lines and separators is read as a text of its own).

False masks removed: ``mysql -u root -p app`` (``app``, the database: with the MySQL clients ``-p``
and ``--password`` take their value only attached; a separate word is masked only when it looks
generated, ``mysql -uroot -p 8Hx9Q384mTgz``: ``Tool.attached``), ``htpasswd -c F bob`` and
``htpasswd -n bob`` (the user: the password is positional only with ``-b``, ``Tool.when``), and the
user of an unpacking assignment.

Left shown (strict xfails, ``KNOWN_GAPS``): forms with no name, tool or shape to find them by (bare
keys of Azure Storage, ngrok, Bitcoin WIF, Stellar, Solana and NATS seeds, an Airtable token
``pat…`` whose prefix is a word), network devices' ``key``/``community`` lines, Consul's ``encrypt``,
positional arguments of calls no table names (PHP's ``mysqli_connect``, ``PDO``, ``ftplib.FTP``,
``basic_auth(u, Some(X))``, ``AuthenticationHeaderValue("Bearer", X)``), ``user:pass`` literals about
to be encoded, files of positional lines (``chap-secrets``, ``davfs2``), a JWT wrapped inside a part,
and the rest listed below with their reasons.

Each form is held to the checks of tests/secret_forms.py (scrub, every container, payload places,
``redact --check``/``redact``, every validate, diff and timeline output) and composed with every
holder and encoding (``held_test``); the hypothesis tests below try each class beyond its rows, and
near misses must stay as they are.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.secrets import columns, mask, masked, scrub
from tests.secret_forms import b64, form_tests, held_test, pct, shown

R = "Qz7vK2mX9pL4wR8tNb3YcD6fHj"  # random-looking, 26 characters
V = "Vb8nQ3xZ7kLp2Wd9Ty5Hc4Mf"  # another, 24
W = "sunshine42"  # a wordy password
P = "Tr0ub4dor&3x!Q"  # punctuation
H32 = "9f86d081884c7d659a2feaa0c55ad015"
H40 = "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3"
H64 = H32 + H32[::-1]
UUID = "3f2b8c1e-7d4a-4e9b-a1c2-5d6e7f8a9b0c"
PEMBODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC" + R + V
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJRejd2SzJtWDlwTDR3UjgiLCJpYXQiOjE1MTYyMzkwMjJ9."
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
JWT_A, JWT_B, JWT_C = JWT.split(".")


#: ``(id, text, secret)``: the secret must not be shown once ``text`` is read.
FORMS: list[tuple[str, str, str]] = []


def _form(name: str, text: str, secret: str) -> None:
    FORMS.append((name, text, secret))


# fmt: off
# --- Azure
_form("az-sas-url", f"https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-01-01T00:00:00Z&st=2025-01-01T00:00:00Z&spr=https&sig={pct(b64(R+V))}", pct(b64(R+V))[:20])
_form("az-conn-accountkey", f"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={b64(R+V+R)};EndpointSuffix=core.windows.net", b64(R+V+R))
_form("az-conn-sas", f"BlobEndpoint=https://acct.blob.core.windows.net/;SharedAccessSignature=sv=2022-11-02&ss=b&sig={pct(b64(V+R))}", pct(b64(V+R))[:20])
_form("az-servicebus", f"Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={b64(R+'abcd')}", b64(R+'abcd'))
_form("az-client-secret-shape", f"client secret: abc8Q~{R}{V[:8]}", f"abc8Q~{R}")
_form("az-client-secret-bare", f"use abc8Q~{R}{V[:8]} now", f"abc8Q~{R}")
_form("az-functions-code", f"https://app.azurewebsites.net/api/HttpTrigger?code={b64(R+V)}", b64(R+V)[:20])
_form("az-functions-key-header", f"x-functions-key: {b64(R+V)}", b64(R+V))
_form("az-openai-api-key-header", f"api-key: {H32}", H32)
_form("az-cosmos-conn", f"AccountEndpoint=https://x.documents.azure.com:443/;AccountKey={b64(R+V+R+V)};", b64(R+V+R+V))
_form("az-storage-cli-key", f"az storage blob upload --account-name acct --account-key {b64(R+V)} -f x -c c", b64(R+V))
_form("az-storage-sas-token-flag", f"az storage blob list --sas-token '?sv=2022&sig={pct(b64(R+V))}' -c c", pct(b64(R+V))[:20])
_form("az-webapp-settings", f"az webapp config appsettings set -g rg -n app --settings API_KEY={R} DEBUG=1", R)
_form("az-vm-admin-password", f"az vm create -g rg -n vm --image Ubuntu2204 --admin-username bob --admin-password '{P}'", P)
_form("az-sql-admin-password", f"az sql server create -n s -g rg -u bob -p '{P}'", P)
_form("az-ad-sp-output", json.dumps({"appId": UUID, "displayName": "sp", "password": R, "tenant": UUID}), R)
# --- GCP
_form("gcp-sa-json-in-string", json.dumps({"GOOGLE_CREDENTIALS": json.dumps({"type": "service_account", "private_key": f"-----BEGIN PRIVATE KEY-----\n{PEMBODY}\n-----END PRIVATE KEY-----\n", "client_email": "x@y.iam.gserviceaccount.com"})}), PEMBODY[:40])
_form("gcp-client-secret-gocspx", json.dumps({"installed": {"client_id": "1-x.apps.googleusercontent.com", "client_secret": f"GOCSPX-{R[:22]}{V[:6]}"}}), f"GOCSPX-{R[:22]}")
_form("gcp-gocspx-bare", f"GOCSPX-{R[:22]}{V[:6]}", f"GOCSPX-{R[:22]}")
_form("gcp-adc-refresh", json.dumps({"client_id": "x", "client_secret": "d-FL95Q19q7MQmFpd7hHD0Ty", "refresh_token": f"1//0g{R}{V}", "type": "authorized_user"}), f"1//0g{R}")
_form("gcp-signed-url", f"https://storage.googleapis.com/b/o?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=x%40y.iam.gserviceaccount.com%2F20260101%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20260101T000000Z&X-Goog-Expires=900&X-Goog-SignedHeaders=host&X-Goog-Signature={H64}{H64}", H64)
_form("gcp-signed-url-v2", f"https://storage.googleapis.com/b/o?GoogleAccessId=x@y.iam.gserviceaccount.com&Expires=1700000000&Signature={pct(b64(R+V+R))}", pct(b64(R+V+R))[:20])
_form("gcp-ya29-bare", f"token ya29.a0{R}{V}", f"ya29.a0{R}")
_form("gcloud-sql-set-password", f"gcloud sql users set-password bob --instance=db --password='{P}'", P)
_form("gcloud-run-set-env", f"gcloud run deploy app --image x --set-env-vars DEBUG=1,API_KEY={R}", R)
_form("gcloud-functions-env", f"gcloud functions deploy f --update-env-vars=DB_PASSWORD={W},X=1", W)
# --- Kubernetes
_form("k8s-secret-data-json", json.dumps({"apiVersion": "v1", "kind": "Secret", "data": {"tls.key": b64(f"-----BEGIN PRIVATE KEY-----\n{PEMBODY}\n-----END PRIVATE KEY-----\n")}}), b64(f"-----BEGIN PRIVATE KEY-----\n{PEMBODY}")[:40])
_form("k8s-secret-stringdata-yaml", f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  username: bob\n  pw: {W}\n", W)
_form("k8s-secret-data-odd-key", f"kind: Secret\ndata:\n  conn: {b64('host=db user=bob secret=' + R)}\n", b64('host=db user=bob secret=' + R))
_form("kubeconfig-client-key-data", f"users:\n- name: u\n  user:\n    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t\n    client-key-data: {b64('-----BEGIN RSA PRIVATE KEY-----' + chr(10) + PEMBODY + chr(10) + '-----END RSA PRIVATE KEY-----')}\n", b64('-----BEGIN RSA PRIVATE KEY-----' + chr(10) + PEMBODY)[:40])
_form("kubeconfig-token", f"users:\n- name: sa\n  user:\n    token: {R}{V}\n", R+V)
_form("kubectl-set-credentials", f"kubectl config set-credentials bob --token={R}{V}", R+V)
_form("kubectl-token-flag", f"kubectl --token {R}{V} get pods", R+V)
_form("kubectl-docker-registry", f"kubectl create secret docker-registry reg --docker-server=r --docker-username=bob --docker-password={W}", W)
_form("kubectl-set-env", f"kubectl set env deployment/app API_KEY={R}", R)
_form("kubectl-run-env", f'kubectl run x --image=busybox --env="DB_PASSWORD={W}"', W)
_form("k8s-env-value-number", json.dumps({"env": [{"name": "PIN", "value": "4821"}]}), "4821")
# --- docker
_form("docker-config-auth", json.dumps({"auths": {"https://index.docker.io/v1/": {"auth": b64("bob:" + W)}}}), b64("bob:" + W))
_form("docker-config-identitytoken", json.dumps({"auths": {"r.x.com": {"identitytoken": R + V}}}), R+V)
_form("docker-config-registrytoken", json.dumps({"auths": {"r.x.com": {"registrytoken": R + V}}}), R+V)
_form("docker-run-env-eq", f"docker run --env=API_TOKEN={R} img", R)
_form("docker-run-e-attached", f'docker run -e"API_TOKEN={R}" img', R)
_form("docker-build-arg", f"docker build --build-arg NPM_TOKEN={R} .", R)
_form("dockerfile-env-multi", f"ENV A=1 API_KEY={R} B=2\n", R)
_form("dockerfile-env-continued", f'ENV API_KEY="{R}" \\\n    OTHER=1\n', R)
_form("dockerfile-healthcheck-curl", f"HEALTHCHECK CMD curl -fsu bob:{R} http://localhost/health\n", R)
_form("dockerfile-run-pip-index", f"RUN pip install --index-url https://bob:{R}@pypi.x.com/simple app\n", R)
_form("podman-login-password", f"podman login --password {R} --username bob quay.io", R)
_form("skopeo-dest-creds", f"skopeo copy --dest-creds bob:{R} docker://a docker://b", R)
_form("helm-repo-password", f"helm repo add x https://charts.x --username bob --password {W}", W)
_form("oras-login-p", f"oras login -u bob -p {R} r.x.com", R)
_form("crane-auth-login", f"crane auth login r.x.com -u bob -p {R}", R)
_form("ecr-token-bare", "eyJwYXlsb2FkIjoi" + b64(R+V+R+V) + "IiwiZGF0YWtleSI6", "eyJwYXlsb2FkIjoi" + b64(R+V+R+V)[:20])
# --- package managers
_form("npmrc-password-b64", f"//registry.x.com/:username=bob\n//registry.x.com/:_password={b64(W)}\n", b64(W))
_form("npmrc-authtoken-bare-line", f"_authToken={R}\n", R)
_form("pypirc", f"[distutils]\nindex-servers = pypi\n[pypi]\nusername = __token__\npassword = pypi-AgEIcHlwaS5vcmc{R}{V}\n", f"AgEIcHlwaS5vcmc{R}")
_form("pypirc-private", f"[private]\nrepository = https://x/pypi\nusername = bob\npassword = {W}\n", W)
_form("pip-conf", f"[global]\nindex-url = https://bob:{R}@pypi.x.com/simple\n", R)
_form("pip-install-extra-index", f"pip install --extra-index-url https://bob:{R}@pypi.x.com/simple pkg", R)
_form("twine-upload", f"twine upload -u __token__ -p pypi-AgEIcHlwaS5vcmc{R} dist/*", f"AgEIcHlwaS5vcmc{R}")
_form("poetry-config-token", f"poetry config pypi-token.pypi pypi-AgEIcHlwaS5vcmc{R}", f"AgEIcHlwaS5vcmc{R}")
_form("poetry-config-token-private", f"poetry config pypi-token.private {R}", R)
_form("poetry-config-http-basic", f"poetry config http-basic.private bob {W}", W)
_form("yarn-config-set-token", f"yarn config set npmAuthToken {R}", R)
_form("npm-config-set-space", f"npm config set //r.x.com/:_authToken {R}", R)
_form("cargo-credentials-toml", f"[registry]\ntoken = \"cio{R}\"\n", f"cio{R}")
_form("gem-credentials", f"---\n:rubygems_api_key: rubygems_{H32}{H32[:16]}\n", f"rubygems_{H32}")
_form("nuget-setapikey", f"nuget setapikey {R} -source https://api.nuget.org/v3/index.json", R)
_form("dotnet-nuget-push-k", f"dotnet nuget push x.nupkg -k {R} -s https://api.nuget.org", R)
_form("nuget-config-xml", f'<packageSourceCredentials><feed><add key="Username" value="bob" /><add key="ClearTextPassword" value="{W}" /></feed></packageSourceCredentials>', W)
_form("gradle-P-signing", f"./gradlew publish -Psigning.password={W} -PossrhPassword={R}", R)
_form("gradle-properties-signing", f"signing.keyId=ABCDEF12\nsigning.password={W}\nsigning.secretKeyRingFile=/x/secring.gpg\n", W)
_form("gradle-in-memory-key", f"ORG_GRADLE_PROJECT_signingInMemoryKey={b64(R+V)}", b64(R+V))
_form("mvn-gpg-passphrase", f"mvn deploy -Dgpg.passphrase={W}", W)
_form("conan-remote-login", f"conan remote login conancenter bob -p {R}", R)
_form("composer-bearer", json.dumps({"bearer": {"repo.x.com": R}}), R)
_form("composer-gitlab-token", json.dumps({"gitlab-token": {"gitlab.x.com": R}}), R)
_form("composer-bitbucket-oauth", json.dumps({"bitbucket-oauth": {"bitbucket.org": {"consumer-key": "k", "consumer-secret": R}}}), R)
_form("composer-config-cmd", f"composer config --global --auth github-oauth.github.com ghp_{R}{V[:10]}", f"ghp_{R}")
_form("composer-http-basic-cmd", f"composer config http-basic.repo.x.com bob {W}", W)
_form("bundle-config-env", f"BUNDLE_GEMS__X__COM=bob:{W}", W)
_form("go-goproxy-cred", f"GOPROXY=https://bob:{R}@proxy.x.com,direct", R)
_form("go-netrc-env", f"GONOSUMDB=x.com GOPRIVATE=x.com NETRC=/x git config --global url.\"https://{R}{V}:x-oauth-basic@github.com/\".insteadOf https://github.com/", R+V)
_form("jfrog-config-add", f"jf c add art --url=https://x.jfrog.io --user=bob --password={W} --interactive=false", W)
_form("jfrog-access-token", f"jf rt ping --access-token={R}{V}", R+V)
# --- netrc / git
_form("netrc-default", f"default login bob password {W}\n", W)
_form("netrc-one-line-many", f"machine a.com login bob password {R} machine b.com login bob password {V}\n", V)
_form("git-credentials-line", f"https://bob:{R}@github.com\n", R)
_form("git-credentials-token-user", f"https://{R}{V}@gitlab.com\n", R+V)
_form("git-remote-set-url", f"git remote set-url origin https://oauth2:{R}@gitlab.x.com/g/r.git", R)
_form("git-credential-fill-heredoc", f"git credential approve <<EOF\nprotocol=https\nhost=x.com\nusername=bob\npassword={W}\nEOF\n", W)
_form("git-askpass-env", f"GIT_ASKPASS=/bin/echo GIT_PASSWORD={W} git push", W)
_form("svn-password", f"svn checkout --username bob --password {W} https://svn.x/repo", W)
_form("hg-clone-url", f"hg clone https://bob:{R}@hg.x.com/repo", R)
_form("p4passwd-env", f"P4PASSWD={W} p4 sync", W)
_form("p4-P", f"p4 -u bob -P {R} sync", R)
# --- Maven / config files
_form("maven-settings-encrypted", "<server><id>x</id><username>bob</username><password>{COQLCE6DU6GtcS5P=}</password></server>", "COQLCE6DU6GtcS5P=")
_form("tfvars-hcl", f'db_password = "{W}"\nregion = "eu"\n', W)
_form("tf-var-env", f"TF_VAR_db_password={W} terraform apply", W)
_form("tf-token-host-env", f"TF_TOKEN_app_terraform_io={R}.atlasv1.{V}{R}", R)
_form("terraform-var-flag", f"terraform apply -var 'db_password={W}' -auto-approve", W)
_form("terraform-var-flag-eq", f"terraform apply -var=\"admin_password={W}\"", W)
_form("ansible-inventory-line", f"web1 ansible_host=10.0.0.1 ansible_user=root ansible_ssh_pass={W}\n", W)
_form("ansible-become-pass", f"ansible_become_pass: {W}\n", W)
_form("ansible-extra-vars", f"ansible-playbook site.yml -e 'ansible_password={W}'", W)
_form("ansible-extra-vars-json", f"ansible-playbook site.yml --extra-vars '{{\"db_password\": \"{W}\"}}'", W)
_form("ansible-vault-pass-echo", f"ansible-playbook site.yml --vault-password-file <(echo {W})", W)
_form("systemd-env-file-line", f"[Service]\nEnvironment=\"API_KEY={R}\"\nExecStart=/x\n", R)
_form("systemd-unit-execstart", f"[Service]\nExecStart=/usr/bin/app --db-password {W}\n", W)
_form("supervisord-environment", f'[program:app]\ncommand=/x\nenvironment=A="1",API_KEY="{R}"\n', R)
_form("supervisord-inet", f"[inet_http_server]\nport=127.0.0.1:9001\nusername=user\npassword={W}\n", W)
_form("htpasswd-apr1", "bob:$apr1$x8Yq2$Qz7vK2mX9pL4wR8tNb3Yc/\n", "Qz7vK2mX9pL4wR8tNb3Yc/")
_form("htpasswd-bcrypt", "bob:$2y$05$Qz7vK2mX9pL4wR8tNb3YcOeNdx5r6I5uX2Y3Z4a5b6c7d8e9f0g1h\n", "Qz7vK2mX9pL4wR8tNb3YcOeNdx5r6I5uX2Y3Z4a5b6c7d8e9f0g1h"[:20])
_form("redis-masterauth", f"masterauth {W}\n", W)
_form("redis-sentinel-authpass", f"sentinel auth-pass mymaster {W}\n", W)
_form("redis-acl-user", f"user app on >{W} ~* +@all\n", W)
_form("redis-auth-cmd-lower", f"redis-cli -h r\n> auth {W}\n", W)
_form("redis-cli-pass", f"redis-cli --pass {W} -h r ping", W)
_form("redis-cli-user-pass", f"redis-cli --user app --pass {W}", W)
_form("rediscli-auth-env", f"REDISCLI_AUTH={W} redis-cli ping", W)
_form("redis-url-user-pass", f"rediss://app:{R}@r.x.com:6380/0", R)
_form("mongo-srv", f"mongodb+srv://bob:{R}@cluster0.abcd.mongodb.net/?retryWrites=true&w=majority", R)
_form("mongosh-password", f"mongosh \"mongodb+srv://cluster0.x.mongodb.net/db\" --username bob --password {W}", W)
_form("mongodump-uri", f"mongodump --uri=\"mongodb://bob:{R}@db:27017/app\"", R)
_form("mongo-p-space", f"mongo db -u bob -p {R} --authenticationDatabase admin", R)
_form("odbc-driver-pwd", f"Driver={{ODBC Driver 18 for SQL Server}};Server=tcp:db,1433;Uid=bob;Pwd={W};Encrypt=yes;", W)
_form("odbc-dsn-upper", f"DSN=prod;UID=bob;PWD={R}", R)
_form("sqlalchemy-pct", f"postgresql+psycopg2://bob:{pct(P)}@db:5432/app", pct(P))
_form("sqlalchemy-odbc-connect", f"mssql+pyodbc:///?odbc_connect={pct('DRIVER={ODBC Driver 18};SERVER=db;UID=bob;PWD=' + R)}", R)
_form("sqlalchemy-create-engine", f'engine = create_engine("mysql+pymysql://bob:{R}@db/app")', R)
_form("jdbc-oracle-thin", f"jdbc:oracle:thin:bob/{R}@//db:1521/ORCL", R)
_form("jdbc-db2-props", f"jdbc:db2://db:50000/app:user=bob;password={R};", R)
_form("jdbc-mysql-query", f"jdbc:mysql://db:3306/app?user=bob&password={W}&useSSL=true", W)
_form("go-mysql-dsn", f'sql.Open("mysql", "bob:{R}@tcp(db:3306)/app?parseTime=true")', R)
_form("go-mysql-dsn-bare", f"DSN=bob:{R}@tcp(127.0.0.1:3306)/app", R)
_form("amqps-url", f"amqps://bob:{R}@rabbit.x.com/vhost", R)
_form("kafka-eventhubs-jaas", f'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="$ConnectionString" password="Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=k;SharedAccessKey={b64(R+V)}";', b64(R+V))
_form("kafka-properties-ssl", f"ssl.keystore.password={W}\nssl.key.password={R}\n", R)
_form("kafka-scram-cmd", f"kafka-configs --alter --add-config 'SCRAM-SHA-256=[password={W}]' --entity-type users --entity-name bob", W)
_form("nats-url", f"nats://bob:{R}@nats.x.com:4222", R)
_form("nats-nkey-seed", "SUACSSL3UAHUDXKFSNVUZRF5UHPMWZ6BFDTJ7M6USDXIEDNPPQYYYCU3VY", "SUACSSL3UAHUDXKFSNVUZRF5UHPMWZ6BFDTJ7M6USDXIEDNPPQYYYCU3VY")
_form("nats-creds-file", "-----BEGIN NATS USER JWT-----\neyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.eyJzdWIiOiJVQSJ9.sig\n------END NATS USER JWT------\n\n-----BEGIN USER NKEY SEED-----\nSUACSSL3UAHUDXKFSNVUZRF5UHPMWZ6BFDTJ7M6USDXIEDNPPQYYYCU3VY\n------END USER NKEY SEED------\n", "SUACSSL3UAHUDXKFSNVUZRF5UHPMWZ6BFDTJ7M6USDXIEDNPPQYYYCU3VY")
_form("mqtt-url", f"mqtt://bob:{R}@broker:1883", R)
_form("mosquitto-pub-P", f"mosquitto_pub -h b -u bob -P {W} -t t -m hi", W)
_form("mosquitto-passwd-b", f"mosquitto_passwd -b /etc/mosquitto/passwd bob {W}", W)
# --- webhooks / vendor
_form("slack-webhook", f"https://hooks.slack.com/services/T0123ABCD/B0123ABCD/{R[:24]}", R[:24])
_form("discord-webhook", f"https://discord.com/api/webhooks/123456789012345678/{R}{V}{R}", R+V)
_form("google-chat-webhook", f"https://chat.googleapis.com/v1/spaces/AAAAx/messages?key=AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI&token={pct(b64(R))}", pct(b64(R))[:16])
_form("teams-webhook", f"https://x.webhook.office.com/webhookb2/{UUID}@{UUID}/IncomingWebhook/{H32}/{UUID}", H32)
_form("zapier-hook", f"https://hooks.zapier.com/hooks/catch/123456/{R[:8]}/", R[:8])
_form("stripe-live", f"sk_live_{R}{V}", f"sk_live_{R}")
_form("stripe-restricted", f"rk_live_{R}{V}", f"rk_live_{R}")
_form("twilio-auth-token-env", f"TWILIO_AUTH_TOKEN={H32}", H32)
_form("twilio-basic-url", f"https://AC{H32}:{H32[::-1]}@api.twilio.com/2010-04-01/Accounts", H32[::-1])
_form("sendgrid-bare", f"SG.{R[:22]}.{R}{V[:17]}", f"SG.{R[:22]}")
_form("mailchimp-key", f"{H32}-us6", H32)
_form("postmark-header", f"X-Postmark-Server-Token: {UUID}", UUID)
_form("shopify-shpss", f"shpss_{H32}", f"shpss_{H32}")
_form("gitlab-glpat", f"glpat-{R[:20]}", f"glpat-{R[:20]}")
_form("gitlab-gldt", f"gldt-{R[:20]}", f"gldt-{R[:20]}")
_form("gitlab-glptt", f"glptt-{H40}", f"glptt-{H40}")
_form("gitlab-glsoat", f"glsoat-{R[:20]}", f"glsoat-{R[:20]}")
_form("github-ghs", f"ghs_{R}{V[:10]}", f"ghs_{R}")
_form("github-gho", f"gho_{R}{V[:10]}", f"gho_{R}")
_form("openai-proj", f"sk-proj-{R}{V}{R}T3BlbkFJ{V}{R}", f"sk-proj-{R}")
_form("openai-svcacct", f"sk-svcacct-{R}{V}T3BlbkFJ{R}", f"sk-svcacct-{R}")
_form("anthropic-admin", f"sk-ant-admin01-{R}{V}{R}{V}-AAAA", f"sk-ant-admin01-{R}")
_form("openrouter", f"sk-or-v1-{H64}", f"sk-or-v1-{H64}")
_form("digitalocean-dop", f"dop_v1_{H64}", f"dop_v1_{H64}")
_form("cloudflare-origin-ca", f"v1.0-{H32[:24]}-{(H64 + H64 + H32)[:146]}", f"v1.0-{H32[:24]}")
_form("netlify-nfp", f"nfp_{R}{V[:14]}", f"nfp_{R}")
_form("fly-token", f"FlyV1 fm2_{b64(R+V+R)}", f"fm2_{b64(R+V+R)}")
_form("render-rnd", f"rnd_{R}{V[:6]}", f"rnd_{R}")
_form("linear-oauth", f"lin_oauth_{H64}", f"lin_oauth_{H64}")
_form("figma-figd", f"figd_{R}{V}", f"figd_{R}")
_form("airtable-pat", f"pat{R[:14]}.{H64}", f"pat{R[:14]}.{H64[:20]}")
_form("contentful-cfpat", f"CFPAT-{R}{V[:17]}", f"CFPAT-{R}")
_form("sentry-sntrys", f"sntrys_eyJpYXQiOjE3MDAwMDAwMDAuMCwidXJsIjoiaHR0cHM6Ly9zZW50cnkuaW8ifQ_{R}{V[:17]}", "sntrys_eyJpYXQiOjE3")
_form("sentry-sntryu", f"sntryu_{H64}", f"sntryu_{H64}")
_form("grafana-glsa", f"glsa_{R[:32]}_{H32[:8]}", f"glsa_{R[:24]}")
_form("grafana-glc", f"glc_{b64(json.dumps({'o':'1','n':'x','k':R}))}", f"glc_{b64(json.dumps({'o':'1','n':'x','k':R}))[:20]}")
_form("honeycomb-hcaik", f"hcaik_01{R}{V}{R[:10]}", f"hcaik_01{R}")
_form("vault-hvs", f"hvs.{R}{V}{R[:42]}", f"hvs.{R}")
_form("vault-hvb", f"hvb.{R}{V}{R}{V}", f"hvb.{R}")
_form("doppler-pt", f"dp.pt.{R}{V[:17]}", f"dp.pt.{R}")
_form("doppler-sa", f"dp.sa.{R}{V[:17]}", f"dp.sa.{R}")
_form("square-sq0csp", f"sq0csp-{R}{V[:17]}", f"sq0csp-{R}")
_form("square-sq0atp", f"sq0atp-{R[:22]}", f"sq0atp-{R[:22]}")
_form("braintree-token", f"access_token$production${H32[:16]}${H32}", f"{H32}")
_form("adafruit-aio", f"aio_{(R + V)[:28]}", f"aio_{(R + V)[:28]}")
_form("bitbucket-atbb", f"ATBB{R}{V[:6]}{H32[:8]}", f"ATBB{R}")
_form("atlassian-atatt", f"ATATT3xFfGF0{R}{V}{R}{V}{R}{V}{R[:9]}=ABCD1234", f"ATATT3xFfGF0{R}")
_form("prefect-pnu", f"pnu_{R}{V[:10]}", f"pnu_{R}")
_form("replicate-r8", f"r8_{R}{V[:11]}", f"r8_{R}")
_form("pinecone-pcsk", f"pcsk_{R[:6]}_{R}{V}{R}{V}", f"pcsk_{R[:6]}_{R}")
_form("langsmith-lsv2", f"lsv2_pt_{H32}_{H32[:10]}", f"lsv2_pt_{H32}")
_form("nvidia-nvapi", f"nvapi-{R}{V}{R[:14]}", f"nvapi-{R}")
_form("docker-dckr-oat", f"dckr_oat_{R}{V[:6]}", f"dckr_oat_{R}")
_form("resend-re", f"re_{R[:8]}_{R}", f"re_{R[:8]}_{R}")
_form("neon-napi", f"napi_{R}{V}{R[:14]}", f"napi_{R}")
_form("supabase-sb-secret", f"sb_secret_{R}{V[:6]}", f"sb_secret_{R}")
_form("ngrok-authtoken-shape", f"2{R}_{V}{R[:3]}", f"2{R}_{V}")
_form("ngrok-config-add", f"ngrok config add-authtoken 2{R}_{V}", f"2{R}_{V}")
_form("ngrok-authtoken-yaml", f"version: 2\nauthtoken: 2{R}_{V}\n", f"2{R}_{V}")
_form("snyk-auth", f"snyk auth {UUID}", UUID)
_form("wandb-login", f"wandb login {H40}", H40)
_form("wandb-login-relogin", f"wandb login --relogin {H40}", H40)
_form("tailscale-authkey", f"tailscale up --authkey=tskey-auth-k{R[:12]}CNTRL-{R}{V[:6]}", f"tskey-auth-k{R[:12]}")
_form("doctl-t", f"doctl auth init -t dop_v1_{H64}", f"dop_v1_{H64}")
_form("dropbox-sl", f"sl.B{R}{V}{R}{V}{R}{V}", f"sl.B{R}")
_form("sk-ant-api03", f"sk-ant-api03-{R}{V}{R}{V}-{R[:6]}AA", f"sk-ant-api03-{R}")
_form("azure-storage-key-bare-88", f"{b64(R+V+R[:16])}", b64(R+V+R[:16]))
# --- JWTs / keys / PEM
_form("jwt-split-lines", f"{JWT_A}.\n{JWT_B}.\n{JWT_C}", JWT_C)
_form("jwt-split-midpart", f"{JWT_A}.{JWT_B[:30]}\n{JWT_B[30:]}.{JWT_C}", JWT_C)
_form("jwt-crlf-split", f"{JWT_A}.{JWT_B}.\r\n{JWT_C}", JWT_C)
_form("jwt-in-cookie-header", f"Cookie: jwt={JWT}", JWT_C)
_form("jwt-query-id-token", f"https://x/cb#id_token={JWT}&state=abc", JWT_C)
_form("pem-crlf", f"-----BEGIN RSA PRIVATE KEY-----\r\n{PEMBODY[:64]}\r\n{PEMBODY[64:]}\r\n-----END RSA PRIVATE KEY-----\r\n", PEMBODY[:40])
_form("pem-no-end", f"-----BEGIN PRIVATE KEY-----\n{PEMBODY[:64]}\n{PEMBODY[64:]}\n", PEMBODY[:40])
_form("pem-comment-prefixed", "# -----BEGIN RSA PRIVATE KEY-----\n# " + PEMBODY[:64] + "\n# " + PEMBODY[64:] + "\n# -----END RSA PRIVATE KEY-----\n", PEMBODY[:40])
_form("pem-string-concat", '"-----BEGIN RSA PRIVATE KEY-----\\n" +\n"' + PEMBODY[:64] + '\\n" +\n"-----END RSA PRIVATE KEY-----\\n"', PEMBODY[:40])
_form("pem-encrypted-headers", f"-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,{H32.upper()}\n\n{PEMBODY}\n-----END RSA PRIVATE KEY-----\n", PEMBODY[:40])
_form("pem-encrypted-pkcs8", f"-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQI{R}\n-----END ENCRYPTED PRIVATE KEY-----\n", f"MIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQI{R}"[:40])
_form("pem-ec", f"-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI{R}{V}\n-----END EC PRIVATE KEY-----", f"MHcCAQEEI{R}")
_form("pem-double-escaped-json", json.dumps(json.dumps({"private_key": f"-----BEGIN PRIVATE KEY-----\n{PEMBODY}\n-----END PRIVATE KEY-----\n"})), PEMBODY[:40])
_form("der-pkcs8-bare", f"key {PEMBODY}", PEMBODY[:40])
_form("der-pkcs1-bare", f"MIIEpAIBAAKCAQEA{R}{V}{R}", f"MIIEpAIBAAKCAQEA{R}")
_form("der-ec-bare", f"MHcCAQEEIB{R}{V}", f"MHcCAQEEIB{R}")
_form("openssh-body-bare", f"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ{R}{V}", f"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ{R}")
_form("openssh-crlf", f"-----BEGIN OPENSSH PRIVATE KEY-----\r\nb3BlbnNzaC1rZXktdjE{R}\r\n-----END OPENSSH PRIVATE KEY-----\r\n", f"b3BlbnNzaC1rZXktdjE{R}")
_form("ppk-v3", f"PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: k\nPublic-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAI\nB{H32}\nPrivate-Lines: 1\nAAAAI{R}{V}\nPrivate-MAC: {H64}\n", f"AAAAI{R}{V}")
_form("pgp-crlf", f"-----BEGIN PGP PRIVATE KEY BLOCK-----\r\n\r\nlQOYBF{R}{V}\r\n=ab12\r\n-----END PGP PRIVATE KEY BLOCK-----\r\n", f"lQOYBF{R}")
_form("openvpn-static-key", f"<tls-auth>\n-----BEGIN OpenVPN Static key V1-----\n{H32}\n{H32[::-1]}\n-----END OpenVPN Static key V1-----\n</tls-auth>\n", H32[::-1])
_form("minisign-secret", f"untrusted comment: minisign encrypted secret key\nRWRTY0Iy{R}{V}{R}\n", f"RWRTY0Iy{R}")
_form("signify-secret", f"untrusted comment: signify secret key\nRWRCSwAAA{R}{V}{R}\n", f"RWRCSwAAA{R}")
_form("jwk-rsa-d", json.dumps({"kty": "RSA", "n": "0vx7ago", "e": "AQAB", "d": f"X4cTteJY{R}{V}", "p": f"83i-7IvM{R}", "q": f"3dfOR9cu{V}"}), f"X4cTteJY{R}")
_form("jwk-oct-k", json.dumps({"kty": "oct", "kid": "k1", "k": f"GawgguFyGrWKav7AX4VKUg{R}"}), f"GawgguFyGrWKav7AX4VKUg{R}")
_form("jwk-ec-d", json.dumps({"keys": [{"kty": "EC", "crv": "P-256", "x": "f83O", "y": "x_FE", "d": f"jpsQnnGQ{R}"}]}), f"jpsQnnGQ{R}")
_form("pkcs12-b64-name", f"KEYSTORE_BASE64=MIIKYQIBAzCCCicGCSqGSIb3DQEHAaCCChgEggoUMIIKEDCCBL{R}{V}", "MIIKYQIBAzCCCicGCSqGSIb3DQEHAaCCChgE"[:20] + "ggoUMIIKEDCCBL")
_form("pkcs12-bare", f"MIIKYQIBAzCCCicGCSqGSIb3DQEHAaCCChgEggoUMIIKEDCCBL{R}{V}", f"ggoUMIIKEDCCBL{R}")
_form("eth-private-key", f"PRIVATE_KEY=0x{H64}", H64)
_form("mnemonic", "MNEMONIC=\"abandon ability able about above absent absorb abstract absurd abuse access accident\"", "absorb abstract absurd abuse")
_form("seed-phrase-yaml", "seed_phrase: abandon ability able about above absent absorb abstract absurd abuse access accident\n", "absorb abstract absurd abuse")
_form("wif-key", "WIF=5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ", "5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ")
_form("stellar-secret", "STELLAR_SEED=SCZANGBA5YHTNYVVV4C3U252E2B6P6F5T3U6MM63WBSBZATAQI3EBTQ4", "SCZANGBA5YHTNYVVV4C3U252E2B6P6F5T3U6MM63WBSBZATAQI3EBTQ4")
_form("solana-keypair", "SOLANA_KEYPAIR=[174,47,154,16,202,193,206,113,199,190,53,133,169,175,31,56,222,53,138,189,224,216,117,173,10,149,53,45,73,251,237,246,15,185,186,82,177,240,148,69,241,227,167,80,141,89,240,121,121,35,172,247,68,251,226,218,48,63,176,109,168,89,238,135]", "174,47,154,16,202,193,206,113")
# --- presigned URLs / query
_form("aws-presigned", f"https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7QZ7VK2M%2F20260101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20260101T000000Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Security-Token={pct('IQoJb3JpZ2luX2VjE' + R + V)}&X-Amz-Signature={H64}", H64)
_form("aws-presigned-v2", f"https://b.s3.amazonaws.com/k?AWSAccessKeyId=AKIAIOSFODNN7QZ7VK2M&Expires=1700000000&Signature={pct(b64(R[:20]))}", pct(b64(R[:20])))
_form("cloudfront-signed", f"https://d111.cloudfront.net/x.jpg?Expires=1700000000&Signature={R}{V}~{R}__&Key-Pair-Id=K2JCJMDEHXQW5F", f"{R}{V}")
_form("oss-signed", f"https://b.oss-cn-hangzhou.aliyuncs.com/o?OSSAccessKeyId=LTAI5tQz7vK2mX9pL4wR&Expires=1700000000&Signature={pct(b64(R[:20]))}", pct(b64(R[:20])))
_form("firebase-auth-query", f"https://x.firebaseio.com/users.json?auth={R}{V}", R+V)
_form("query-hmac-shopify", f"https://app/cb?code=abc&hmac={H64}&shop=x.myshopify.com", H64)
_form("query-access-key", f"https://api.x.com/v1?access_key={H32}", H32)
_form("query-appsecret", f"https://api.x.com/v1?appkey=k&app_secret={R}", R)
_form("query-ticket-cas", f"https://app/login?ticket=ST-12345-{R}-cas", R)
_form("fragment-access-token", f"https://app/cb#access_token={R}{V}&token_type=Bearer&expires_in=3600", R+V)
_form("query-apikey-lower", f"https://api.x.com/v1/x?apikey={R}", R)
_form("query-private-token", f"https://gitlab.x.com/api/v4/projects?private_token={R[:20]}", R[:20])
_form("query-session-id", f"https://app/x;jsessionid={H32.upper()}?a=1", H32.upper())
_form("query-sig-generic", f"https://cdn.x.com/v.mp4?exp=1700000000&sig={H64}", H64)
# --- raw HTTP text
_form("http-raw-crlf-bearer", f"GET /v1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {R}{V}\r\n\r\n", R+V)
_form("http-raw-basic", f"POST /login HTTP/1.1\r\nAuthorization: Basic {b64('bob:' + W)}\r\n", b64("bob:" + W))
_form("http-raw-digest", f'Authorization: Digest username="bob", realm="x", nonce="abc", uri="/", response="{H32}", opaque="x"\r\n', H32)
_form("http-raw-set-cookie", f"HTTP/1.1 200 OK\r\nSet-Cookie: session={R}; Path=/; HttpOnly\r\n\r\n", R)
_form("http-raw-form-body", f"POST /token HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\ngrant_type=password&username=bob&password={W}", W)
_form("http-raw-json-body", f"POST /x HTTP/1.1\r\nContent-Type: application/json\r\n\r\n{{\"client_secret\":\"{R}\"}}", R)
_form("http2-authority", f":method: GET\n:path: /v1?api_key={R}\nauthorization: Bearer {V}{R}\n", V+R)
_form("curl-verbose-trace", f"> GET /v1 HTTP/2\n> Host: api.x.com\n> authorization: Bearer {R}{V}\n> user-agent: curl/8\n", R+V)
_form("wget-debug", f"---request begin---\nGET / HTTP/1.1\nAuthorization: Basic {b64('bob:' + R)}\n---request end---\n", b64("bob:" + R))
# --- commands
_form("cmd-env-prefix-multi", f"A=1 API_SECRET={R} B=2 ./run", R)
_form("cmd-env-S", f"env -S 'TOKEN={R} ./run'", R)
_form("cmd-declare-x", f'declare -x API_TOKEN="{R}"', R)
_form("cmd-readonly", f"readonly DB_PASSWORD={W}", W)
_form("cmd-local", f"local password={W}", W)
_form("cmd-fish-set", f"set -gx API_KEY {R}", R)
_form("cmd-csh-setenv", f"setenv API_KEY {R}", R)
_form("cmd-launchctl", f"launchctl setenv API_KEY {R}", R)
_form("cmd-cmd-set-quoted", f'set "API_KEY={R}"', R)
_form("cmd-heroku-config", f"heroku config:set API_KEY={R} -a app", R)
_form("cmd-fly-secrets", f"fly secrets set DB_PASSWORD={W} API_KEY={R}", R)
_form("cmd-dokku-config", f"dokku config:set app SECRET_KEY_BASE={H64}", H64)
_form("cmd-aws-lambda-env", f"aws lambda update-function-configuration --function-name f --environment \"Variables={{A=1,API_KEY={R}}}\"", R)
_form("cmd-aws-secret-string", f"aws secretsmanager create-secret --name db --secret-string '{{\"password\":\"{W}\"}}'", W)
_form("cmd-aws-secret-string-plain", f"aws secretsmanager put-secret-value --secret-id db --secret-string {R}", R)
_form("cmd-aws-login-profile", f"aws iam create-login-profile --user-name bob --password '{P}'", P)
_form("cmd-aws-rds-master", f"aws rds create-db-instance --db-instance-identifier d --master-username bob --master-user-password {W}", W)
_form("cmd-aws-cognito", f"aws cognito-idp admin-set-user-password --user-pool-id p --username bob --password '{P}' --permanent", P)
_form("cmd-argocd-login", f"argocd login cd.x.com --username admin --password {W}", W)
_form("cmd-argocd-update-password", f"argocd account update-password --current-password old1pass --new-password {W}", W)
_form("cmd-flux-git-secret", f"flux create secret git repo --url=https://x --username=bob --password={W}", W)
_form("cmd-vault-kv-put", f"vault kv put secret/db password={W} user=bob", W)
_form("cmd-vault-write-userpass", f"vault write auth/userpass/users/bob password={W} policies=admin", W)
_form("cmd-glab-token", f"glab auth login --hostname gitlab.x --token glpat-{R[:20]}", f"glpat-{R[:20]}")
_form("cmd-gh-with-token-herestring", f"gh auth login --with-token <<< ghp_{R}{V[:10]}", f"ghp_{R}")
_form("cmd-netlify-auth", f"netlify deploy --auth {R}{V} --prod", R+V)
_form("cmd-vercel-token", f"vercel --token {R[:24]} --prod", R[:24])
_form("cmd-firebase-token", f"firebase deploy --token \"1//0g{R}{V}\"", f"1//0g{R}")
_form("cmd-sentry-cli", f"sentry-cli --auth-token {H64} releases new v1", H64)
_form("cmd-sonar-token", f"sonar-scanner -Dsonar.token=squ_{H40}", f"squ_{H40}")
_form("cmd-circleci-setup", f"circleci setup --token {H40} --host https://circleci.com", H40)
_form("cmd-expo-p", f"expo login -u bob -p {W}", W)
_form("cmd-supabase-token", f"supabase login --token sbp_{H40}", f"sbp_{H40}")
_form("cmd-mysqladmin-password", f"mysqladmin -u root password {W}", W)
_form("cmd-mysqladmin-p-new", f"mysqladmin -uroot -pold1pw password '{P}'", P)
_form("cmd-rabbitmq-change-password", f"rabbitmqctl change_password bob {W}", W)
_form("cmd-htpasswd-nb", f"htpasswd -nb bob {W}", W)
_form("cmd-ipmitool-user-set", f"ipmitool user set password 2 {W}", W)
_form("cmd-ipmitool-P", f"ipmitool -I lanplus -H 10.0.0.5 -U admin -P {W} power status", W)
_form("cmd-racadm-p", f"racadm -r 10.0.0.5 -u root -p {W} getsysinfo", W)
_form("cmd-ldappasswd-s", f"ldappasswd -x -D cn=admin,dc=x -w admin1pw -s {W} uid=bob,dc=x", W)
_form("cmd-dscl-passwd", f"dscl . -passwd /Users/bob {W}", W)
_form("cmd-sysadminctl", f"sysadminctl -addUser bob -password {W} -admin", W)
_form("cmd-x11vnc-passwd", f"x11vnc -display :0 -passwd {W}", W)
_form("cmd-vncpasswd-f", f"echo {W} | vncpasswd -f > ~/.vnc/passwd", W)
_form("cmd-xfreerdp", f"xfreerdp /u:bob /p:{W} /v:10.0.0.5", W)
_form("cmd-rdesktop", f"rdesktop -u bob -p {W} 10.0.0.5", W)
_form("cmd-sqlcmd-P", f"sqlcmd -S db -U sa -P '{P}' -Q 'select 1'", P)
_form("cmd-bcp-P", f"bcp db.dbo.t out t.dat -S db -U sa -P {W} -c", W)
_form("cmd-isql", f"isql prod bob {W}", W)
_form("cmd-db2-connect", f"db2 connect to SAMPLE user bob using {W}", W)
_form("cmd-mysqlsh-uri", f"mysqlsh bob:{W}@db:3306", W)
_form("cmd-influx-password", f"influx -username bob -password {W}", W)
_form("cmd-clickhouse-client", f"clickhouse-client --host db --user bob --password {W}", W)
_form("cmd-lftp-u-comma", f"lftp -u bob,{W} sftp://x.com", W)
_form("cmd-ftp-user-heredoc", f"ftp -n x.com <<EOF\nuser bob {W}\nbinary\nput f\nEOF\n", W)
_form("cmd-wget-http-password", f"wget --http-user=bob --http-password={W} https://x/f", W)
_form("cmd-wget-password-space", f"wget --user bob --password {W} ftp://x/f", W)
_form("cmd-httpie-auth", f"http -a bob:{W} GET https://x/api", W)
_form("cmd-httpie-header", f"http GET https://x/api Authorization:'Bearer {R}{V}'", R+V)
_form("cmd-httpie-api-key-header", f"http GET https://x/api x-api-key:{R}", R)
_form("cmd-httpie-json-field", f"http POST https://x/login username=bob password={W}", W)
_form("cmd-httpie-query-param", f"http GET https://x/api api_key=={R}", R)
_form("cmd-curl-oauth2-bearer", f"curl --oauth2-bearer {R}{V} https://x", R+V)
_form("cmd-curl-data-form", f"curl -d 'username=bob&password={W}' https://x/login", W)
_form("cmd-curl-data-json", f"curl -X POST -d '{{\"password\": \"{W}\"}}' https://x/login", W)
_form("cmd-curl-F", f"curl -F 'token={R}' -F file=@x https://x/upload", R)
_form("cmd-curl-data-urlencode", f"curl --data-urlencode 'client_secret={R}' https://x/token", R)
_form("cmd-7z-p", f"7z a -p{W} -mhe=on a.7z dir", W)
_form("cmd-7z-x-p", f"7z x -p'{P}' a.7z", P)
_form("cmd-unzip-P", f"unzip -P {W} a.zip", W)
_form("cmd-openssl-enc-k", f"openssl enc -aes-256-cbc -k {W} -in f -out f.enc", W)
_form("cmd-openssl-passout", f"openssl pkcs12 -export -in c.pem -inkey k.pem -out c.p12 -passout pass:{W}", W)
_form("cmd-openssl-passin-env", f"openssl rsa -in k.pem -passin pass:{P}", P)
_form("cmd-apksigner-ks-pass", f"apksigner sign --ks release.jks --ks-pass pass:{W} --key-pass pass:{R} app.apk", R)
_form("cmd-jarsigner", f"jarsigner -keystore ks.jks -storepass {W} -keypass {R} app.jar alias", R)
_form("cmd-security-unlock", f"security unlock-keychain -p {W} build.keychain", W)
_form("cmd-security-import-P", f"security import cert.p12 -k build.keychain -P {W} -T /usr/bin/codesign", W)
_form("cmd-notarytool", f"xcrun notarytool submit app.zip --apple-id bob@x.com --password {W} --team-id T", W)
_form("cmd-altool", f"xcrun altool --upload-app -f a.ipa -u bob@x.com -p {W}", W)
_form("cmd-gpg-passphrase", f"gpg --batch --pinentry-mode loopback --passphrase {W} -d f.gpg", W)
_form("cmd-gpg-passphrase-eq", f"gpg --batch --passphrase='{P}' -c f", P)
_form("cmd-ssh-keygen-P-N", f"ssh-keygen -p -P old1pass -N {W} -f id_rsa", W)
_form("cmd-sshpass-e", f"SSHPASS={W} sshpass -e ssh bob@h", W)
_form("cmd-sshpass-attached", f"sshpass -p'{P}' ssh bob@h", P)
_form("cmd-nmcli-wifi", f"nmcli dev wifi connect HomeNet password {W}", W)
_form("cmd-nmcli-psk", f"nmcli con modify HomeNet wifi-sec.psk {W}", W)
_form("cmd-wpa-passphrase", f"wpa_passphrase HomeNet {W} >> /etc/wpa_supplicant.conf", W)
_form("cmd-iwctl", f"iwctl --passphrase {W} station wlan0 connect HomeNet", W)
_form("wpa-supplicant-psk", f'network={{\n    ssid="HomeNet"\n    psk="{W}"\n}}\n', W)
_form("hostapd-passphrase", f"interface=wlan0\nssid=HomeNet\nwpa_passphrase={W}\n", W)
_form("netplan-wifi", f"network:\n  wifis:\n    wlan0:\n      access-points:\n        HomeNet:\n          password: {W}\n", W)
_form("cisco-enable-secret", "enable secret 5 $1$mERr$hx5rVt7rPNoS4wqbXKX7m0\n", "hx5rVt7rPNoS4wqbXKX7m0")
_form("cisco-username-password", f"username admin privilege 15 password 0 {W}\n", W)
_form("cisco-snmp-community", f"snmp-server community {R[:12]} RO\n", R[:12])
_form("cisco-tacacs-key", f"tacacs-server host 10.0.0.1 key {W}\n", W)
_form("cisco-radius-key", f"radius-server key {W}\n", W)
_form("juniper-encrypted-password", f'set system root-authentication encrypted-password "$6$x${R}"\n', R)
_form("snmpwalk-v3", f"snmpwalk -v3 -l authPriv -u bob -a SHA -A {W} -x AES -X {R} 10.0.0.1", R)
_form("snmpwalk-community", f"snmpwalk -v2c -c {R[:12]} 10.0.0.1", R[:12])
_form("mount-cifs-options", f"mount -t cifs //srv/share /mnt -o username=bob,password={W},uid=1000", W)
_form("fstab-cifs", f"//srv/share /mnt cifs username=bob,password={W},uid=1000 0 0\n", W)
_form("davfs2-secrets-line", f"https://dav.x.com/remote.php/webdav bob {W}\n", W)
_form("chap-secrets-line", f"# client server secret IP\nbob * {W} *\n", W)
_form("rsyncd-secrets", f"echo 'bob:{W}' > /etc/rsyncd.secrets", W)
_form("rsync-password-env", f"RSYNC_PASSWORD={W} rsync -a rsync://bob@x/m .", W)
_form("chpasswd-stdin", f"echo 'bob:{W}' | chpasswd", W)
_form("chpasswd-herestring", f"chpasswd <<< 'bob:{W}'", W)
_form("passwd-stdin", f"echo {W} | passwd --stdin bob", W)
_form("smbpasswd-s", f"printf '{W}\\n{W}\\n' | smbpasswd -a -s bob", W)
_form("htpasswd-i", f"htpasswd -i /etc/nginx/.htpasswd bob <<< {W}", W)
_form("useradd-p-openssl", f"useradd -m -p \"$(openssl passwd -1 {W})\" bob", W)
# --- config files
_form("haproxy-insecure-password", f"userlist admins\n  user bob insecure-password {W}\n", W)
_form("squid-cache-peer-login", f"cache_peer p.x.com parent 3128 0 login=bob:{W}\n", W)
_form("prometheus-basic-auth", f"basic_auth:\n  username: bob\n  password: {W}\n", W)
_form("prometheus-bearer-token", f"bearer_token: {R}{V}\n", R+V)
_form("alertmanager-smtp", f"global:\n  smtp_auth_password: {W}\n", W)
_form("grafana-ini", f"[security]\nadmin_password = {W}\nsecret_key = {R}\n", R)
_form("jenkins-credentials-xml", f"<com.cloudbees.plugins.credentials.impl.UsernamePasswordCredentialsImpl><username>bob</username><password>{{AQAAABAAAAAQ{R}{V}=}}</password></com.cloudbees.plugins.credentials.impl.UsernamePasswordCredentialsImpl>", f"AQAAABAAAAAQ{R}")
_form("gitlab-runner-toml", f"[[runners]]\n  name = \"r\"\n  url = \"https://gitlab.x\"\n  token = \"glrt-{R[:20]}\"\n", f"glrt-{R[:20]}")
_form("traefik-basicauth-label", f"traefik.http.middlewares.auth.basicauth.users=bob:$$apr1$$x8Yq2$${R[:22]}", R[:22])
_form("caddy-basicauth", f"basicauth /* {{\n    bob {b64('$2a$14$' + R + V + R[:5])}\n}}\n", b64('$2a$14$' + R + V + R[:5]))
_form("consul-encrypt", f'encrypt = "{b64(R[:24]+"abcdefgh")}"\n', b64(R[:24]+"abcdefgh"))
_form("consul-encrypt-json", json.dumps({"encrypt": b64(R[:24]+"abcdefgh"), "datacenter": "dc1"}), b64(R[:24]+"abcdefgh"))
_form("nomad-encrypt-cmd", f"nomad agent -encrypt={b64(R[:24]+'abcdefgh')}", b64(R[:24]+"abcdefgh"))
_form("logstash-password-arrow", f'output {{\n  elasticsearch {{\n    user => "bob"\n    password => "{W}"\n  }}\n}}\n', W)
_form("ruby-hash-arrow", f'config = {{ :password => "{W}", :host => "db" }}', W)
_form("fluentd-shared-key", f"<match **>\n  @type forward\n  <security>\n    shared_key {W}\n  </security>\n</match>\n", W)
_form("fluentd-password", f"<source>\n  @type mysql\n  username bob\n  password {W}\n</source>\n", W)
_form("fluentbit-http-passwd", f"[OUTPUT]\n    Name  es\n    HTTP_User bob\n    HTTP_Passwd {W}\n", W)
_form("telegraf-token", f'[[outputs.influxdb_v2]]\n  urls = ["http://x:8086"]\n  token = "{R}{V}"\n', R+V)
_form("rsyslog-pwd-attr", f'action(type="omelasticsearch" uid="bob" pwd="{W}")', W)
_form("keycloak-kcadm", f"kcadm.sh config credentials --server http://k --realm master --user admin --password {W}", W)
_form("tomcat-users-xml", f'<tomcat-users><user username="bob" password="{W}" roles="manager-gui"/></tomcat-users>', W)
_form("tomcat-context-resource", f'<Resource name="jdbc/db" auth="Container" type="javax.sql.DataSource" username="bob" password="{W}" url="jdbc:mysql://db/app"/>', W)
_form("spring-xml-property", f'<bean id="ds" class="x.DataSource"><property name="password" value="{W}"/></bean>', W)
_form("param-name-value-xml", f'<param name="apiKey" value="{R}"/>', R)
_form("setting-name-value-xml", f'<Setting Name="Password" Value="{W}" />', W)
_form("android-strings-xml", f'<resources><string name="google_api_key">{R}</string></resources>', R)
_form("plist-key-string", f"<dict>\n\t<key>API_KEY</key>\n\t<string>{R}</string>\n</dict>", R)
_form("plist-key-string-password", f"<key>Password</key><string>{W}</string>", W)
_form("resx-data-value", f'<data name="ApiKey" xml:space="preserve"><value>{R}</value></data>', R)
_form("webconfig-appsettings", f'<appSettings><add key="StripeSecretKey" value="sk_test_{R}" /></appSettings>', f"sk_test_{R}")
_form("home-assistant-secrets", f"api_password: {W}\nhttp_password: {R}\n", R)
_form("mbsyncrc-pass", f"IMAPAccount x\nHost imap.x.com\nUser bob\nPass {W}\n", W)
_form("offlineimap-remotepass", f"[Repository Remote]\nremotehost = imap.x.com\nremoteuser = bob\nremotepass = {W}\n", W)
_form("fetchmailrc-inline", f"poll pop.x.com protocol pop3 user bob password {W}\n", W)
_form("irssi-config", f'servers = ( {{ address = "irc.x"; password = "{W}"; }} );', W)
_form("wgetrc", f"http_password = {W}\n", W)
_form("rclone-conf-pass", f"[remote]\ntype = sftp\nhost = x\nuser = bob\npass = {R}\n", R)
_form("rclone-config-create", f"rclone config create s3r s3 provider AWS access_key_id AKIAIOSFODNN7QZ7VK2M secret_access_key {R}{V[:14]}", R+V[:14])
_form("dbt-profiles-pass", f"default:\n  outputs:\n    dev:\n      type: postgres\n      user: bob\n      pass: {W}\n", W)
_form("my-cnf", f"[client]\nuser=bob\npassword=\"{P}\"\n", P)
_form("boto-config", f"[Credentials]\ngs_access_key_id = GOOG1E{R}\ngs_secret_access_key = {R}{V[:14]}\n", R+V[:14])
_form("s3cfg", f"[default]\naccess_key = AKIAIOSFODNN7QZ7VK2M\nsecret_key = {R}{V[:14]}\n", R+V[:14])
_form("openstack-clouds-yaml", f"clouds:\n  prod:\n    auth:\n      auth_url: https://k:5000\n      application_credential_id: abc\n      application_credential_secret: {R}\n", R)
_form("openstack-rc", f"export OS_PASSWORD='{P}'\n", P)
_form("ngrok-yml-authtoken-plain", f"authtoken: {R}{V}\n", R+V)
_form("databrickscfg", f"[DEFAULT]\nhost = https://x.cloud.databricks.com\ntoken = dapi{H32}\n", f"dapi{H32}")
_form("snowsql-config", f"[connections]\naccountname = x\nusername = bob\npassword = {W}\n", W)
_form("gh-hosts-yml", f"github.com:\n    user: bob\n    oauth_token: gho_{R}{V[:10]}\n", f"gho_{R}")
_form("tfrc-json", json.dumps({"credentials": {"app.terraform.io": {"token": f"{R}.atlasv1.{V}{R}"}}}), R)
_form("vault-token-file", f"cat > ~/.vault-token <<EOF\nhvs.{R}{V}\nEOF\n", f"hvs.{R}")
_form("jupyter-token-option", f"jupyter lab --ServerApp.token={H32}{H32[:16]}", f"{H32}")
_form("jupyter-config-py", f"c.NotebookApp.token = '{H32}'\n", H32)
_form("jupyter-url-token", f"http://127.0.0.1:8888/lab?token={H32}{H32[:16]}", H32)
_form("mlflow-password-env", f"MLFLOW_TRACKING_PASSWORD={W}", W)
_form("ecr-docker-login", f"docker login -u AWS -p eyJwYXlsb2FkIjoi{b64(R+V)} 123.dkr.ecr.us-east-1.amazonaws.com", f"eyJwYXlsb2FkIjoi{b64(R+V)}"[:30])
# --- code
_form("go-setenv", f'os.Setenv("API_KEY", "{R}")', R)
_form("java-props-put", f'props.put("password", "{W}");', W)
_form("java-setproperty-put-mail", f'props.setProperty("mail.smtp.password", "{W}");', W)
_form("builder-withpassword", f'HikariConfig c = new HikariConfig(); c.setJdbcUrl(u); c.setUsername("bob"); c.setPassword("{W}");', W)
_form("builder-withPassword-chain", f'Client.builder().withUser("bob").withPassword("{W}").build()', W)
_form("csharp-networkcredential", f'new NetworkCredential("bob", "{W}")', W)
_form("csharp-auth-header", f'new AuthenticationHeaderValue("Bearer", "{R}{V}")', R+V)
_form("python-ftplib", f"ftp = ftplib.FTP('ftp.x.com', 'bob', '{W}')", W)
_form("python-paramiko", f"client.connect('h', username='bob', password='{W}')", W)
_form("python-minio", f"Minio('s3.x.com', access_key='AKIAIOSFODNN7QZ7VK2M', secret_key='{R}{V[:14]}')", R+V[:14])
_form("python-digestauth", f"requests.get(u, auth=HTTPDigestAuth('bob', '{W}'))", W)
_form("python-aiohttp-basicauth", f"aiohttp.BasicAuth('bob', '{W}')", W)
_form("python-httpx-basicauth", f"httpx.BasicAuth(username='bob', password='{W}')", W)
_form("python-tuple-assign", f'user, password = "bob", "{W}"', W)
_form("go-multi-assign", f'username, password := "bob", "{W}"', W)
_form("ruby-basic-auth", f"req.basic_auth('bob', '{W}')", W)
_form("go-setbasicauth", f'req.SetBasicAuth("bob", "{W}")', W)
_form("rust-basic-auth", f'client.get(u).basic_auth("bob", Some("{W}"))', W)
_form("rust-bearer-auth", f'client.get(u).bearer_auth("{R}{V}")', R+V)
_form("php-curlopt-userpwd", f'curl_setopt($ch, CURLOPT_USERPWD, "bob:{W}");', W)
_form("php-mysqli-connect", f'$db = mysqli_connect("db", "bob", "{W}", "app");', W)
_form("php-pdo", f'$pdo = new PDO("mysql:host=db;dbname=app", "bob", "{W}");', W)
_form("php-mysql-connect", f'mysql_connect("db", "bob", "{W}");', W)
_form("java-passwordauthentication", f'new PasswordAuthentication("bob", "{W}".toCharArray())', W)
_form("node-buffer-basic", f"const auth = Buffer.from('bob:{W}').toString('base64');", W)
_form("js-btoa", f"headers: {{ Authorization: 'Basic ' + btoa('bob:{W}') }}", W)
_form("python-b64encode-basic", f"base64.b64encode(b'bob:{W}')", W)
_form("ps-variable-password", f"$password = '{W}'", W)
_form("ps-invoke-rest-headers", f'Invoke-RestMethod -Uri $u -Headers @{{Authorization="Bearer {R}{V}"}}', R+V)
_form("ps-pscredential", f"$cred = New-Object PSCredential('bob', (ConvertTo-SecureString '{W}' -AsPlainText -Force))", W)
_form("ps-set-secret", f"Set-Secret -Name ApiKey -Secret '{R}'", R)
# --- SQL
_form("sql-alter-user-password-pg", f"ALTER USER bob PASSWORD '{W}';", W)
_form("sql-db-link", f"CREATE DATABASE LINK l CONNECT TO bob IDENTIFIED BY {W} USING 'db';", W)
_form("sql-user-mapping", f"CREATE USER MAPPING FOR bob SERVER s OPTIONS (user 'bob', password '{W}');", W)
_form("sql-change-master", f"CHANGE MASTER TO MASTER_HOST='db', MASTER_USER='repl', MASTER_PASSWORD='{W}';", W)
_form("sql-change-source", f"CHANGE REPLICATION SOURCE TO SOURCE_USER='repl', SOURCE_PASSWORD='{W}';", W)
_form("sql-snowflake-stage", f"CREATE STAGE s URL='s3://b' CREDENTIALS=(AWS_KEY_ID='AKIAIOSFODNN7QZ7VK2M' AWS_SECRET_KEY='{R}{V[:14]}');", R+V[:14])
_form("sql-redshift-copy", f"COPY t FROM 's3://b' CREDENTIALS 'aws_access_key_id=AKIAIOSFODNN7QZ7VK2M;aws_secret_access_key={R}{V[:14]}';", R+V[:14])
_form("sql-redshift-copy-keywords", f"COPY t FROM 's3://b' ACCESS_KEY_ID 'AKIAIOSFODNN7QZ7VK2M' SECRET_ACCESS_KEY '{R}{V[:14]}';", R+V[:14])
_form("sql-clickhouse-s3", f"SELECT * FROM s3('https://b.s3.amazonaws.com/x.csv', 'AKIAIOSFODNN7QZ7VK2M', '{R}{V[:14]}')", R+V[:14])
_form("sql-duckdb-secret", f"CREATE SECRET (TYPE S3, KEY_ID 'AKIAIOSFODNN7QZ7VK2M', SECRET '{R}{V[:14]}', REGION 'us-east-1');", R+V[:14])
_form("sql-insert-users", f"INSERT INTO users (name, password) VALUES ('bob', '{W}');", W)
_form("sql-grant-identified", f"GRANT ALL ON *.* TO 'bob'@'%' IDENTIFIED BY '{W}';", W)
_form("sql-psql-heredoc", f"psql <<EOF\nALTER ROLE app PASSWORD '{W}';\nEOF\n", W)
# --- tabular
_form("csv-header-password", f"username,password,role\nbob,{W},admin\n", W)
_form("csv-quoted", f'"user","api_key"\n"bob","{R}"\n', R)
_form("tsv-header", f"name\ttoken\nci\t{R}{V}\n", R+V)
_form("markdown-table", f"| user | password |\n|------|----------|\n| bob  | {W} |\n", W)
# --- YAML specifics
_form("yaml-folded-block", f"password: >-\n  {W}\n", W)
_form("yaml-literal-keep", f"api_key: |+\n  {R}\n\n", R)
_form("yaml-tag-str", f"password: !!str {W}\n", W)
_form("yaml-anchor-alias", f"x-pw: &pw {W}\nservices:\n  db:\n    environment:\n      DB_PASSWORD: *pw\n", W)
_form("yaml-complex-key", f"? password\n: {W}\n", W)
_form("yaml-number-password", "password: 48213377\n", "48213377")
_form("json-number-password", json.dumps({"pin": 4821, "password": 48213377}), "48213377")
_form("yaml-plain-multiline", f"token:\n  {R}\n  {V}\n", V)
_form("yaml-single-quoted-escape", f"password: '{W}''x'\n", W)
_form("yaml-binary-tag", f"secret: !!binary {b64(R)}\n", b64(R))
# --- TOML specifics
_form("toml-dotted-key", f'database.password = "{W}"\n', W)
_form("toml-literal-multiline", f"api_key = '''\n{R}\n'''\n", R)
_form("toml-inline-table", f'db = {{ user = "bob", password = "{W}" }}\n', W)
_form("toml-array-tables", f'[[servers]]\nname = "a"\npassword = "{W}"\n', W)
_form("toml-quoted-key", f'"db.password" = "{W}"\n', W)
# --- encodings
_form("json-escaped-slashes-url", f'{{"url":"https:\\/\\/bob:{R}@db.x.com\\/app"}}', R)
_form("go-json-u0026", f'"https://x/cb?a=1\\u0026password={W}"', W)
_form("html-amp-query", f'<a href="https://x/login?user=bob&amp;password={W}">', W)
_form("xml-escaped-element", f"&lt;password&gt;{W}&lt;/password&gt;", W)
_form("mime-encoded-word", f"Subject: =?utf-8?b?{b64('password: ' + W)}?=", W)
_form("data-url-b64", f"data:text/plain;base64,{b64('API_KEY=' + R + chr(10))}", R)
_form("u-escaped-yaml-key", f'"\\u0070assword": {W}\n', W)
_form("u-escaped-value-json-text", '{"password": "\\u0073unshine42"}', "unshine42")
_form("x-escaped-js", f"var k = '\\x61pi_key={R}';", R)
_form("double-b64", b64(b64(f"password={W}\n")), W)
_form("pct-in-b64", b64(pct(f"password={W}")), W)
_form("b64-netrc", b64(f"machine x.com login bob password {W}\n"), W)
_form("b64-docker-config", b64(json.dumps({"auths": {"r.x.com": {"auth": b64("bob:" + W)}}})), W)
_form("b64-pypirc", b64(f"[pypi]\nusername = __token__\npassword = pypi-AgEIcHlwaS5vcmc{R}\n"), R)
_form("b64-kubeconfig-client-key", b64(f"users:\n- name: u\n  user:\n    client-key-data: {b64('-----BEGIN RSA PRIVATE KEY-----' + chr(10) + PEMBODY + chr(10) + '-----END RSA PRIVATE KEY-----')}\n"), PEMBODY[:40])
_form("unicode-fullwidth-equals", f"PASSWORD\uff1d{W}", W)
_form("nbsp-separator", f"password:\u00a0{W}", W)
_form("zero-width-in-name", f"pass\u200bword={W}", W)
_form("tab-separated-prop", f"password\t{W}\n", W)
# --- HAR-ish / JSON bodies
_form("har-postdata-text-form", json.dumps({"postData": {"mimeType": "application/x-www-form-urlencoded", "text": f"grant_type=password&username=bob&password={W}"}}), W)
_form("har-response-token", json.dumps({"content": {"mimeType": "application/json", "text": json.dumps({"access_token": R + V, "refresh_token": V + R, "token_type": "Bearer"})}}), R+V)
_form("har-redirect-fragment", json.dumps({"redirectURL": f"https://app/cb#access_token={R}{V}&token_type=bearer"}), R+V)
_form("har-graphql-vars", json.dumps({"postData": {"text": json.dumps({"query": "mutation L($p:String!){login(password:$p)}", "variables": {"p": W}})}}), W)
_form("graphql-inline-arg", f'mutation {{ login(username: "bob", password: "{W}") {{ token }} }}', W)
_form("jsonrpc-params-positional", json.dumps({"jsonrpc": "2.0", "method": "user.login", "params": {"user": "Admin", "password": W}}), W)
_form("oauth-token-response-text", f'{{"access_token":"{R}{V}","expires_in":3600}}', R+V)
_form("saml-response", f"SAMLResponse={pct(b64('<samlp:Response><saml:Assertion>' + R + '</saml:Assertion></samlp:Response>'))}", b64('<samlp:Response><saml:Assertion>' + R)[:20])
_form("ws-url-token", f"wss://x.com/socket?token={R}{V}", R+V)
_form("grpc-metadata", f"grpcurl -H 'authorization: Bearer {R}{V}' x:443 svc/M", R+V)
_form("grpc-metadata-rpc", f"grpcurl -rpc-header 'x-api-key: {R}' x:443 svc/M", R)
# == further members of the classes found shown ==================================================
# prefixed tokens of vendors no row had
_form("cls-prov-netlify-env", f"NETLIFY_AUTH_TOKEN=nfp_{V}{R[:16]}", f"nfp_{V}")
_form("cls-prov-render-header", f"Authorization: Bearer rnd_{V}{R[:8]}", f"rnd_{V}")
_form("cls-prov-contentful-json", json.dumps({"cma": f"CFPAT-{V}{R}"}), f"CFPAT-{V}")
_form("cls-prov-hcik", f"honeycomb key hcik_01{V}{R}{V[:6]}", f"hcik_01{V}")
_form("cls-prov-aio-yaml", f"io:\n  k: aio_{(V+R)[:28]}\n", f"aio_{(V+R)[:28]}")
_form("cls-prov-atbb-url", f"https://x-token-auth:ATBB{V}{R}@bitbucket.org/w/r.git", f"ATBB{V}")
_form("cls-prov-pnu-prefect", f"prefect cloud login -k pnu_{(V+R)[:36]}", f"pnu_{(V+R)[:36]}")
_form("cls-prov-pcsk-py", f'Pinecone(api_key="pcsk_{R[:5]}_{V}{R}")', f"pcsk_{R[:5]}_{V}")
_form("cls-prov-lsv2-sk", f"lsv2_sk_{H32[::-1]}_{H32[:10]}", f"lsv2_sk_{H32[::-1]}")
_form("cls-prov-dckr-oat-cmd", f"echo dckr_oat_{V}{R[:4]} | docker login -u org --password-stdin", f"dckr_oat_{V}")
_form("cls-prov-resend-prose", f"use re_{V[:8]}_{R} to send", f"re_{V[:8]}_{R}")
_form("cls-prov-napi-neon", f"neon auth --api-key napi_{(V+R+V)[:64]}", f"napi_{(V+R+V)[:40]}")
_form("cls-prov-sb-secret-json", json.dumps({"key": f"sb_secret_{V}{R[:4]}"}), f"sb_secret_{V}")
_form("cls-prov-dropbox-hdr", f"Authorization: Bearer sl.u.{V}{R}{V}{R}{V}{R}", f"sl.u.{V}{R}")
_form("cls-prov-fly-fm1", f"FLY_API_TOKEN=fm1r_{b64(V+R+V+R)}", f"fm1r_{b64(V+R+V+R)[:30]}")
_form("cls-prov-braintree-sandbox", f"BT={'access_token$sandbox$' + H32[:16] + '$' + H32[::-1]}", H32[::-1])
_form("cls-prov-ecr-in-config", json.dumps({"password": "", "note": "eyJwYXlsb2FkIjoi" + b64(V+R+V+R+V)}), "eyJwYXlsb2FkIjoi" + b64(V+R+V+R+V)[:20])
_form("cls-prov-cloudflare-origin", f"CF_ORIGIN=v1.0-{H32[:24]}-{(H64+H64+H32)[:146]}", f"v1.0-{H32[:24]}")
_form("cls-prov-linear-oauth-json", json.dumps({"tok": f"lin_oauth_{H64[::-1]}"}), f"lin_oauth_{H64[::-1]}")
# private keys without their armor, JSON Web Keys, signing key files
_form("cls-der-pkcs8-json", json.dumps({"signing": "MIIEvgIBADANBgkqhkiG9w0BAQEFAASC" + V + R}), "MIIEvgIBADANBgkqhkiG9w0BAQEFAASC" + V)
_form("cls-der-pkcs1-2048", f"RSA=MIIEowIBAAKCAQEA{V}{R}", f"MIIEowIBAAKCAQEA{V}")
_form("cls-der-pkcs1-4096-yaml", f"key: MIIJKAIBAAKCAgEA{R}{V}\n", f"MIIJKAIBAAKCAgEA{R}")
_form("cls-der-pkcs8-small", f"MIICdgIBADANBgkqhkiG9w0BAQEFAASCAmAw{R}", f"MIICdgIBADANBgkqhkiG9w0BAQEFAASCAmAw{R}")
_form("cls-der-ed25519", f"ED_KEY=MC4CAQAwBQYDK2VwBCIEI{R[:22]}", f"MC4CAQAwBQYDK2VwBCIEI{R[:22]}")
_form("cls-der-ec-pkcs8", f"MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg{R}{V}", f"MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg{R}")
_form("cls-der-p384", f"MIGkAgEBBDA{R}{V}", f"MIGkAgEBBDA{R}")
_form("cls-der-pkcs12-env", f"P12=MIIJ0QIBAzCCCZcGCSqGSIb3DQEHAaCCCYgEggmEMIIJgDCCBDcGCSqGSIb3{R}", "MIIJ0QIBAzCCCZcGCSqGSIb3DQEHAaCCCYgEggmEMIIJgDCCBDcG")
_form("cls-openssh-body-json", json.dumps({"deploy_key": "b3BlbnNzaC1rZXktdjEAAAAACmFlczI1Ni1jdHI" + R}), "b3BlbnNzaC1rZXktdjEAAAAACmFlczI1Ni1jdHI" + R)
_form("cls-jwk-okp", json.dumps({"kty": "OKP", "crv": "Ed25519", "x": "11qYAY", "d": f"nWGxne_9Wm{R}"}), f"nWGxne_9Wm{R}")
_form("cls-jwk-rsa-crt", json.dumps({"kty": "RSA", "n": "sXch", "e": "AQAB", "dp": f"G4sPXkc6{R}", "dq": f"s9lAH9fg{V}", "qi": f"GyM_p6JrX{R}"}), f"s9lAH9fg{V}")
_form("cls-jwk-yaml", f"jwks:\n  keys:\n    - kty: oct\n      k: GawgguFy{R}\n", f"GawgguFy{R}")
_form("cls-jwk-in-string", json.dumps({"JWKS": json.dumps({"keys": [{"kty": "EC", "crv": "P-256", "d": f"870MB6gf{R}"}]})}), f"870MB6gf{R}")
_form("cls-minisign-escaped", json.dumps({"minisign.key": f"untrusted comment: minisign encrypted secret key\nRWRTY0Iy{V}{R}{V}\n"}), f"RWRTY0Iy{V}")
# a call given a credential's name and its value; setters and builders
_form("cls-call-config-set", f'config.set("api_key", "{R}")', R)
_form("cls-call-headers-put", f"headers.put('X-Api-Key', '{R}');", R)
_form("cls-call-map-of", f'Map.of("password", "{W}")', W)
_form("cls-call-env-map-add", f'env.add("DB_PASSWORD", "{P}");', P)
_form("cls-call-setdefault-json", json.dumps({"code": f"cfg.setdefault('secret_key', '{R}')"}), R)
_form("cls-call-with-token", f'Client.builder().withToken("{R}").build()', R)
_form("cls-call-with-api-key", f'new Client().withApiKey("{R}")', R)
_form("cls-call-put-secret", f"vault.putSecret('{R}')", R)
_form("cls-call-password-auth", f'new PasswordAuthentication("bob", "{W}")', W)
# a table's credential column, SQL rows, unpacking
_form("cls-tab-csv-three-rows", f"id,email,api_token\n1,a@x.com,{R}\n2,b@x.com,{V}\n", V)
_form("cls-tab-semicolon", f"name;passwort\nbob;{W}\n", W)
_form("cls-tab-tsv-quoted", f'"login"\t"password"\n"bob"\t"{P}"\n', P)
_form("cls-tab-markdown-spaced", f"| Service | API Key |\n| :--- | :---: |\n| stripe | {R} |\n", R)
_form("cls-tab-crlf", f"user,secret\r\nbob,{R}\r\n", R)
_form("cls-tab-in-heredoc", f"cat > users.csv <<EOF\nuser,password\nbob,{W}\nEOF\n", W)
_form("cls-sql-insert-many", f"INSERT INTO accounts (id, login, pass) VALUES (1, 'a', '{W}'), (2, 'b', '{R}');", R)
_form("cls-sql-insert-backticks", f"insert into `users` (`name`, `password_hash`) values ('bob', '{R}')", R)
_form("cls-sql-insert-double-quoted", f'INSERT INTO "creds" ("user", "token") VALUES (\'ci\', \'{R}\');', R)
_form("cls-unpack-three", f'host, user, password = "db", "bob", "{W}"', W)
_form("cls-unpack-go-token", f'id, token := 7, "{R}"', R)
_form("cls-unpack-js-const", f"const [user, apiKey] = ['bob', '{R}'];", R)
_form("cls-unpack-first", f"password, user = '{W}', 'bob'", W)
# flags run together before a user:password value; Go drivers' DSN; login=user:pass
_form("cls-cluster-curl-ksu", f"curl -ksu admin:{W} https://x/api", W)
_form("cls-cluster-curl-sSLu", f"curl -sSLu bob:{P} https://x", P)
_form("cls-cluster-wget-like", f"crontab: */5 * * * * curl -fsSu ci:{R} https://x/ping", R)
_form("cls-go-dsn-unix", f'dsn := "bob:{R}@unix(/var/run/mysqld.sock)/app"', R)
_form("cls-go-dsn-tcp6", f"DB_DSN=root:{W}@tcp6([::1]:3306)/app", W)
_form("cls-login-pair-eq", f"proxy login={'svc'}:{P} host=p.x", P)
# tools no row had
_form("cls-tool-mosquitto-passwd-bc", f"mosquitto_passwd -b -c /etc/mq/pw app {W}", W)
_form("cls-tool-htpasswd-i-echo", f"echo {W} | htpasswd -i -c .htpasswd bob", W)
_form("cls-tool-isql-quoted", f"isql -v prod bob '{P}'", P)
_form("cls-tool-security-create", f"security create-keychain -p {W} build.keychain", W)
_form("cls-tool-nuget-setapikey-cmd", f"nuget.exe setapikey {R} -Source https://nuget.x/v3", R)
_form("cls-tool-dotnet-k-sudo", f"sudo dotnet nuget push a.nupkg -k {R} -s https://x", R)
_form("cls-tool-nmcli-802", f"nmcli con mod w 802-11-wireless-security.psk {W}", W)
_form("cls-tool-dscl-sudo", f"sudo dscl . -passwd /Users/admin {W}", W)
_form("cls-tool-smbpasswd-herestring", f"smbpasswd -s -a bob <<< $'{W}\\n{W}'", W)
# a command inside $( … ) not at the line's start
_form("cls-subst-sshpass", f'OUT="$(sshpass -p {W} ssh h uptime)"', W)
_form("cls-subst-mysql", f"echo $(mysql -uroot -p{R} -e 'select 1')", R)
_form("cls-subst-procsub-curl", f"diff <(curl -su bob:{W} https://a) <(cat b)", W)
_form("cls-subst-openssl-passwd-var", f"HASH=$(openssl passwd -6 {W})", W)
# JWTs wrapped after a dot
_form("cls-jwt-wrapped-bearer", f"Authorization: Bearer {JWT_A}.\n{JWT_B}.\n{JWT_C}", JWT_C)
_form("cls-jwt-wrapped-crlf-all", f"{JWT_A}.\r\n{JWT_B}.\r\n{JWT_C}\r\n", JWT_B[:20])
# seed words
_form("cls-mnemonic-json", json.dumps({"wallet": {"mnemonic": "legal winner thank year wave sausage worth useful legal winner thank yellow"}}), "wave sausage worth useful")
_form("cls-recovery-phrase-env", 'RECOVERY_PHRASE="legal winner thank year wave sausage worth useful legal winner thank yellow"', "wave sausage worth useful")
_form("cls-mnemonic-flag", "wallet restore --mnemonic 'legal winner thank year wave sausage worth useful legal winner thank yellow'", "wave sausage worth useful")
# fmt: on

KNOWN_GAPS: dict[str, str] = {
    "az-functions-code": "Azure Functions' ``?code=``: a query name that holds a country's or an OAuth code as often",
    "az-sql-admin-password": "``az … -p X``: az's ``-p`` is read only after ``login`` (elsewhere it is a port or a path)",
    "gradle-in-memory-key": "``signingInMemoryKey``: a key named by how it is held, its last words no credential's",
    "bundle-config-env": "``BUNDLE_<HOST>=user:X``: a host written as a variable's name",
    "go-netrc-env": "a token as a URL's user beside a placeholder password (``TOKEN:x-oauth-basic@``)",
    "ansible-vault-pass-echo": "a file option given ``<(echo X)``: what the inside prints is the file, read as a command only",
    "redis-auth-cmd-lower": "an interactive prompt's line (``> auth X``)",
    "nats-nkey-seed": "a NATS seed: no literal but ``S`` and a type letter to anchor on",
    "nats-creds-file": "a NATS seed (its armor has no PRIVATE KEY)",
    "airtable-pat": "``pat`` + 14 + ``.`` + 64 hex digits: ``pat`` starts words",
    "ngrok-authtoken-shape": "no literal to anchor on",
    "azure-storage-key-bare-88": "bare base64 with no name (as a bare AWS secret key)",
    "jwt-split-midpart": "a JWT wrapped inside a part (only a break after a dot is read)",
    "wif-key": "a wallet key under a name that says only its format",
    "stellar-secret": "a wallet key under a name that says only its chain (``seed`` is a training seed)",
    "solana-keypair": "a key as a list of numbers",
    "query-hmac-shopify": "a query's ``hmac``: no credential stem",
    "query-ticket-cas": "a query's ``ticket``: no credential stem",
    "cisco-snmp-community": "a network device's ``community X`` line",
    "cisco-tacacs-key": "a network device's ``key X`` after a server",
    "cisco-radius-key": "a network device's ``key X`` after a server",
    "davfs2-secrets-line": "a file of positional lines (URL, user, password) with no name",
    "chap-secrets-line": "a file of positional lines (client, server, secret) with no name",
    "rsyncd-secrets": "``user:X`` written to a ``*.secrets`` file: no rule reads a file's name for its lines' format",
    "consul-encrypt": "``encrypt``: a gossip key under a word that names a setting elsewhere",
    "consul-encrypt-json": "``encrypt``: a gossip key under a word that names a setting elsewhere",
    "nomad-encrypt-cmd": "``-encrypt=``: a gossip key under a word that names a setting elsewhere",
    "plist-key-string": "a plist's ``<key>`` then ``<string>``: a value beside its name's element",
    "csharp-auth-header": "a scheme given as its own argument",
    "python-ftplib": "positional arguments of a call no table names",
    "rust-basic-auth": "the password inside ``Some(…)``",
    "php-curlopt-userpwd": "``user:X`` as a call's argument beside a constant's name",
    "php-mysqli-connect": "positional arguments of a call no table names (four of them)",
    "php-pdo": "positional arguments of a call no table names",
    "php-mysql-connect": "positional arguments of a call no table names",
    "java-passwordauthentication": '``"X".toCharArray()``: a method called on the literal',
    "node-buffer-basic": "a ``user:X`` literal about to be encoded",
    "python-b64encode-basic": "a ``user:X`` literal about to be encoded",
    "yaml-complex-key": "YAML's explicit key (``? password``)",
    "har-graphql-vars": "a GraphQL variable given the password elsewhere in the document",
    "saml-response": "``SAMLResponse``: a signed assertion under no credential's name",
}

#: Near misses of this round's rules: options whose value must be attached, prompts for a password,
#: tables, rows and unpackings with no credential, certificates and public keys, public JWKs, calls
#: given no value, seed settings, substitutions with nothing in them.
CLEAN = [
    "mysql -u root -p app",
    "mysqldump -uroot -p db > dump.sql",
    "mysql --password app < schema.sql",
    "mariadb -h db -u bob -p wordpress",
    "htpasswd -c /etc/nginx/.htpasswd bob",
    "htpasswd -n bob",
    "htpasswd -B -C 10 /etc/apache2/.htpasswd alice",
    "mosquitto_passwd -c /etc/mosquitto/passwd bob",
    "dscl . -read /Users/bob",
    "nuget push a.nupkg -Source https://nuget.x/v3",
    "a, b = 1, 2\n",
    "host, port = 'db', 5432\n",
    "x, y = compute(a, b)\n",
    "name,count,role\nbob,3,admin\n",
    "id,token_count\n1,12\n",
    "user,password\nbob,${PW}\n",
    "| Name | Type |\n|---|---|\n| password | string |\n",
    "INSERT INTO users (name, role) VALUES ('bob', 'admin');",
    "INSERT INTO users (name, password_hash) VALUES ('bob', NULL);",
    "curl -fsSL https://get.x.com/install.sh | sh",
    "curl -fsSL -o out.tar.gz https://x/f",
    "sql.Open(driver, dsn)",
    "MIIDdzCCAl+gAwIBAgIJAJx3n2Q7vK2mMA0GCSqGSIb3DQEBCwUAMFIxCzAJBgNVBAYTAlVT",
    "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0t",
    json.dumps(
        {
            "kty": "RSA",
            "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtV",
            "e": "AQAB",
            "kid": "k1",
        }
    ),
    json.dumps(
        {
            "kty": "EC",
            "crv": "P-256",
            "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
            "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0",
        }
    ),
    'config.get("password", "")',
    'props.put("password", System.getenv("DB_PASSWORD"));',
    'headers.put("X-Request-Id", "3f2b8c1e")',
    "mnemonic_length: 12\n",
    "The mnemonic is a memory aid.",
    "login: bob\n",
    "login = 1000:1000\n",
    "echo $(date) $(whoami)",
    'OUT="$(uname -a)"',
    "nmcli con up HomeNet",
    "db2 connect to SAMPLE",
    "security find-identity -p codesigning -v",
]

#: Forms shown in one container of tests/test_secrets_compose.py only (strict xfails there).
CONTAINER_GAPS: dict[tuple[str, str], str] = {
    # (base64 of a text holding a no-break or zero-width space: read as text since the tenth round)
    ("cls-call-put-secret", "bash-c"): "a call's quotes written ``'\"'\"'`` inside ``bash -c '…'``",
}

globals().update(form_tests(FORMS, KNOWN_GAPS, at_least=600, container_gaps=CONTAINER_GAPS, clean=CLEAN))


# --- every form in holders and encodings -----------------------------------------------------------


KEPT = [form for form in FORMS if form[0] not in KNOWN_GAPS]

#: Forms shown in one holder and encoding of the shared composition (tests/secret_forms.py: HOLDERS,
#: ENCODINGS) only: left out of it, each a strict xfail in that holder.
#: (YAML scalars in HTML and a call's quotes in ``bash -c '…'``: closed by tests/test_secrets_round12.py.)
HELD_GAPS: dict[tuple[str, str, str], str] = {
    ("kafka-eventhubs-jaas", "html", "plain"): "a JAAS value quoted with ``&quot;`` holding ``;``",
    ("poetry-config-token", "ini-doc", "escaped-json"): "a command as an INI value's escaped text",
    ("poetry-config-token-private", "ini-doc", "escaped-json"): "a command as an INI value's escaped text",
    ("mnemonic", "html", "percent"): "seed words as percent-encoded HTML",
    ("keycloak-kcadm", "bare", "percent"): "a command whose last option is percent-encoded",
    ("webconfig-appsettings", "html", "percent"): "an ``<add key= value=>`` as percent-encoded HTML",
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

SECRETS = st.sampled_from([R, "hunter2x", "Tr0ub4dor&3", "x7Qz9!pL", "P@ssw0rd"])
PLAIN_SECRETS = st.sampled_from([R, "hunter2x", "x7Qz9pL4", "P4ssw0rd", V])
BASE64 = st.text(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", min_size=40, max_size=120
)
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def _exactly(text: str, secret: str) -> None:
    """``secret`` is masked in ``text`` and nothing else changes."""
    assert scrub(text) == text.replace(secret, mask(secret)), scrub(text)


#: Holders of a bare token: as it stands, an env var of no credential's name, a JSON string, a header.
TOKEN_HOLDERS = ["{t}", "CONFIG_VALUE={t}", '{{"value": "{t}"}}', "X-Forwarded-Thing: {t}", "use {t} now"]


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(
    token=st.sampled_from(
        [
            ("nfp_", ALNUM, 40),
            ("rnd_", ALNUM, 32),
            ("lin_oauth_", "0123456789abcdef", 64),
            ("CFPAT-", ALNUM + "_-", 43),
            ("hcaik_", ALNUM, 58),
            ("aio_", ALNUM, 28),
            ("ATBB", ALNUM, 40),
            ("pnu_", ALNUM, 36),
            ("lsv2_pt_", "0123456789abcdef", 32),
            ("dckr_oat_", ALNUM, 27),
            ("napi_", ALNUM, 64),
            ("sb_secret_", ALNUM, 32),
            ("sl.", ALNUM, 140),
            ("fm2_", ALNUM, 90),
            ("eyJwYXlsb2FkIjoi", ALNUM, 120),
        ]
    ),
    data=st.data(),
    holder=st.sampled_from(TOKEN_HOLDERS),
)
def test_a_vendor_prefixed_token(token: tuple[str, str, int], data: st.DataObject, holder: str) -> None:
    prefix, alphabet, size = token
    body = data.draw(st.text(alphabet, min_size=size, max_size=size).filter(lambda b: len(set(b)) > 8))
    secret = prefix + body
    if prefix == "lsv2_pt_":
        secret += "_" + data.draw(st.text("0123456789abcdef", min_size=10, max_size=10))
    text = holder.format(t=secret)
    assert not shown(secret, scrub(text)), scrub(text)


@settings(max_examples=120, deadline=None, derandomize=True, database=None)
@given(
    header=st.sampled_from(
        [
            "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
            "MIIEpAIBAAKCAQEA",
            "MIIEowIBAAKCAQEA",
            "MIIJKAIBAAKCAgEA",
            "MIICXAIBAAKBgQC",
            "MIIKYQIBAzCCCicGCSqGSIb3DQEHAaCC",
            "MHcCAQEEI",
            "MC4CAQAwBQYDK2VwBCIEI",
            "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU",
        ]
    ),
    body=BASE64,
    holder=st.sampled_from(["{k}", "KEY_B64={k}", '{{"signing": "{k}"}}', "key:\n  value: {k}\n"]),
)
def test_a_private_key_without_its_armor(header: str, body: str, holder: str) -> None:
    secret = header + body
    text = holder.format(k=secret)
    assert not shown(secret, scrub(text)), scrub(text)


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(
    header=st.sampled_from(
        [
            "MIIDdzCCAl+gAwIBAgIJ",  # a certificate
            "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA",  # a public key (SPKI)
            "MIIBCgKCAQEA",  # an RSA public key (PKCS#1)
            "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE",  # an EC public key
            "AAAAB3NzaC1yc2EAAAADAQABAAABAQ",  # an OpenSSH public key's body
        ]
    ),
    body=st.text(ALNUM, min_size=20, max_size=60),
)
def test_certificates_and_public_keys_stay(header: str, body: str) -> None:
    text = f"cert: {header}{body}\n"
    assert scrub(text) == text


@settings(max_examples=80, deadline=None, derandomize=True, database=None)
@given(
    kty=st.sampled_from(["RSA", "EC", "OKP", "oct"]),
    member=st.sampled_from(["d", "p", "q", "dp", "dq", "qi", "k"]),
    value=st.text(ALNUM + "_-", min_size=16, max_size=60).filter(lambda v: len(set(v)) > 6),
    nested=st.booleans(),
    form=st.sampled_from(["json", "yaml", "string"]),
)
def test_a_json_web_keys_private_members(kty: str, member: str, value: str, nested: bool, form: str) -> None:
    key = {"kty": kty, "kid": "k1", "e": "AQAB", member: value}
    document: Any = {"keys": [key]} if nested else key
    if form == "json":
        text = json.dumps(document)
    elif form == "yaml":
        text = f"kty: {kty}\nkid: k1\n{member}: {value}\n"
    else:
        text = json.dumps({"JWKS": json.dumps(document)})
    assert not shown(value, scrub(text)), scrub(text)
    assert "AQAB" in scrub(text) or form == "yaml"


@settings(max_examples=120, deadline=None, derandomize=True, database=None)
@given(
    call=st.sampled_from(
        ["props.put", "config.set", "cfg.setdefault", "Map.of", "env.add", "settings.update_one", "h.append"]
    ),
    name=st.sampled_from(["password", "api_key", "DB_PASSWORD", "X-Api-Key", "client_secret", "authToken"]),
    quote=st.sampled_from(['"', "'"]),
    secret=PLAIN_SECRETS,
)
def test_a_call_given_a_credentials_name_and_its_value(call: str, name: str, quote: str, secret: str) -> None:
    text = f"{call}({quote}{name}{quote}, {quote}{secret}{quote});"
    _exactly(text, secret)


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(
    call=st.sampled_from(["props.put", "config.set", "Map.of", "h.append"]),
    name=st.sampled_from(["region", "timeout", "X-Request-Id", "user", "password_policy"]),
    value=st.sampled_from(["eu-west-1", "30s", "3f2b8c1e", "bob", "strict"]),
)
def test_a_call_given_another_name_stays(call: str, name: str, value: str) -> None:
    text = f'{call}("{name}", "{value}");'
    assert scrub(text) == text


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(
    verb=st.sampled_from(["with", "set", "put"]),
    noun=st.sampled_from(["Password", "ApiKey", "Token", "ClientSecret", "SecretKey"]),
    chain=st.sampled_from(["b.", "Client.builder().", "new X()."]),
    secret=PLAIN_SECRETS,
)
def test_a_setter_of_any_verb(verb: str, noun: str, chain: str, secret: str) -> None:
    _exactly(f'{chain}{verb}{noun}("{secret}")', secret)


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(
    separator=st.sampled_from([",", "\t", ";", "|"]),
    names=st.lists(
        st.sampled_from(["id", "user", "email", "role", "host", "port", "created_at"]),
        min_size=1,
        max_size=4,
        unique=True,
    ),
    credential=st.sampled_from(["password", "api_key", "token", "secret", "Passwort", "client_secret"]),
    at=st.integers(0, 4),
    secrets=st.lists(PLAIN_SECRETS, min_size=1, max_size=4),
    crlf=st.booleans(),
)
def test_a_credentials_column(
    separator: str, names: list[str], credential: str, at: int, secrets: list[str], crlf: bool
) -> None:
    header = [*names]
    header.insert(min(at, len(header)), credential)
    column = header.index(credential)
    rows = []
    for index, secret in enumerate(secrets):
        cells = [f"v{index}{c}" for c in range(len(header))]
        cells[column] = secret
        rows.append(cells)
    end = "\r\n" if crlf else "\n"

    def line(cells: list[str]) -> str:
        joined = (" | " if separator == "|" else separator).join(cells)
        return f"| {joined} |" if separator == "|" else joined

    lines = [line(header)]
    if separator == "|":
        lines.append(line(["---"] * len(header)))
    lines += [line(cells) for cells in rows]
    text = end.join(lines) + end
    scrubbed = scrub(text)
    for secret in secrets:
        assert not shown(secret, scrubbed), scrubbed
    for index in range(len(secrets)):  # the other columns stay
        for c in range(len(header)):
            if c != column:
                assert f"v{index}{c}" in scrubbed


@settings(max_examples=80, deadline=None, derandomize=True, database=None)
@given(
    columns_=st.lists(st.sampled_from(["id", "name", "email", "role"]), min_size=1, max_size=3, unique=True),
    credential=st.sampled_from(["password", "api_token", "secret_key", "pwd"]),
    at=st.integers(0, 3),
    secrets=st.lists(PLAIN_SECRETS.filter(lambda s: "'" not in s), min_size=1, max_size=3),
)
def test_an_sql_rows_credential_column(
    columns_: list[str], credential: str, at: int, secrets: list[str]
) -> None:
    names = [*columns_]
    names.insert(min(at, len(names)), credential)
    column = names.index(credential)
    rows = []
    for index, secret in enumerate(secrets):
        values = [f"'v{index}{c}'" if c % 2 else str(index * 10 + c) for c in range(len(names))]
        values[column] = f"'{secret}'"
        rows.append("(" + ", ".join(values) + ")")
    text = f"INSERT INTO t ({', '.join(names)}) VALUES {', '.join(rows)};"
    scrubbed = scrub(text)
    for secret in secrets:
        assert not shown(secret, scrubbed), scrubbed
    assert scrubbed.count("<secret:") == len(secrets)


@settings(max_examples=100, deadline=None, derandomize=True, database=None)
@given(
    others=st.lists(
        st.sampled_from(["user", "host", "port", "name", "region"]), min_size=1, max_size=3, unique=True
    ),
    credential=st.sampled_from(["password", "token", "api_key", "apiKey", "SECRET"]),
    at=st.integers(0, 3),
    operator=st.sampled_from([" = ", " := ", "="]),
    brackets=st.sampled_from(["", "[]", "()"]),
    secret=PLAIN_SECRETS,
)
def test_an_unpacking_gives_each_name_its_value(
    others: list[str], credential: str, at: int, operator: str, brackets: str, secret: str
) -> None:
    names = [*others]
    names.insert(min(at, len(names)), credential)
    values = [f'"v{i}"' for i in range(len(names))]
    values[names.index(credential)] = f'"{secret}"'
    left, right = ", ".join(names), ", ".join(values)
    if brackets:
        left, right = f"{brackets[0]}{left}{brackets[1]}", f"{brackets[0]}{right}{brackets[1]}"
    _exactly(f"{left}{operator}{right}\n", secret)


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(
    flags=st.text("fsSLkvi", min_size=1, max_size=4),
    user=st.sampled_from(["bob", "ci", "admin"]),
    secret=PLAIN_SECRETS.filter(lambda s: "!" not in s),
)
def test_short_flags_run_together_before_a_user_and_password(flags: str, user: str, secret: str) -> None:
    _exactly(f"curl -{flags}u {user}:{secret} https://x/api", secret)


@settings(max_examples=80, deadline=None, derandomize=True, database=None)
@given(
    tool=st.sampled_from(["mysql", "mysqldump", "mariadb", "mysqladmin"]),
    database=st.sampled_from(["app", "wordpress", "test_db_2024", "prod", "my-db"]),
    user=st.sampled_from(["-u root", "-uroot", "--user=bob"]),
    option=st.sampled_from(["-p", "--password"]),
)
def test_a_password_option_taking_only_an_attached_value(
    tool: str, database: str, user: str, option: str
) -> None:
    prompted = f"{tool} {user} {option} {database}"
    if option == "-p" or database.isalpha():  # (``--password test_db_2024``: the named-value reader's,
        assert scrub(prompted) == prompted  # which knows no tool, masks a value with digits)
    given_ = f"{tool} {user} -p{R} {database}"
    _exactly(given_, R)
    _exactly(f"{tool} {user} --password={R} {database}", R)
    _exactly(f"{tool} {user} -p {R}", R)  # (a generated word after ``-p``: a password given the wrong way)


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(
    tool=st.sampled_from(["htpasswd", "mosquitto_passwd"]),
    flags=st.sampled_from(["-b", "-bc", "-cb", "-b -c", "-nb", "-Bb"]),
    secret=PLAIN_SECRETS.filter(lambda s: "!" not in s),
)
def test_a_positional_password_only_with_its_option(tool: str, flags: str, secret: str) -> None:
    _exactly(f"{tool} {flags} /etc/pw bob {secret}", secret)
    prompted = f"{tool} {flags.replace('b', '')} /etc/pw bob".replace("  ", " ").replace(" - ", " ")
    assert scrub(prompted) == prompted


@settings(max_examples=80, deadline=None, derandomize=True, database=None)
@given(
    inner=st.sampled_from(
        [
            "openssl passwd -6 {s}",
            "mysql -uroot -p{s} -e 'select 1'",
            "sshpass -p {s} ssh h uptime",
            "curl -su bob:{s} https://x",
            "htpasswd -nb bob {s}",
        ]
    ),
    outer=st.sampled_from(
        ['useradd -p "$({c})" bob', "echo $({c})", "H=$({c})", "diff <({c}) b", 'OUT="$({c})"; echo "$OUT"']
    ),
    secret=PLAIN_SECRETS.filter(lambda s: "!" not in s),
)
def test_a_command_inside_a_substitution(inner: str, outer: str, secret: str) -> None:
    text = outer.format(c=inner.format(s=secret))
    assert not shown(secret, scrub(text)), scrub(text)


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(
    breaks=st.sampled_from([("\n", "\n"), ("\r\n", "\r\n"), ("\n", ""), ("", "\n"), ("\n    ", "\n    ")]),
    holder=st.sampled_from(["{t}", "Authorization: Bearer {t}", "token:\n    {t}\n", "id_token={t}"]),
)
def test_a_jwt_wrapped_after_a_dot(breaks: tuple[str, str], holder: str) -> None:
    first, second = breaks
    token = f"{JWT_A}.{first}{JWT_B}.{second}{JWT_C}"
    scrubbed = scrub(holder.format(t=token))
    assert not shown(JWT_C, scrubbed) and not shown(JWT_B, scrubbed), scrubbed


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(
    name=st.sampled_from(
        ["MNEMONIC", "mnemonic", "seed_phrase", "SEED_PHRASE", "recoveryPhrase", "wallet_phrase"]
    ),
    syntax=st.sampled_from(['{n}="{v}"', "{n}: {v}\n", "json"]),
    words=st.lists(
        st.sampled_from(["legal", "winner", "thank", "year", "wave", "sausage", "worth", "useful"]),
        min_size=12,
        max_size=12,
    ),
)
def test_a_wallets_seed_words(name: str, syntax: str, words: list[str]) -> None:
    phrase = " ".join(words)
    text = json.dumps({name: phrase}) if syntax == "json" else syntax.format(n=name, v=phrase)
    scrubbed = scrub(text)
    assert not shown(phrase, scrubbed), scrubbed
    assert phrase not in json.dumps(masked({name: phrase}))


# --- linear work ---------------------------------------------------------------------------------


def _work(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The characters the column reader splits and the values it reads, counted."""
    count = [0]
    cells, row = columns._cells, columns._row

    def counted_cells(line: str, separator: str) -> list[tuple[int, int]]:
        count[0] += len(line)
        return cells(line, separator)

    def counted_row(text: str, at: int, close: str) -> tuple[int, list[tuple[int, int]]]:
        stop, values = row(text, at, close)
        count[0] += stop - at
        return stop, values

    monkeypatch.setattr(columns, "_cells", counted_cells)
    monkeypatch.setattr(columns, "_row", counted_row)
    return count


@pytest.mark.parametrize(
    "unit",
    [
        "user,password,role\nbob,hunter2x,admin\n",  # tables, one after another
        "bob,hunter2x,admin\n",  # one table's rows (a header first)
        "user, password = 'bob', 'hunter2x'\n",  # unpackings
        "INSERT INTO t (name, password) VALUES ('bob', 'hunter2x'), ",  # rows of one INSERT
        "a,password,b,password,c,password\n",  # headers with nothing under them
        "password, " * 8 + "\n",  # names listed, no assignment
    ],
)
def test_the_column_reader_works_linearly(monkeypatch: pytest.MonkeyPatch, unit: str) -> None:
    count = _work(monkeypatch)
    head = "user,password,role\n" if unit.startswith("bob,") else ""
    tail = "('x', 'y');" if unit.startswith("INSERT") else ""
    work = []
    for times in (200, 800):
        text = head + (unit if not unit.startswith("INSERT") else unit.replace(", ", "", 0)) * times + tail
        if unit.startswith("INSERT"):
            text = "INSERT INTO t (name, password) VALUES " + "('bob', 'hunter2x'), " * times + tail
        count[0] = 0
        columns.spans(text)
        work.append(count[0])
    assert work[0] > 0
    assert work[1] <= 4.5 * work[0], work
