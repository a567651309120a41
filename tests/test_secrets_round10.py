# ruff: noqa: E501, RUF001, RUF002  (the table of forms: one row a line, each token written whole; full-width text is a form)
"""Credential forms of a tenth round, and the error lines that quote what a user gave.

Credential forms of a tenth round: 367 forms of kinds the earlier tables had not tried (clouds and
SaaS in new places: Azure SAS and storage keys in PowerShell, appsettings and Service Bus strings, GCP
service-account keys in Python and YAML, STS JSON, Cloudflare, DigitalOcean, Stripe, Twilio,
SendGrid, Slack, Discord, Telegram, GitLab, npm, PyPI, Docker, JFrog, Databricks, Snowflake, Grafana,
Datadog, PagerDuty, Sentry, Firebase, Supabase, Okta, Auth0, …; documents inside strings: netrc,
npmrc, pypirc, docker config, kubeconfig, Java keystores, Spring, dotenv, Poetry, Maven, systemd,
crontab, Dockerfile, compose, GitHub Actions, Jenkins, Makefile, SQL's ``CREATE USER``/``ALTER
ROLE``/``CREATE LOGIN``/``CREATE CREDENTIAL``, Redis, JDBC, ODBC, LDAP, SMTP, JAAS, WPA, CIFS; split or
disguised: concatenated literals, URL fragments, presigned URLs, cookies, HTTP dumps, tracebacks,
colours, CRLF, full-width text, characters of no width, Markdown; shell secret stores and forty
tools; code in sixteen languages), then 54 written for the classes found shown (``cls-…``).

Found shown before this round: 46 of the 367 (in scrub, some holder and encoding of
tests/secret_forms.py, a container or a payload place) and 43 of the 54; left: 13 (``KNOWN_GAPS``)
and 5 shown in one holder or container only (``HELD_GAPS``, ``CONTAINER_GAPS``). The classes, each
fixed by a rule:

- **text as a terminal or a typesetter writes it**: colours (ANSI escapes) between a name and its
  value, full-width ASCII (``ｐａｓｓｗｏｒｄ＝x``), spaces of other widths (no-break, ideographic),
  characters of no width inside a name: read as plain text too (the ``terminal`` view of
  ``encodings.py``), and base64 of such text is text;
- **a declaration's type between a name and its value** (``DECLARED_TYPES``: ``val password: String
  = "x"``, ``const TOKEN: &str = "x"``, ``var pw string = "x"``, Bicep's ``param pw string = 'x'``,
  ``api_key: SecretStr = SecretStr("x")``): ``val password: String = "x"`` masked ``String`` and
  showed ``x``; a type alone is no value (``password: str``), nor ``SecretStr`` a name;
- **a name set off by emphasis, brackets or a code span** (``**Password:** x``, ``**token**: x``,
  PHP's ``[password] => x``, ```DB_PASSWORD`: x``) and **a Markdown table's row** (``| API_TOKEN |
  `x` |``: two cells, a word or a code span);
- **a default after a reference** (``process.env.KEY || "x"``, ``?? "x"``, ``or "x"``): the reference
  was masked (a false mask) and the default shown; a reference to an environment variable in code is
  no value (``const key = process.env.API_KEY;`` was masked);
- **a key given by position to a call that signs or encrypts with it** (``POSITIONAL_CALLS``:
  ``jwt.encode(payload, X)``, ``jwt.sign``, ``jwt.verify``, ``jwt.decode``, ``hmac.new(X, …)``,
  ``Fernet(X)``, ``algoliasearch(app, X)``; ``new NetworkCredential("u", X, "DOMAIN")`` masked the
  domain and showed the password); the arguments after the key are not read (``algorithm='HS256'``
  made the call unreadable); Twilio's account SID and its token (``KEY_PAIRS``);
- **a token split over string literals** (``"sk-" + "proj-…"``: the ``joined`` view);
- **what ``tee`` writes to a file named like a credential** (``STDIN_WRITERS``), and readers of
  standard input no row had (``secret-tool store``, ``terraform login``, ``tofu login``);
- **an argument list's item holding a short option with its value attached** (``["mysql",
  "-uroot", "-pX"]``: the item read as an option, no value);
- **a URL's password holding a ``#``** (``postgres://bob:pa#ss@db``), **a user and a password after a
  pair's word and a colon** (``login: bob / x``), **a builder's method given a credential**
  (``.password("x")``, ``.apiKey("x")``);
- a false mask: ``<add key="DbPassword" value="x"/>`` masked the key attribute's value (the pair's
  name).

Output channels: an error line (``Error: …``, ``note: …``) masked token shapes only, so a credential
given by a command's syntax or a URL's password in a value the error quotes (a file's name, an
option's value, click's usage errors) was shown: 7 of 93 error lines tried (``--api-version``,
``serve --host``, ``redact`` of a broken file in a folder named ``password=…``, an extra argument of
``generate`` and ``rules``). Now a secret found in any argument the command line was given is masked
wherever the line quotes it, in part too (``cli/options.py``, ``reading.mask_given``).

Each form is held to the checks of tests/secret_forms.py (scrub, every container, payload places,
``redact --check``/``redact``, every validate, diff and timeline output) and composed with every
holder and encoding (``held_test``); the hypothesis tests below try each class beyond its rows, and
near misses must stay as they are.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.secrets import scrub
from tests.linear_support import CountingPattern, assert_linear, named_work, work_of
from tests.secret_forms import b64, form_tests, held_test, shown

R = "Xk4Tq9Vz2Lm7Pw3Rb8Nc5Hd1Jf"  # random-looking, 26 characters
V = "Gt6Yp2Ws9Qe4Ua7Io3Kj8Mn5"  # another, 24
W = "marigold77"  # a wordy password
P = "Qw9!zX#4vB&7nM"  # punctuation
H32 = "5e884898da28047151d0e56f8dc62927"
H40 = "7c4a8d09ca3762af61e59520943dc26494f8941b"
H64 = H32 + H32[::-1]
UUID = "8d3c2b1a-4e5f-4a6b-9c7d-0e1f2a3b4c5d"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJyb2xlIjoic2VydmljZV9yb2xlIiwiaXNzIjoic3VwYWJhc2UifQ."
    "c2lnbmF0dXJlX29mX3RoZV9zZXJ2aWNlX2tleV94eXo"
)
AK = "AKIAZ7Q4V2LM9PW3RB8N"
SK = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYz9Q4V2LM9P"  # 40
ST = "IQoJb3JpZ2luX2VjEH8aCXVzLWVhc3QtMSJHMEUCIQD" + R + V + "AAAA"
AZK = b64("azure-storage-account-key-64-bytes-long-for-test-" + "x" * 15)  # 88 characters
PEMBODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC" + R
PEM = f"-----BEGIN PRIVATE KEY-----\n{PEMBODY}\n{V}{R}==\n-----END PRIVATE KEY-----\n"

#: ``(id, text, secret)``: the secret must not be shown once ``text`` is read.
FORMS: list[tuple[str, str, str]] = []


def _form(name: str, text: str, secret: str) -> None:
    FORMS.append((name, text, secret))


# fmt: off

# --- clouds and SaaS in new places
_form("az-sas-json-query", json.dumps({"url": "https://acct.blob.core.windows.net/c/b", "query": {"sv": "2022-11-02", "ss": "b", "sig": R + V + "%3D"}}), R + V)
_form("az-sas-bare-token", f"sv=2022-11-02&ss=bfqt&srt=sco&sp=rwdlacup&se=2026-01-01T00:00:00Z&sig={R}{V}%3D", R + V)
_form("az-sas-ps", f'$ctx = New-AzStorageContext -StorageAccountName acct -SasToken "?sv=2022-11-02&sig={R}{V}%3D"', R + V)
_form("az-storage-account-key-ps", f'New-AzStorageContext -StorageAccountName acct -StorageAccountKey "{AZK}"', AZK)
_form("az-conn-appsettings", json.dumps({"ConnectionStrings": {"Storage": f"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={AZK};EndpointSuffix=core.windows.net"}}), AZK)
_form("az-conn-env-quoted", f'AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={AZK}"', AZK)
_form("az-servicebus-sas-key", f"Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={R}{V}=", R + V)
_form("az-eventhub-sas-sig", f"SharedAccessSignature sr=ns.servicebus.windows.net&sig={R}{V}%3D&se=1700000000&skn=Root", R + V)
_form("az-cli-storage-key", f"az storage blob upload --account-name acct --account-key {AZK} -f x -c c", AZK)
_form("az-keyvault-output", json.dumps({"id": "https://kv.vault.azure.net/secrets/db/1", "value": P, "attributes": {"enabled": True}}), P)
_form("gcp-sa-json-escaped", json.dumps({"type": "service_account", "project_id": "p", "private_key_id": H40, "private_key": PEM, "client_email": "sa@p.iam.gserviceaccount.com"}), PEMBODY)
_form("gcp-sa-pydict", "creds = {'type': 'service_account', 'private_key': '" + PEM.replace("\n", "\\n") + "', 'client_email': 'sa@p.iam'}", PEMBODY)
_form("gcp-sa-yaml", "gcp:\n  private_key: \"" + PEM.replace("\n", "\\n") + "\"\n  client_email: sa@p.iam\n", PEMBODY)
_form("gcp-hmac-secret", f"gsutil config: gs_access_key_id = GOOG1E{R}{V[:10]}\ngs_secret_access_key = {SK}\n", SK)
_form("gcp-boto-cfg", f"[Credentials]\ngs_oauth2_refresh_token = 1//0g{R}{V}\n", R + V)
_form("aws-session-token-ini", f"[default]\naws_access_key_id = ASIAZ7Q4V2LM9PW3RB8N\naws_secret_access_key = {SK}\naws_session_token = {ST}\n", ST[:40])
_form("aws-sts-json", json.dumps({"Credentials": {"AccessKeyId": "ASIAZ7Q4V2LM9PW3RB8N", "SecretAccessKey": SK, "SessionToken": ST, "Expiration": "2026-01-01T00:00:00Z"}}), SK)
_form("aws-sts-json-token", json.dumps({"Credentials": {"AccessKeyId": "ASIAZ7Q4V2LM9PW3RB8N", "SecretAccessKey": SK, "SessionToken": ST}}), ST[:40])
_form("aws-credential-process-out", json.dumps({"Version": 1, "AccessKeyId": AK, "SecretAccessKey": SK}), SK)
_form("aws-boto3-session-token", f'boto3.client("s3", aws_access_key_id="{AK}", aws_secret_access_key="{SK}", aws_session_token="{ST}")', SK)
_form("aws-dockerfile-arg", f"ARG AWS_SECRET_ACCESS_KEY={SK}\nRUN aws s3 cp s3://b/x .", SK)
_form("aws-js-config", f"new AWS.Config({{ accessKeyId: '{AK}', secretAccessKey: '{SK}' }})", SK)
_form("aws-export-env-cmd", f"env AWS_ACCESS_KEY_ID={AK} AWS_SECRET_ACCESS_KEY={SK} aws s3 ls", SK)
_form("cloudflare-global-key", f"CLOUDFLARE_API_KEY={H32}abcde", H32)
_form("cloudflare-x-auth-key", f"curl -H 'X-Auth-Email: a@x.com' -H 'X-Auth-Key: {H32}abcde' https://api.cloudflare.com/client/v4/zones", H32)
_form("cloudflare-tunnel-token", f"cloudflared tunnel run --token {b64(json.dumps({'a': H32, 't': UUID, 's': R + V}))}", b64(json.dumps({"a": H32, "t": UUID, "s": R + V}))[:40])
_form("cloudflare-wrangler-toml", f'account_id = "{H32}"\napi_token = "{R}{V[:14]}"\n', R + V[:14])
_form("do-tf-provider", f'provider "digitalocean" {{\n  token = "dop_v1_{H64}"\n}}', f"dop_v1_{H64}")
_form("do-doctl-config", f"access-token: dop_v1_{H64}\ncontext: default\n", f"dop_v1_{H64}")
_form("stripe-node-require", f"const stripe = require('stripe')('sk_live_51{R}{V}{R[:20]}');", f"sk_live_51{R}")
_form("stripe-ruby", f"Stripe.api_key = 'sk_live_51{R}{V}{R[:20]}'", f"sk_live_51{R}")
_form("stripe-rk-live-curl", f"curl https://api.stripe.com/v1/charges -u rk_live_51{R}{V}{R[:20]}:", f"rk_live_51{R}")
_form("stripe-header-bearer", f"Authorization: Bearer sk_live_51{R}{V}{R[:20]}", f"sk_live_51{R}")
_form("twilio-client-positional", f'client = Client("AC{H32}", "{H32[::-1]}")', H32[::-1])
_form("twilio-curl-u", f"curl -X POST https://api.twilio.com/2010-04-01/Accounts/AC{H32}/Messages.json -u AC{H32}:{H32[::-1]}", H32[::-1])
_form("twilio-env-token", f"TWILIO_AUTH_TOKEN={H32[::-1]}", H32[::-1])
_form("sendgrid-header", f"Authorization: Bearer SG.{R[:22]}.{R}{V[:17]}", f"SG.{R[:22]}")
_form("sendgrid-py", f"sg = SendGridAPIClient('SG.{R[:22]}.{R}{V[:17]}')", f"SG.{R[:22]}")
_form("slack-webclient", f'client = WebClient(token="xoxb-1234567890-1234567890123-{R[:24]}")', f"xoxb-1234567890-1234567890123-{R[:24]}")
_form("slack-webhook-json", json.dumps({"channel": "#ops", "hook": f"https://hooks.slack.com/services/T0{R[:8]}/B0{V[:8]}/{R[:24]}"}), R[:24])
_form("slack-xoxp", f"token: xoxp-1234567890-1234567890-1234567890123-{H32}", H32)
_form("discord-bot-header", f"Authorization: Bot MTA{R[:21]}.G{V[:5]}.{R}{V[:12]}", f"MTA{R[:21]}")
_form("discord-bot-py", f"client.run('MTA{R[:21]}.G{V[:5]}.{R}{V[:12]}')", f"MTA{R[:21]}")
_form("telegram-url", f"https://api.telegram.org/bot123456789:AA{R}{V[:7]}/sendMessage?chat_id=1", f"AA{R}")
_form("telegram-env", f"TELEGRAM_BOT_TOKEN=123456789:AA{R}{V[:7]}", f"AA{R}")
_form("telegram-bare", f"bot 123456789:AA{R}{V[:7]} started", f"AA{R}")
_form("gitlab-ci-private-token", f'curl --header "PRIVATE-TOKEN: glpat-{R[:20]}" https://gitlab.com/api/v4/projects', f"glpat-{R[:20]}")
_form("gitlab-url-oauth2", f"git clone https://oauth2:glpat-{R[:20]}@gitlab.com/g/p.git", f"glpat-{R[:20]}")
_form("gitlab-job-token-url", f"https://gitlab-ci-token:{R[:20]}@gitlab.x.com/g/p.git", R[:20])
_form("npm-yarnrc-yml", f'npmRegistryServer: "https://npm.x.com"\nnpmAuthToken: "npm_{R}{V[:10]}"\n', f"npm_{R}")
_form("npm-npmrc-scoped", f"@corp:registry=https://npm.corp.com/\n//npm.corp.com/:_authToken={UUID}\n", UUID)
_form("npm-npmrc-auth-b64", f"//npm.corp.com/:_auth={b64('bob:' + W)}\n", b64("bob:" + W))
_form("npm-npmrc-password", f"//npm.corp.com/:username=bob\n//npm.corp.com/:_password={b64(W)}\n", b64(W))
_form("pypi-twine-p", f"twine upload -u __token__ -p pypi-AgEIcHlwaS5vcmc{R}{V} dist/*", f"pypi-AgEIcHlwaS5vcmc{R}")
_form("pypi-uv-publish", f"UV_PUBLISH_TOKEN=pypi-AgEIcHlwaS5vcmc{R}{V}", f"pypi-AgEIcHlwaS5vcmc{R}")
_form("pypi-poetry-env", f"POETRY_PYPI_TOKEN_PYPI=pypi-AgEIcHlwaS5vcmc{R}{V}", f"pypi-AgEIcHlwaS5vcmc{R}")
_form("pypi-pip-index-url", f"pip install --index-url https://__token__:{R}{V}@pypi.corp.com/simple pkg", R + V)
_form("docker-pat-login", f"echo dckr_pat_{R[:27]} | docker login -u bob --password-stdin", f"dckr_pat_{R[:27]}")
_form("docker-pat-env", f"DOCKERHUB_TOKEN=dckr_pat_{R[:27]}", f"dckr_pat_{R[:27]}")
_form("jfrog-akcp", f"X-JFrog-Art-Api: AKCp8{R}{V}{R[:19]}", f"AKCp8{R}")
_form("jfrog-akcp-bare", f"curl -H 'X-JFrog-Art-Api:AKCp8{R}{V}{R[:19]}' https://x.jfrog.io", f"AKCp8{R}")
_form("jfrog-reference-token", f"jf c add --url https://x.jfrog.io --access-token cmVmdGtuOjAxOjE3{R}{V}", f"cmVmdGtuOjAxOjE3{R}")
_form("databricks-cfg", f"[DEFAULT]\nhost = https://x.cloud.databricks.com\ntoken = dapi{H32}\n", f"dapi{H32}")
_form("databricks-cli", f"databricks configure --token <<< 'dapi{H32}'", f"dapi{H32}")
_form("databricks-header", f"Authorization: Bearer dapi{H32}-2", f"dapi{H32}")
_form("snowflake-connector", f'snowflake.connector.connect(user="bob", password="{P}", account="xy12345")', P)
_form("snowflake-snowsql-env", f"SNOWSQL_PWD={P} snowsql -a xy12345 -u bob", P)
_form("snowflake-pk-passphrase", f"private_key_passphrase: {W}\nprivate_key_path: /keys/rsa.p8\n", W)
_form("snowflake-url", f"snowflake://bob:{W}@xy12345/db/schema?warehouse=wh", W)
_form("grafana-provisioning", f"apiVersion: 1\ndatasources:\n  - name: prom\n    basicAuthPassword: {W}\n", W)
_form("grafana-glsa-header", f"Authorization: Bearer glsa_{R}{V[:6]}_{H32[:8]}", f"glsa_{R}")
_form("grafana-admin-env", f"GF_SECURITY_ADMIN_PASSWORD={P}", P)
_form("datadog-helm-set", f"helm install dd datadog/datadog --set datadog.apiKey={H32} --set datadog.site=datadoghq.eu", H32)
_form("datadog-dd-api-key-header", f"DD-API-KEY: {H32}", H32)
_form("datadog-yaml", f"api_key: {H32}\napp_key: {H40}\nsite: datadoghq.com\n", H40)
_form("pagerduty-routing-key", json.dumps({"routing_key": H32, "event_action": "trigger"}), H32)
_form("pagerduty-token-header", f"Authorization: Token token=u+{R[:18]}", f"u+{R[:18]}")
_form("sentry-dsn-key", f"SENTRY_DSN=https://{H32}@o123456.ingest.sentry.io/4504", H32)
_form("sentry-dsn-secret", f"dsn = 'https://{H32}:{H32[::-1]}@sentry.io/42'", H32[::-1])
_form("sentry-init-py", f'sentry_sdk.init(dsn="https://{H32}@o1.ingest.us.sentry.io/2")', H32)
_form("firebase-admin-json-key", json.dumps({"type": "service_account", "private_key": PEM, "client_email": "firebase-adminsdk@p.iam"}), PEMBODY)
_form("firebase-db-secret", f"FIREBASE_DATABASE_SECRET={R}{V[:14]}", R + V[:14])
_form("supabase-service-role-env", f"SUPABASE_SERVICE_ROLE_KEY={JWT}", JWT[-30:])
_form("supabase-createclient", f'createClient("https://x.supabase.co", "{JWT}")', JWT[-30:])
_form("supabase-header-apikey", f"apikey: {JWT}", JWT[-30:])
_form("okta-ssws", f"Authorization: SSWS 00{R}{V[:14]}", f"00{R}")
_form("auth0-client-secret", json.dumps({"domain": "x.auth0.com", "clientId": "aB3dE5fG7hJ9kL1mN2pQ", "clientSecret": f"{R}{V}{R[:14]}"}), R + V)
_form("heroku-api-key-netrc", f"machine api.heroku.com\n  login bob@x.com\n  password {UUID}\n", UUID)
_form("circleci-token-header", f"Circle-Token: CCIPAT_{R}_{H40}", f"CCIPAT_{R}")
_form("travis-token", f"Authorization: token {R[:22]}", R[:22])
_form("bitbucket-app-password-url", f"https://bob:ATBB{R}{V}@bitbucket.org/t/r.git", f"ATBB{R}")
_form("mailgun-api-url", f"curl -s --user 'api:key-{H32}' https://api.mailgun.net/v3/x/messages", f"key-{H32}")
_form("postmark-server-token", f"X-Postmark-Server-Token: {UUID}", UUID)
_form("algolia-admin-key", f"ALGOLIA_ADMIN_API_KEY={H32}", H32)
_form("algolia-init", f"algoliasearch('APPID12345', '{H32}')", H32)
_form("mapbox-sk", f"MAPBOX_TOKEN=sk.eyJ1IjoiYm9iIiwiYSI6ImNs{R}.{V}{R[:6]}", f"sk.eyJ1IjoiYm9iIiwiYSI6ImNs{R}")
_form("openai-azure-header", f"api-key: {H32}", H32)
_form("gh-app-private-key-env", "GITHUB_APP_PRIVATE_KEY=\"" + PEM.replace(chr(10), "\\n") + "\"", PEMBODY)
_form("github-pat-in-url", f"https://x-access-token:ghs_{R}{V[:10]}@github.com/o/r.git", f"ghs_{R}")
_form("github-fine-pat-env", f"GH_TOKEN=github_pat_11A{R[:19]}_{R}{V}{R[:7]}", f"github_pat_11A{R[:19]}")
_form("linear-header", f"Authorization: lin_api_{R}{V[:14]}", f"lin_api_{R}")
_form("shopify-admin-header", f"X-Shopify-Access-Token: shpat_{H32}", f"shpat_{H32}")
_form("hubspot-pat", f"HUBSPOT_TOKEN=pat-na1-{UUID}", UUID)
_form("asana-pat", f"Authorization: Bearer 1/1200{R[:12]}:{H32}", H32)
_form("zendesk-token-basic", f"curl https://x.zendesk.com/api/v2/tickets.json -u bob@x.com/token:{R}{V[:14]}", R + V[:14])
_form("jira-basic-api-token", f"curl -u bob@x.com:ATATT3xFfGF0{R}{V}{R} https://x.atlassian.net/rest/api/3/myself", f"ATATT3xFfGF0{R}")
_form("vercel-token-flag", f"vercel deploy --prod --token={R[:24]}", R[:24])
_form("netlify-auth-env", f"NETLIFY_AUTH_TOKEN=nfp_{R}{V[:10]}", f"nfp_{R}")

# --- documents inside strings
_form("doc-netrc-oneline", f"machine registry.x.com login bob password {P}", P)
_form("doc-netrc-default", f"default login anonymous password {W}@x", W)
_form("doc-pypirc-full", f"[distutils]\nindex-servers =\n    pypi\n    corp\n[corp]\nrepository = https://pypi.corp.com\nusername = bob\npassword = {P}\n", P)
_form("doc-docker-config-auth", json.dumps({"auths": {"registry.x.com": {"auth": b64("bob:" + W + "Z9")}}}), b64("bob:" + W + "Z9"))
_form("doc-docker-config-auth-in-string", "DOCKER_CONFIG_JSON='" + json.dumps({"auths": {"r.x.com": {"auth": b64("bob:" + W + "Z9")}}}) + "'", b64("bob:" + W + "Z9"))
_form("doc-docker-dockercfg-old", json.dumps({"r.x.com": {"auth": b64("bob:" + W + "Z9"), "email": "b@x.com"}}), b64("bob:" + W + "Z9"))
_form("doc-kubeconfig-client-key-data", f"users:\n- name: admin\n  user:\n    client-certificate-data: LS0tLS1CRUdJTiBDRVJU\n    client-key-data: {b64(PEM)}\n", b64(PEM)[:40])
_form("doc-kubeconfig-oidc", f"users:\n- name: oidc\n  user:\n    auth-provider:\n      config:\n        client-secret: {R}{V}\n        id-token: {JWT}\n", R + V)
_form("doc-java-keystore-props", f"server.ssl.key-store=classpath:ks.p12\nserver.ssl.key-store-password={W}\nserver.ssl.key-password={P}\n", W)
_form("doc-java-truststore-props", f"javax.net.ssl.trustStorePassword={W}", W)
_form("doc-spring-yml", f"spring:\n  datasource:\n    url: jdbc:postgresql://db/app\n    username: app\n    password: {P}\n", P)
_form("doc-spring-yml-mail", f"spring:\n  mail:\n    host: smtp.x.com\n    password: {W}\n", W)
_form("doc-spring-rabbit", f"spring.rabbitmq.password={W}", W)
_form("doc-env-export", f"export DB_PASS='{P}'\nexport DB_USER=bob\n", P)
_form("doc-env-export-dq", f'export STRIPE_SECRET="{R}{V}"', R + V)
_form("doc-poetry-http-basic", f'[http-basic.corp]\nusername = "bob"\npassword = "{P}"\n', P)
_form("doc-poetry-auth-toml", f'[tool.poetry.http-basic.corp]\nusername = "bob"\npassword = "{P}"\n', P)
_form("doc-maven-settings", f"<settings><servers><server><id>corp</id><username>bob</username><password>{P}</password></server></servers></settings>", P)
_form("doc-maven-settings-passphrase", f"<server><id>gpg</id><passphrase>{W}</passphrase></server>", W)
_form("doc-maven-private-header", f"<server><id>gitlab</id><configuration><httpHeaders><property><name>Private-Token</name><value>glpat-{R[:20]}</value></property></httpHeaders></configuration></server>", f"glpat-{R[:20]}")
_form("doc-systemd-env-quoted", f'[Service]\nEnvironment="DB_PASSWORD={P}" "DB_USER=bob"\nExecStart=/usr/bin/app\n', P)
_form("doc-systemd-env-two", f"[Service]\nEnvironment=DB_USER=bob API_TOKEN={R}\n", R)
_form("doc-crontab-pgpassword", f"0 3 * * * PGPASSWORD={P} pg_dump -h db app > /bk/app.sql", P)
_form("doc-crontab-env-line", f"MAILTO=ops@x.com\nAPI_TOKEN={R}\n*/5 * * * * /opt/sync.sh\n", R)
_form("doc-dockerfile-arg-default", f"FROM python:3.12\nARG PIP_TOKEN={R}{V}\nRUN pip install --extra-index-url https://__token__:${{PIP_TOKEN}}@pypi.x.com/simple x", R + V)
_form("doc-dockerfile-env-eq", f"ENV DATABASE_PASSWORD={P} DATABASE_USER=bob", P)
_form("doc-compose-env-list", f"services:\n  db:\n    image: postgres\n    environment:\n      - POSTGRES_USER=bob\n      - POSTGRES_PASSWORD={P}\n", P)
_form("doc-compose-env-map-quoted", f"services:\n  db:\n    environment:\n      MYSQL_ROOT_PASSWORD: \"{P}\"\n", P)
_form("doc-compose-healthcheck", f"    healthcheck:\n      test: [\"CMD\", \"mysqladmin\", \"ping\", \"-uroot\", \"-p{W}\"]\n", W)
_form("doc-gha-with-password", f"- uses: docker/login-action@v3\n  with:\n    registry: ghcr.io\n    username: bob\n    password: {R}{V}\n", R + V)
_form("doc-gha-env-token", f"env:\n  NPM_TOKEN: npm_{R}{V[:10]}\n", f"npm_{R}")
_form("doc-gha-run-curl", f"- run: curl -H \"Authorization: token ghp_{R}{V[:10]}\" https://api.github.com", f"ghp_{R}")
_form("doc-jenkins-env-block", f"pipeline {{\n  environment {{\n    API_KEY = '{R}{V}'\n  }}\n}}", R + V)
_form("doc-jenkins-sh-curl", f"sh 'curl -u admin:{P} https://jenkins.x.com/job/x/build'", P)
_form("doc-gitlab-ci-variables", f"variables:\n  DOCKER_AUTH_CONFIG: '{{\"auths\":{{\"r.x.com\":{{\"auth\":\"{b64('bob:' + W + 'Z9')}\"}}}}}}'\n", b64("bob:" + W + "Z9"))
_form("doc-makefile-var", f"REGISTRY_PASSWORD := {P}\nlogin:\n\tdocker login -p $(REGISTRY_PASSWORD) r.x.com\n", P)
_form("doc-makefile-recipe", f"deploy:\n\tcurl -H 'X-Api-Key: {R}{V}' https://x.com/deploy\n", R + V)
_form("doc-sql-create-user", f"CREATE USER bob IDENTIFIED BY {W};", W)
_form("doc-sql-create-user-quoted", f"CREATE USER 'bob'@'%' IDENTIFIED BY '{P}';", P)
_form("doc-sql-alter-role", f"ALTER ROLE bob WITH LOGIN PASSWORD '{P}';", P)
_form("doc-sql-create-role-pg", f"CREATE ROLE app LOGIN PASSWORD '{P}' VALID UNTIL 'infinity';", P)
_form("doc-sql-create-login-mssql", f"CREATE LOGIN bob WITH PASSWORD = '{P}', CHECK_POLICY = OFF;", P)
_form("doc-sql-alter-user-mysql", f"ALTER USER 'root'@'localhost' IDENTIFIED WITH mysql_native_password BY '{P}';", P)
_form("doc-sql-grant-identified", f"GRANT ALL ON app.* TO 'bob'@'%' IDENTIFIED BY '{P}';", P)
_form("doc-sql-oracle-alter", f"ALTER USER system IDENTIFIED BY \"{P}\" ACCOUNT UNLOCK;", P)
_form("doc-sql-dblink", f"CREATE DATABASE LINK remote CONNECT TO bob IDENTIFIED BY {W} USING 'orcl';", W)
_form("doc-sql-pg-user-mapping", f"CREATE USER MAPPING FOR app SERVER remote OPTIONS (user 'bob', password '{P}');", P)
_form("doc-sql-mssql-credential", f"CREATE CREDENTIAL az WITH IDENTITY = 'SHARED ACCESS SIGNATURE', SECRET = '{R}{V}';", R + V)
_form("doc-sql-snowflake-user", f"CREATE USER bob PASSWORD = '{P}' DEFAULT_ROLE = analyst;", P)
_form("doc-redis-auth-line", f"redis> AUTH {P}\nOK", P)
_form("doc-redis-config-set", f"CONFIG SET requirepass \"{P}\"", P)
_form("doc-redis-conf-masterauth", f"replicaof 10.0.0.1 6379\nmasterauth {P}\n", P)
_form("doc-jdbc-pg-password-param", f"jdbc:postgresql://db:5432/app?user=bob&password={P}&ssl=true", P)
_form("doc-jdbc-sqlserver-semicolon", f"jdbc:sqlserver://db:1433;databaseName=app;user=bob;password={P};encrypt=true", P)
_form("doc-jdbc-mysql-password-amp", f"jdbc:mysql://db:3306/app?useSSL=false&password={W}&user=bob", W)
_form("doc-jdbc-oracle-user-pass", f"jdbc:oracle:thin:bob/{W}@//db:1521/orcl", W)
_form("doc-odbc-pwd-braces", f"Driver={{ODBC Driver 18 for SQL Server}};Server=db;UID=bob;PWD={{{P}}};", P)
_form("doc-odbc-pwd-lower", f"driver=postgresql;server=db;uid=bob;pwd={W};database=app", W)
_form("doc-ldap-bind-url", f"ldaps://cn=admin,dc=x,dc=com:{P}@ldap.x.com", P)
_form("doc-ldap-conf", f"BINDDN cn=admin,dc=x,dc=com\nBINDPW {P}\n", P)
_form("doc-sssd-conf", f"[domain/x]\nldap_default_bind_dn = cn=svc\nldap_default_authtok = {P}\n", P)
_form("doc-smtp-url", f"EMAIL_URL=smtps://bob%40x.com:{W}@smtp.x.com:465", W)
_form("doc-smtp-url-submission", f"smtp://apikey:SG.{R[:22]}.{R}{V[:17]}@smtp.sendgrid.net:587", f"SG.{R[:22]}")
_form("doc-amqp-jaas-plain", f'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="bob" password="{P}";', P)
_form("doc-kafka-scram-jaas", f'KAFKA_SASL_JAAS_CONFIG=org.apache.kafka.common.security.scram.ScramLoginModule required username="bob" password="{W}";', W)
_form("doc-jaas-file", f'KafkaClient {{\n  org.apache.kafka.common.security.plain.PlainLoginModule required\n  username="bob"\n  password="{P}";\n}};', P)
_form("doc-librdkafka", f"sasl.mechanisms=PLAIN\nsasl.username=bob\nsasl.password={P}\n", P)
_form("doc-rabbitmq-conf", f"default_user = bob\ndefault_pass = {P}\n", P)
_form("doc-pgbouncer-userlist", f'"bob" "{P}"', P)
_form("doc-nginx-auth-basic-hash", f"bob:$apr1$x9Yz8W7v${R[:22]}", R[:22])
_form("doc-openvpn-auth-user-pass", f"auth-user-pass /etc/ovpn/creds\n<auth-user-pass>\nbob\n{P}\n</auth-user-pass>\n", P)
_form("doc-wpa-conf", f'network={{\n  ssid="home"\n  psk="{P}"\n}}', P)
_form("doc-nmconnection", f"[wifi-security]\nkey-mgmt=wpa-psk\npsk={P}\n", P)
_form("doc-samba-smbpasswd-stdin", f"(echo {P}; echo {P}) | smbpasswd -s -a bob", P)
_form("doc-fstab-cifs", f"//srv/share /mnt cifs username=bob,password={P},uid=1000 0 0", P)
_form("doc-cifs-credentials-file", f"username=bob\npassword={P}\ndomain=CORP\n", P)
_form("doc-xml-connection-string", f'<connectionStrings><add name="db" connectionString="Server=db;User Id=bob;Password={P};" /></connectionStrings>', P)
_form("doc-web-config-appsetting", f'<appSettings><add key="StripeSecretKey" value="{R}{V}" /></appSettings>', R + V)
_form("doc-hocon", f"db {{\n  user = bob\n  password = \"{P}\"\n}}", P)
_form("doc-nix-string", f'services.grafana.settings.security.admin_password = "{P}";', P)
_form("doc-ini-quoted-semicolon", f"[mysql]\npassword = \"{P}\" ; root\n", P)
_form("doc-toml-nested-table", f"[database.primary]\nhost = \"db\"\npassword = '{P}'\n", P)
_form("doc-json5-unquoted-key", f"{{ apiKey: '{R}{V}', region: 'us' }}", R + V)
_form("doc-yaml-flow-seq-pairs", f"env: [{{name: API_TOKEN, value: {R}}}]", R)
_form("doc-ansible-vars-vaulted-plain", f"ansible_become_password: {P}\n", P)
_form("doc-helm-values-existing", f"auth:\n  existingSecret: \"\"\n  rootPassword: {P}\n", P)
_form("doc-k8s-secret-stringdata-conf", f"apiVersion: v1\nkind: Secret\nstringData:\n  app.conf: |\n    user=bob\n    key={R}\n", R)
_form("doc-keepass-csv", f'"Group","Title","Username","Password","URL"\n"Root","db","bob","{P}","https://x"', P)
_form("doc-env-windows-crlf", f"DB_USER=bob\r\nDB_PASSWORD={P}\r\nDB_HOST=db\r\n", P)
_form("doc-properties-unicode-escape", f"db.password=\\u0051{P[1:]}", P[1:])
_form("doc-ssh-config-identity-none", f"Host x\n  IdentityFile ~/.ssh/id\n  # pass {P}\n", P)

# --- split or disguised
_form("split-concat-py", f'key = "sk-" + "proj-{R}{V}"', f"proj-{R}{V}")
_form("split-concat-js", f"const t = 'ghp_' + '{R}{V[:10]}';", f"{R}{V[:10]}")
_form("split-two-env-vars", f"API_KEY_PART1={R}\nAPI_KEY_PART2={V}\n", V)
_form("split-fstring", f'headers = {{"Authorization": f"Bearer {{\'{R}{V}\'}}"}}', R + V)
_form("url-fragment-token", f"https://app.x.com/callback#access_token={R}{V}&token_type=bearer&expires_in=3600", R + V)
_form("url-fragment-id-token", f"https://app.x.com/cb#id_token={JWT}&state=x", JWT[-30:])
_form("presigned-s3-sig", f"https://b.s3.amazonaws.com/o?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential={AK}%2F20260101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20260101T000000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature={H64}", H64)
_form("presigned-s3-token", f"https://b.s3.amazonaws.com/o?X-Amz-Security-Token={ST}&X-Amz-Signature={H64}", ST[:40])
_form("presigned-cloudfront", f"https://d1.cloudfront.net/v.mp4?Expires=1700000000&Signature={R}{V}~{R}__&Key-Pair-Id=K2JCJMDEHXQW5F", R + V)
_form("presigned-oss", f"https://b.oss-cn-beijing.aliyuncs.com/o?OSSAccessKeyId=LTAI5t{R[:18]}&Expires=1700000000&Signature={R}{V[:2]}%3D", R + V[:2])
_form("presigned-gcs-v4", f"https://storage.googleapis.com/b/o?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=sa%40p.iam.gserviceaccount.com%2F20260101%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Signature={H64}{H64}", H64)
_form("query-token-generic", f"wss://stream.x.com/v1?token={R}{V}", R + V)
_form("query-key-google", f"https://maps.googleapis.com/maps/api/geocode/json?address=x&key=AIzaSy{R}{V[:7]}", f"AIzaSy{R}")
_form("query-api-key-snake", f"GET /v2/data?api_key={R}{V}&limit=10 HTTP/1.1", R + V)
_form("query-auth-param", f"https://x.com/export.csv?auth={R}{V}", R + V)
_form("cookie-jwt-line", f"Cookie: theme=dark; session={JWT}; lang=en", JWT[-30:])
_form("cookie-jwt-set", f"Set-Cookie: access_token={JWT}; HttpOnly; Secure; Path=/", JWT[-30:])
_form("cookie-sessionid", f"Cookie: sessionid={R}{V}; csrftoken={H32}", R + V)
_form("http-dump-basic", f"> GET /api HTTP/1.1\r\n> Host: x.com\r\n> Authorization: Basic {b64('bob:' + P)}\r\n> Accept: */*\r\n", b64("bob:" + P))
_form("http-dump-bearer-lower", f"GET /api HTTP/1.1\nhost: x.com\nauthorization: bearer {R}{V}\n", R + V)
_form("http-dump-proxy-auth", f"CONNECT x.com:443 HTTP/1.1\r\nProxy-Authorization: Basic {b64('bob:' + W)}\r\n", b64("bob:" + W))
_form("http-dump-x-api-key", f"POST /v1/chat HTTP/2\nx-api-key: {R}{V}\ncontent-type: application/json\n", R + V)
_form("http-dump-form-body", f"POST /login HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\nusername=bob&password={P}", P)
_form("traceback-locals", f'Traceback (most recent call last):\n  File "app.py", line 3, in <module>\n    connect(host="db", password="{P}")\npsycopg2.OperationalError: FATAL: password authentication failed', P)
_form("traceback-repr-dict", f"KeyError: {{'user': 'bob', 'password': '{P}'}}", P)
_form("log-ansi-kv", f"\x1b[32mINFO\x1b[0m connecting with password={P} to db", P)
_form("log-ansi-value-colored", f"\x1b[1mtoken\x1b[0m: \x1b[33m{R}{V}\x1b[0m", R + V)
_form("log-ansi-escaped-json", json.dumps({"log": f"\x1b[31mERROR\x1b[0m api_key={R}{V}"}), R + V)
_form("log-ansi-name-split", f"\x1b[36mDB_PASSWORD\x1b[0m=\x1b[35m{P}\x1b[0m", P)
_form("log-logfmt", f'level=info msg="auth ok" user=bob password="{P}" ts=1', P)
_form("log-structlog", f"2026-01-01 auth.login user=bob secret={R}{V}", R + V)
_form("log-java-tostring", f"DataSourceConfig(url=jdbc:pg://db, username=bob, password={P})", P)
_form("log-kotlin-data", f"Credentials(user=bob, apiKey={R}{V})", R + V)
_form("log-go-struct", f"&{{Host:db User:bob Password:{P} Port:5432}}", P)
_form("log-go-struct-plus", f"{{Host:db User:bob Password:{P}}}", P)
_form("log-ruby-inspect", f'#<Config user="bob", password="{P}">', P)
_form("log-php-print-r", f"Array\n(\n    [user] => bob\n    [password] => {P}\n)\n", P)
_form("log-var-dump", f'array(2) {{\n  ["user"]=>\n  string(3) "bob"\n  ["password"]=>\n  string(14) "{P}"\n}}', P)
_form("log-env-dump", f"PATH=/usr/bin\nHOME=/root\nOPENAI_API_KEY=sk-{R}{V}\n", f"sk-{R}")
_form("crlf-stack", f"[db]\r\nuser=bob\r\npassword={P}\r\n\r\n[api]\r\ntoken={R}\r\n", P)
_form("crlf-only-cr", f"user=bob\rpassword={P}\rhost=db", P)
_form("fullwidth-name", f"ｐａｓｓｗｏｒｄ＝{P}", P)
_form("fullwidth-name-colon", f"ＰＡＳＳＷＯＲＤ: {P}", P)
_form("fullwidth-token-word", f"ｔｏｋｅｎ {R}{V}", R + V)
_form("nbsp-separator", f"password\u00a0=\u00a0{P}", P)
_form("zero-width-in-name", f"pass\u200bword={P}", P)
_form("tab-aligned", f"password\t\t{P}", P)
_form("unicode-quotes", f"password = \u201c{P}\u201d", P)
_form("markdown-table-row", f"| name | value |\n|---|---|\n| API_TOKEN | `{R}{V}` |", R + V)
_form("markdown-bold", f"**Password:** {P}", P)
_form("chat-message", f"hey, the staging db password is {P} btw", P)
_form("chat-creds-slash", f"login: bob / {P}", P)
_form("json-lines-in-string", json.dumps({"lines": ["user=bob", f"pass={P}"]}), P)
_form("yaml-comment-key", f"# api key: {R}{V}\nname: x\n", R + V)
_form("shell-heredoc-json", f"cat > creds.json <<EOF\n{{\"client_secret\": \"{R}{V}\"}}\nEOF", R + V)
_form("shell-printf-env-file", f"printf 'DB_PASSWORD=%s\\n' '{P}' > .env", P)
_form("shell-echo-append-env", f"echo \"API_TOKEN={R}{V}\" >> $GITHUB_ENV", R + V)
_form("shell-tee-secret", f"echo '{P}' | sudo tee /etc/app/db_password", P)
_form("shell-kubectl-literal", f"kubectl create secret generic db --from-literal=password={P}", P)
_form("shell-kubectl-literal-other", f"kubectl create secret generic api --from-literal=key={R}{V}", R + V)
_form("shell-docker-secret-printf", f"printf '%s' '{P}' | docker secret create db_pw -", P)
_form("shell-gh-secret-set-b", f"gh secret set NPM_TOKEN -b npm_{R}{V[:10]}", f"npm_{R}")
_form("shell-heroku-config-set", f"heroku config:set STRIPE_KEY=sk_live_51{R}{V}{R[:20]}", f"sk_live_51{R}")
_form("shell-flyctl-secrets", f"fly secrets set DATABASE_URL=postgres://bob:{P}@db/app", P)
_form("shell-vercel-env-add", f"echo -n '{R}{V}' | vercel env add API_SECRET production", R + V)
_form("shell-wrangler-secret", f"echo '{R}{V}' | wrangler secret put API_KEY", R + V)
_form("shell-aws-ssm-put", f"aws ssm put-parameter --name /app/db/password --type SecureString --value '{P}'", P)
_form("shell-aws-secretsmanager", f"aws secretsmanager create-secret --name prod/db --secret-string '{{\"password\":\"{P}\"}}'", P)
_form("shell-gcloud-secrets-versions", f"echo -n '{P}' | gcloud secrets versions add db-pass --data-file=-", P)
_form("shell-az-keyvault", f"az keyvault secret set --vault-name kv --name db --value '{P}'", P)
_form("shell-op-item-create", f"op item create --category login --title db 'password={P}'", P)
_form("shell-bw-encode", f"echo '{{\"password\":\"{P}\"}}' | bw encode | bw create item", P)
_form("shell-pass-insert", f"echo '{P}' | pass insert -e db/prod", P)
_form("shell-security-add-generic", f"security add-generic-password -a bob -s db -w '{P}'", P)
_form("shell-secret-tool-store", f"echo -n '{P}' | secret-tool store --label=db service db user bob", P)
_form("shell-chpasswd-echo", f"echo 'bob:{P}' | chpasswd", P)
_form("shell-passwd-stdin", f"echo '{P}' | passwd --stdin bob", P)
_form("shell-usermod-p", f"usermod -p '$6$rounds=5000$salt${R}{V}' bob", R + V)
_form("shell-mysql-e-identified", f"mysql -uroot -e \"CREATE USER 'app'@'%' IDENTIFIED BY '{P}'\"", P)
_form("shell-psql-c-password", f"psql -c \"ALTER USER postgres PASSWORD '{P}';\"", P)
_form("shell-sqlcmd-query", f"sqlcmd -S db -U sa -P '{P}' -Q 'SELECT 1'", P)
_form("shell-mongosh-eval", f"mongosh --eval 'db.createUser({{user: \"app\", pwd: \"{P}\", roles: []}})'", P)
_form("shell-rabbitmqctl-change", f"rabbitmqctl change_password bob '{P}'", P)
_form("shell-redis-cli-auth-line", f"redis-cli -h db AUTH '{P}'", P)
_form("shell-redis-cli-config", f"redis-cli CONFIG SET requirepass '{P}'", P)
_form("shell-keytool-keypass", f"keytool -genkeypair -alias x -keystore ks.jks -storepass {W} -keypass {P}", P)
_form("shell-openssl-pkcs12-passout", f"openssl pkcs12 -export -in c.pem -inkey k.pem -out c.p12 -passout 'pass:{P}'", P)
_form("shell-gpg-batch-passphrase", f"gpg --batch --yes --passphrase '{P}' -d secrets.gpg", P)
_form("shell-ssh-keygen-N", f"ssh-keygen -t ed25519 -f k -N '{P}'", P)
_form("shell-htpasswd-B", f"htpasswd -bB .htpasswd bob '{P}'", P)
_form("shell-curl-netrc-file-inline", f"curl --netrc-file <(echo 'machine x.com login bob password {P}') https://x.com", P)
_form("shell-wget-user-password", f"wget --user=bob --password='{P}' https://x.com/f", P)
_form("shell-rsync-password-env", f"RSYNC_PASSWORD='{P}' rsync -a rsync://bob@host/mod/ .", P)
_form("shell-git-credential-approve", f"printf 'protocol=https\\nhost=github.com\\nusername=bob\\npassword=ghp_{R}{V[:10]}\\n' | git credential approve", f"ghp_{R}")
_form("shell-npm-set-authtoken", f"npm config set //registry.npmjs.org/:_authToken npm_{R}{V[:10]}", f"npm_{R}")
_form("shell-pip-config-set", f"pip config set global.index-url https://bob:{P}@pypi.x.com/simple", P)
_form("shell-docker-run-env-long", f"docker run --env=POSTGRES_PASSWORD={P} postgres", P)
_form("shell-podman-secret", f"printf '{P}' | podman secret create dbpw -", P)
_form("shell-helm-registry-login", f"helm registry login r.x.com -u bob -p '{P}'", P)
_form("shell-kubectl-token", f"kubectl --token={JWT} get pods", JWT[-30:])
_form("shell-argocd-auth-token", f"argocd app list --auth-token {JWT}", JWT[-30:])
_form("shell-terraform-login-stdin", f"echo '{R[:14]}.atlasv1.{V}{R}{V[:14]}' | terraform login", f"{R[:14]}.atlasv1.{V}")
_form("shell-ngrok-config", f"ngrok config add-authtoken 2{R}_{V}", f"2{R}_{V}")
_form("shell-tailscale-up", f"tailscale up --authkey=tskey-auth-k{R[:10]}CNTRL-{R}{V}", f"tskey-auth-k{R[:10]}")
_form("shell-az-sp-password", f"az login --service-principal -u {UUID} -p '{R}~{V}' --tenant t", f"{R}~{V}")
_form("shell-gcloud-auth-activate-key", f"echo '{b64(json.dumps({'private_key': PEM}))}' | base64 -d > k.json && gcloud auth activate-service-account --key-file k.json", b64(json.dumps({"private_key": PEM}))[:40])
_form("shell-mc-alias-set", f"mc alias set prod https://s3.x.com minio {R}{V}", R + V)
_form("shell-s3cmd-secret", f"s3cmd --access_key={AK} --secret_key={SK} ls", SK)
_form("shell-ldapadd-w", f"ldapadd -x -D cn=admin,dc=x -w '{P}' -f u.ldif", P)
_form("shell-ipmitool-P", f"ipmitool -I lanplus -H bmc -U admin -P '{P}' power status", P)
_form("shell-sshpass-e", f"SSHPASS='{P}' sshpass -e ssh bob@h", P)
_form("shell-expect-send", f"expect -c 'spawn ssh bob@h; expect \"assword:\"; send \"{P}\\r\"; interact'", P)

# --- Python/JS/other code places
_form("code-py-os-environ-setdefault", f"os.environ.setdefault('DB_PASSWORD', '{P}')", P)
_form("code-py-dataclass-default", f"@dataclass\nclass Cfg:\n    api_key: str = \"{R}{V}\"\n", R + V)
_form("code-py-pydantic-secretstr", f"api_key: SecretStr = SecretStr('{R}{V}')", R + V)
_form("code-py-settings-dict", f"DATABASES = {{'default': {{'ENGINE': 'pg', 'NAME': 'app', 'USER': 'bob', 'PASSWORD': '{P}'}}}}", P)
_form("code-py-requests-session-auth", f"s = requests.Session(); s.auth = ('bob', '{P}')", P)
_form("code-py-headers-update", f"session.headers.update({{'X-API-KEY': '{R}{V}'}})", R + V)
_form("code-py-smtp-login", f"server.login('bob@x.com', '{P}')", P)
_form("code-py-imap", f"imaplib.IMAP4_SSL('imap.x.com').login('bob', '{P}')", P)
_form("code-py-redis-from-url", f"redis.from_url('redis://:{P}@cache:6379/0')", P)
_form("code-py-asyncpg", f"await asyncpg.connect(user='bob', password='{P}', database='app', host='db')", P)
_form("code-py-motor", f"AsyncIOMotorClient('mongodb://bob:{W}@mongo:27017')", W)
_form("code-py-jwt-encode-key", f"jwt.encode(payload, '{R}{V}', algorithm='HS256')", R + V)
_form("code-py-hmac-new", f"hmac.new(b'{R}{V}', msg, hashlib.sha256)", R + V)
_form("code-py-fernet", f"Fernet(b'{b64(R + V[:6])}')", b64(R + V[:6]))
_form("code-js-jwt-sign", f"jwt.sign(payload, '{R}{V}', {{ expiresIn: '1h' }})", R + V)
_form("code-js-env-default", f"const key = process.env.API_KEY || '{R}{V}';", R + V)
_form("code-js-headers-obj", f"headers: {{ 'X-Api-Key': '{R}{V}' }}", R + V)
_form("code-js-basic-auth-obj", f"auth: {{ username: 'bob', password: '{P}' }}", P)
_form("code-js-mongoose", f"mongoose.connect('mongodb+srv://bob:{W}@c0.x.mongodb.net/app')", W)
_form("code-js-knex", f"knex({{ client: 'pg', connection: {{ host: 'db', user: 'bob', password: '{P}' }} }})", P)
_form("code-ts-readonly", f"private readonly secret = '{R}{V}';", R + V)
_form("code-go-basic-auth", f'req.SetBasicAuth("bob", "{P}")', P)
_form("code-go-sql-open", f'sql.Open("postgres", "host=db user=bob password={P} dbname=app sslmode=disable")', P)
_form("code-go-oauth-config", f'oauth2.Config{{ClientID: "x", ClientSecret: "{R}{V}"}}', R + V)
_form("code-java-system-setprop", f'System.setProperty("javax.net.ssl.keyStorePassword", "{W}");', W)
_form("code-java-builder-password", f'.password("{P}")', P)
_form("code-java-annotation", f'@Value("${{db.password:{P}}}")', P)
_form("code-csharp-connstr", f'var cs = "Server=db;Database=app;User Id=bob;Password={P};";', P)
_form("code-csharp-secure-string", f'new NetworkCredential("bob", "{P}", "CORP")', P)
_form("code-ruby-env-fetch", f"ENV.fetch('API_KEY', '{R}{V}')", R + V)
_form("code-ruby-net-http-basic", f"req.basic_auth('bob', '{P}')", P)
_form("code-php-define", f"define('DB_PASSWORD', '{P}');", P)
_form("code-php-wp-config-salt", f"define('AUTH_KEY', '{R}{V}');", R + V)
_form("code-php-putenv", f"putenv('API_TOKEN={R}{V}');", R + V)
_form("code-rust-const", f'const API_TOKEN: &str = "{R}{V}";', R + V)
_form("code-swift-let", f'let apiKey = "{R}{V}"', R + V)
_form("code-lua-table", f'local cfg = {{ password = "{P}" }}', P)
_form("code-r-sys-setenv", f'Sys.setenv(OPENAI_API_KEY = "sk-{R}{V}")', f"sk-{R}")
_form("code-perl-dbi", f'DBI->connect("dbi:Pg:dbname=app", "bob", "{P}")', P)
_form("code-scala-config", f'val password = "{P}"', P)
_form("code-elixir-config", f'config :app, App.Repo, username: "bob", password: "{P}"', P)
_form("code-dart-const", f"const String apiKey = '{R}{V}';", R + V)
_form("code-c-define", f'#define API_KEY "{R}{V}"', R + V)
_form("code-c-char-array", f'static const char *password = "{P}";', P)
_form("code-groovy-map", f"[user: 'bob', password: '{P}']", P)
_form("code-tf-variable-default", f'variable "db_password" {{\n  type = string\n  default = "{P}"\n}}', P)
_form("code-tf-resource-arg", f'resource "aws_db_instance" "x" {{\n  master_password = "{P}"\n}}', P)
_form("code-bicep-param", f"param adminPassword string = '{P}'", P)
_form("code-pulumi-config-set", f"pulumi config set --secret dbPassword '{P}'", P)
_form("code-pulumi-config-plain", f"pulumi config set dbPassword '{P}'", P)
_form("code-ps-convertto-plain", f"$pw = ConvertTo-SecureString -String '{P}' -AsPlainText -Force", P)
_form("code-ps-splat", f"$params = @{{ Username = 'bob'; Password = '{P}' }}", P)
_form("code-vb-connstr", f'Dim cs As String = "Data Source=db;User ID=bob;Password={P}"', P)
_form("code-cmd-set-quoted-whole", f'set "API_TOKEN={R}{V}"', R + V)
_form("code-ipynb-cell", json.dumps({"cell_type": "code", "source": [f"os.environ['OPENAI_API_KEY'] = 'sk-{R}{V}'\n"]}), f"sk-{R}")
_form("code-ipynb-output", json.dumps({"outputs": [{"name": "stdout", "text": [f"token: {R}{V}\n"]}]}), R + V)
# --- written for the classes found shown (more members of each) ------------------------------------
# text as a terminal or a typesetter writes it: colours, characters of no width, full-width ASCII,
# spaces of other widths (encodings: the ``terminal`` view; base64 of such text is text)
_form("cls-ansi-export", f"\x1b[33mexport\x1b[0m API_TOKEN=\x1b[1m{V}{R[:6]}\x1b[0m", V + R[:6])
_form("cls-ansi-json-log", json.dumps({"msg": f"\x1b[2mDB_PASSWORD=\x1b[0m{P}"}), P)
_form("cls-ansi-b64", b64(f"\x1b[31merror\x1b[0m: login failed, password={P}"), b64(f"\x1b[31merror\x1b[0m: login failed, password={P}"))
_form("cls-fullwidth-env", f"ＡＰＩ＿ＫＥＹ＝{R}{V}", R + V)
_form("cls-fullwidth-colon-prose", f"ｔｈｅ ｐａｓｓｗｏｒｄ ｉｓ {P}", P)
_form("cls-ideographic-space", f"password\u3000{P}", P)
_form("cls-nbsp-colon", f"Password:\u00a0{P}", P)
_form("cls-zero-width-name", f"api\u200b_key={R}{V}", R + V)
_form("cls-soft-hyphen-name", f"pass\u00adword: {P}", P)
# a declaration's type between a credential's name and its value (``DECLARED_TYPES``)
_form("cls-kotlin-val", f'val dbPassword: String = "{P}"', P)
_form("cls-swift-let-optional", f'let apiKey: String? = "{R}{V}"', R + V)
_form("cls-ts-readonly-typed", f"private readonly apiKey: string = '{R}{V}';", R + V)
_form("cls-go-var-string", f'var dbPassword string = "{P}"', P)
_form("cls-rust-static", f"static API_TOKEN: &'static str = \"{R}{V}\";", R + V)
_form("cls-py-annotated", f'API_TOKEN: str = "{R}{V}"', R + V)
_form("cls-bicep-secure", f"@secure()\nparam adminPassword securestring = '{P}'", P)
_form("cls-pydantic-secretstr", f'api_key: SecretStr = SecretStr("{R}{V}")', R + V)
# a name set off by emphasis, brackets or a code span; a Markdown table's name and value
_form("cls-md-bold-colon-in", f"**Token:** {R}{V}", R + V)
_form("cls-md-bold-colon-out", f"- **password**: {P}", P)
_form("cls-md-underscore", f"__password__: {P}", P)
_form("cls-md-code-name", f"`DB_PASSWORD`: {P}", P)
_form("cls-php-print-r-key", f"    [api_key] => {R}{V}\n", R + V)
_form("cls-md-table-env", f"| Variable | Value |\n| --- | --- |\n| DB_PASSWORD | {P} |\n", P)
_form("cls-md-table-code", f"| `SECRET_KEY` | `{R}{V}` |", R + V)
# a default after a reference to where the value is held (``process.env.KEY || "x"``)
_form("cls-js-nullish-default", f'const token = process.env.GH_TOKEN ?? "{R}{V}";', R + V)
_form("cls-vite-default", f'export const secret = import.meta.env.VITE_SECRET || "{R}{V}";', R + V)
_form("cls-py-or-default", f'password = settings.DB_PASSWORD or "{P}"', P)
_form("cls-js-config-default", f"apiKey = config.apiKey || '{R}{V}'", R + V)
# a key given by position to a call that signs or encrypts with it, a credential's domain after it
_form("cls-jwt-encode-kw", f'jwt.encode({{"sub": 1}}, "{R}{V}", algorithm="HS256")', R + V)
_form("cls-jwt-verify", f"jwt.verify(token, '{R}{V}')", R + V)
_form("cls-jwt-decode", f'jwt.decode(t, "{R}{V}", algorithms=["HS256"])', R + V)
_form("cls-hmac-new-str", f'hmac.new("{R}{V}".encode(), body, "sha256")', R + V)
_form("cls-fernet-str", f'Fernet("{b64(R + V[:6])}")', b64(R + V[:6]))
_form("cls-network-credential-two", f'new NetworkCredential("svc", "{P}")', P)
_form("cls-algolia-hex", f'const client = algoliasearch("APP1D", "{H40[:32]}");', H40[:32])
_form("cls-twilio-pair-env", f"AC{H32} {H40[:32]}", H40[:32])
# a token split over string literals joined by ``+`` (encodings: the ``joined`` view)
_form("cls-concat-ghp", f'token = "ghp_" + "{V}{R[:12]}"', f"{V}{R[:12]}")
_form("cls-concat-hf", f"HF = 'hf_' + '{V}{R[:10]}'", f"{V}{R[:10]}")
_form("cls-concat-xoxb", f'"xoxb-" + "1234567890-1234567890123-{V}"', V)
_form("cls-concat-multiline", f'const k = "sk-ant-api03-" +\n  "{R}{V}{R}-AA";', R + V)
# what standard input writes through ``tee`` to a file named like a credential; readers of stdin
_form("cls-tee-run-secrets", f"echo '{P}' | tee /run/secrets/db_password", P)
_form("cls-tee-append-token", f"printf '%s' '{R}{V}' | tee -a ~/.config/app/token", R + V)
_form("cls-sudo-tee-pass", f"echo {W}x | sudo tee /etc/mysql/root.pass > /dev/null", W + "x")
_form("cls-secret-tool", f"printf '{P}' | secret-tool store --label=api service api", P)
_form("cls-tofu-login", f"echo '{V[:14]}.atlasv1.{R}{V}{R[:14]}' | tofu login", f"{V[:14]}.atlasv1.{R}")
# an argument list's item holding a short option with its value attached (``"-pX"``)
_form("cls-argv-mysql-json", json.dumps(["mysql", "-uroot", f"-p{P}", "app"]), P)
_form("cls-argv-yaml-command", f'command: ["mysqldump", "-u", "bob", "-p{W}x"]', W + "x")
_form("cls-argv-dockerfile-cmd", f'CMD ["mysqladmin", "-p{W}x", "ping"]', W + "x")
# a URL's password holding a ``#``
_form("cls-url-hash-mongo", f"mongodb://bob:{W}#1@h/db", f"{W}#1")
_form("cls-url-hash-env", f"DATABASE_URL=postgres://app:{W}#!@db:5432/x", f"{W}#!")
# a user and a password after a pair's word and a colon (``login: bob / x``)
_form("cls-login-colon-pair", f"login: admin / {P}", P)
_form("cls-creds-colon-pair", f"creds: ci-bot/{W}x", W + "x")
# a builder's method given a credential (``.password("x")``)
_form("cls-builder-apikey", f'Client.builder().apiKey("{R}{V}").build()', R + V)
_form("cls-builder-token", f'.token("{R}{V}")', R + V)
# fmt: on

#: Forms still shown (strict xfails), each with its reason.
KNOWN_GAPS: dict[str, str] = {
    "az-keyvault-output": "a Key Vault secret bundle's ``value`` beside its ``id`` (a ``value`` is a secret by place only under a name or a pair's name)",
    "discord-bot-py": "a Discord bot token with no scheme (``Bot``) or name beside it: three base64 parts, no literal to anchor on",
    "pagerduty-routing-key": "PagerDuty's ``routing_key`` (a message broker's routing key is a name: the name cannot say)",
    "doc-pgbouncer-userlist": 'a file of positional lines (``"user" "password"``) with no name, as round 9\'s ``davfs-line-two``',
    "doc-samba-smbpasswd-stdin": "what a subshell group writes to a pipe (``(echo X; echo X) | smbpasswd -s``): the group is no simple command",
    "split-fstring": "a literal inside an f-string's braces (``f\"Bearer {'X'}\"``)",
    "log-var-dump": "PHP's ``var_dump`` (a name, then ``=>`` and a type's line before the value)",
    "shell-printf-env-file": "a format's placeholder given its value by position (``printf 'PW=%s' X``): the placeholder is masked, the argument shown",
    "code-perl-dbi": "Perl's ``DBI->connect(dsn, user, X)``: a method after ``->`` names no call of the table",
}

#: Near misses of this round's rules: types alone, subscripts, tables that describe, references
#: without a default, calls given variables, literals joined that make no token, ``tee`` to a log, an
#: option alone in a list, a ``#`` outside a password, pair names, dates, terminal text of no value.
CLEAN = [
    "def f(password: str, token: str) -> None:",
    "api_key: SecretStr = Field(...)",
    "val password: String = readPassword()",
    "labels[JOB_ID_KEY] = job_id",
    "self._masks[secret] = mask(secret)",
    "cfg[password] = hashed",
    "| password | string | required |",
    "| password | the password |",
    "| token | yes |",
    "**Note:** the password is rotated daily",
    "**token** expired",
    "const key = process.env.API_KEY;",
    "const key = process.env.API_KEY || fallback;",
    "jwt.decode(token, key, algorithms=['HS256'])",
    "hmac.new(key, msg, hashlib.sha256)",
    "Fernet(key)",
    "Fernet.generate_key()",
    "jwt.sign(payload, secret)",
    "new NetworkCredential(user, pass)",
    '"Bearer " + token',
    "'a' + 'b'",
    'x = "hello" + "world"',
    '"sk-" + key',
    "echo hello | tee out.log",
    "make 2>&1 | tee build.log",
    "terraform login",
    '["ls", "-la"]',
    '["mysql", "-uroot", "-p", "app"]',
    '["python", "-m", "pytest", "-x"]',
    "see https://x.com:80#b and c@d.com",
    '<add key="Mode" value="fast" />',
    "login: 2026/01/01",
    "login: bob",
    "credentials: a/b/c",
    "ｐａｓｓｗｏｒｄ",
    "パスワード（必須）",
    "全角：ＡＢＣ",
    "\x1b[32mOK\x1b[0m token expired",
    "\x1b[1mpassword\x1b[0m: \x1b[2m(hidden)\x1b[0m",
    'parser.password("Enter password")',
    'cache.key("user")',
    'versions.parse_pin("runai=2.30")',
    "pass\u200bword",
    "token\u00a0count:\u00a04096",
]

#: Forms shown in one container of tests/test_secrets_compose.py only (strict xfails there).
CONTAINER_GAPS: dict[tuple[str, str], str] = {
    **{
        (
            name,
            "bash-c",
        ): "quotes written ``'\"'\"'`` inside ``bash -c '…'`` (as round 8's ``cls-call-put-secret``)"
        for name in ("code-py-fernet", "cls-concat-hf")
    },
    (
        "doc-k8s-secret-stringdata-conf",
        "html",
    ): "a YAML block over lines as HTML-escaped text (as round 8's ``yaml-folded-block``)",
}

globals().update(form_tests(FORMS, KNOWN_GAPS, at_least=420, container_gaps=CONTAINER_GAPS, clean=CLEAN))


# --- every form in holders and encodings -----------------------------------------------------------

KEPT = [form for form in FORMS if form[0] not in KNOWN_GAPS]

#: Forms shown in one holder of the shared composition (tests/secret_forms.py: HOLDERS, ENCODINGS)
#: only: left out of it, each a strict xfail in that holder.
#: (A YAML block in HTML and quotes in ``bash -c '…'``: closed by tests/test_secrets_round12.py.)
HELD_GAPS: dict[tuple[str, str, str], str] = {
    (
        "doc-web-config-appsetting",
        "html",
        "percent",
    ): "markup's entities percent-encoded (one decoding, not the other after it: round 9's ``html-entities-decimal``)",
    (
        "cls-md-bold-colon-out",
        "ini-doc",
        "plain",
    ): "a list item's emphasis (``- **password**:``) after a quote, not at a line's start",
}
HELD = [form for form in KEPT if form[0] not in {name for name, _, _ in HELD_GAPS}]

test_every_form_in_every_holder_and_encoding = held_test(HELD, max_examples=250)


@pytest.mark.parametrize(("name", "holder", "encoding"), sorted(HELD_GAPS))
@pytest.mark.xfail(strict=True, reason="a known gap in one holder (HELD_GAPS)")
def test_held_gaps_are_still_shown(name: str, holder: str, encoding: str) -> None:
    from tests.secret_forms import ENCODINGS, HOLDERS

    _, text, secret = next(form for form in FORMS if form[0] == name)
    written = ENCODINGS[encoding](HOLDERS[holder](text))
    scrubbed = scrub(written)
    assert not shown(secret, scrubbed) and scrub(scrubbed) == scrubbed


# --- the classes this round closed, beyond their rows -----------------------------------------------

SECRETS = st.sampled_from([R + V, "hunter2x", "Tr0ub4dor&3", "x7Qz9!pL", "P@ssw0rd", V])
NAMES = st.sampled_from(
    ["password", "DB_PASSWORD", "api_key", "API_TOKEN", "secret", "apiKey", "client_secret"]
)


def _exactly(text: str, secret: str) -> None:
    scrubbed = scrub(text)
    assert not shown(secret, scrubbed), scrubbed
    assert scrub(scrubbed) == scrubbed


_FULL_WIDTH = {chr(c): chr(c + 0xFEE0) for c in range(0x21, 0x7F)}


@settings(max_examples=80, deadline=None, derandomize=True, database=None)
@given(
    name=NAMES,
    secret=SECRETS,
    separator=st.sampled_from(["=", ": ", " = "]),
    dress=st.lists(
        st.sampled_from(["ansi-name", "ansi-value", "full-width-name", "nbsp", "zero-width"]), max_size=3
    ),
    holder=st.sampled_from(["bare", "json", "base64"]),
)
def test_text_as_a_terminal_writes_it(
    name: str, secret: str, separator: str, dress: list[str], holder: str
) -> None:
    if "full-width-name" in dress:
        name = "".join(_FULL_WIDTH.get(c, c) for c in name)
    if "zero-width" in dress and len(name) > 3:
        name = name[:2] + "\u200b" + name[2:]
    if "nbsp" in dress:
        separator = separator.replace(" ", "\u00a0")
    if "ansi-name" in dress:
        name = f"\x1b[36m{name}\x1b[0m"
    secret_shown = f"\x1b[1;33m{secret}\x1b[0m" if "ansi-value" in dress else secret
    text = f"{name}{separator}{secret_shown}\n"
    text = {"bare": text, "json": json.dumps({"log": text}), "base64": b64(text)}[holder]
    _exactly(text, secret)


@settings(max_examples=80, deadline=None, derandomize=True, database=None)
@given(
    name=NAMES,
    secret=SECRETS,
    declaration=st.sampled_from(
        [
            "val {n}: String = {q}{s}{q}",
            "let {n}: String? = {q}{s}{q}",
            "const {n}: &str = {q}{s}{q};",
            "var {n} string = {q}{s}{q}",
            "param {n} securestring = {q}{s}{q}",
            "{n}: str = {q}{s}{q}",
            "private readonly {n}: string = {q}{s}{q};",
            "{n}: SecretStr = SecretStr({q}{s}{q})",
        ]
    ),
    quote=st.sampled_from(['"', "'"]),
)
def test_a_declarations_type_before_the_value(name: str, secret: str, declaration: str, quote: str) -> None:
    text = declaration.format(n=name, s=secret, q=quote)
    _exactly(text, secret)
    alone = declaration.split(" =", maxsplit=1)[0].format(n=name)  # (a type alone is no value)
    assert scrub(alone) == alone


@settings(max_examples=80, deadline=None, derandomize=True, database=None)
@given(
    name=NAMES,
    secret=SECRETS,
    form=st.sampled_from(
        [
            "**{n}:** {s}",
            "**{n}**: {s}",
            "__{n}__: {s}",
            "`{n}`: {s}",
            "- **{n}**: {s}",
            "    [{n}] => {s}",
            "| {n} | {s} |",
            "| `{n}` | `{s}` |",
        ]
    ),
)
def test_a_name_set_off_by_emphasis_brackets_or_a_table(name: str, secret: str, form: str) -> None:
    if "|" in form and " " in secret:
        secret = secret.replace(" ", "")
    _exactly(form.format(n=name, s=secret) + "\n", secret)


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(
    name=NAMES,
    secret=SECRETS,
    reference=st.sampled_from(
        ["process.env.API_KEY", "import.meta.env.VITE_KEY", "config.apiKey", "settings.DB_PASSWORD"]
    ),
    operator=st.sampled_from(["||", "??", "or"]),
    quote=st.sampled_from(['"', "'"]),
)
def test_a_default_after_a_reference(
    name: str, secret: str, reference: str, operator: str, quote: str
) -> None:
    text = f"const {name} = {reference} {operator} {quote}{secret}{quote};"
    _exactly(text, secret)
    assert reference in scrub(text)  # (the reference is no value)
    alone = f"const {name} = {reference};"
    assert scrub(alone) == alone or "env" not in reference


@settings(max_examples=80, deadline=None, derandomize=True, database=None)
@given(
    secret=SECRETS,
    call=st.sampled_from(
        [
            "jwt.encode({first}, {k}, algorithm='HS256')",
            "jwt.sign({first}, {k}, {{ expiresIn: '1h' }})",
            "jwt.verify({first}, {k})",
            "jwt.decode({first}, {k}, algorithms=['HS256'])",
            "hmac.new({k}, {first}, 'sha256')",
            "Fernet({k})",
            "new NetworkCredential('svc', {k}, 'CORP')",
            "algoliasearch('APP', {k})",
        ]
    ),
    first=st.sampled_from(["payload", "{'sub': 1}", "token", "[1, 2]", "body"]),
    quote=st.sampled_from(['"', "'"]),
)
def test_a_key_given_by_position(secret: str, call: str, first: str, quote: str) -> None:
    if "'" in secret and quote == "'":
        quote = '"'
    _exactly(call.format(first=first, k=f"{quote}{secret}{quote}"), secret)
    as_variable = call.format(first=first, k="key")
    assert scrub(as_variable) == as_variable


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(
    prefix=st.sampled_from(["ghp_", "hf_", "sk-ant-api03-", "glpat-", "npm_"]),
    split=st.integers(min_value=1, max_value=20),
    joiner=st.sampled_from([" + ", "+", " +\n  "]),
    quote=st.sampled_from(['"', "'"]),
)
def test_a_token_split_over_literals(prefix: str, split: int, joiner: str, quote: str) -> None:
    token = prefix + (R + V)[:36]
    head, tail = token[: len(prefix) + split], token[len(prefix) + split :]
    text = f"TOKEN = {quote}{head}{quote}{joiner}{quote}{tail}{quote}"
    scrubbed = scrub(text)
    assert tail not in scrubbed and scrub(scrubbed) == scrubbed


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(
    secret=SECRETS,
    feeder=st.sampled_from(["echo {s}", "printf '%s' {s}", "echo -n {s}"]),
    tee=st.sampled_from(["tee", "sudo tee", "tee -a", "sudo tee -a"]),
    path=st.sampled_from(["/run/secrets/db_password", "~/.config/app/token", "/etc/app/api.key", ".pgpass"]),
)
def test_what_tee_writes_to_a_credentials_file(secret: str, feeder: str, tee: str, path: str) -> None:
    import shlex

    _exactly(f"{feeder.format(s=shlex.quote(secret))} | {tee} {path} > /dev/null", secret)
    log = f"{feeder.format(s='hello')} | {tee} /var/log/app.log"
    assert scrub(log) == log


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(
    secret=st.sampled_from([R + V, "hunter2x", "Tr0ub4dor3", "P9sswrd42"]),
    tool=st.sampled_from(["mysql", "mysqldump", "mysqladmin"]),
    where=st.sampled_from(["json", "yaml", "dockerfile"]),
)
def test_an_attached_option_in_an_argument_list(secret: str, tool: str, where: str) -> None:
    items = json.dumps([tool, "-uroot", f"-p{secret}", "app"])
    text = {"json": items, "yaml": f"command: {items}\n", "dockerfile": f"CMD {items}\n"}[where]
    _exactly(text, secret)


# --- linear work ---------------------------------------------------------------------------------

#: The patterns this round added to the name reader, whose reading is counted.
_COUNTED = ("typed", "closer", "default", "cell", "pair-attribute", "positional-argument", "user-pair")


@pytest.mark.parametrize(
    "unit",
    [
        'val password: String = "hunter2x"\n',
        "password: str\n",
        "**Password:** hunter2x\n",
        "[password] => hunter2x\n",
        "| API_TOKEN | `Qz7vK2mX9pL4wR8tNb3YcD6fHj` |\n",
        "| token | " * 10 + "\n",
        'key = process.env.API_KEY || "hunter2x";\n',
        '<add key="DbPassword" value="hunter2x" />',
        "jwt.encode(payload, 'hunter2x', algorithm='HS256'); ",
        "jwt.encode(" * 10,
        "login: bob / hunter2x\n",
    ],
)
def test_the_new_readers_work_linearly(monkeypatch: pytest.MonkeyPatch, unit: str) -> None:
    assert_linear(named_work(monkeypatch, _COUNTED, unit))


@pytest.mark.parametrize(
    "unit",
    [
        "\x1b[31mpassword\x1b[0m=ｈｕｎｔｅｒ\u00a0x ",
        "'sk-' + 'proj' + ",
        "a\u200bb\u3000c ",
        "x + y '' + ''",
    ],
)
def test_the_new_views_work_linearly(monkeypatch: pytest.MonkeyPatch, unit: str) -> None:
    from jobschema.secrets import encodings

    count = [0]
    patterns = dict(encodings._patterns())
    for key in ("terminal", "joined"):
        patterns[key] = CountingPattern(patterns[key], count)  # type: ignore[assignment]
    monkeypatch.setattr(encodings, "_patterns", lambda: patterns)

    def read(text: str) -> None:
        for view in encodings.views(text):
            assert len(view.text) <= len(text)

    assert_linear(work_of(read, unit, count))


# --- output channels: an error line quoting what the user gave -------------------------------------

#: Forms every reader masks, given on the command line where an error quotes them.
GIVEN = [
    (f"sshpass -p {W}Q ssh h", f"{W}Q"),
    (f"hf_{R}{V[:8]}", f"hf_{R}"),
    (f"postgres://bob:{W}z@db/app", f"{W}z"),
]


@pytest.mark.parametrize(("form", "secret"), GIVEN)
def test_an_error_line_masks_a_secret_the_command_line_gave(
    run_cli: Any, tmp_path: Path, form: str, secret: str
) -> None:
    seed = tmp_path / "seed.json"
    seed.write_text(
        (Path(__file__).parent.parent / "schemas/examples/runai-distributed-workload/seed.json").read_text(
            "utf-8"
        ),
        "utf-8",
    )
    folder = tmp_path / ("password=" + form.replace("/", "_").replace(" ", "_"))
    folder.mkdir()
    broken = folder / "job.json"
    broken.write_text("{broken", "utf-8")
    runs = [
        (["validate", "--api-version", form, str(seed)], 2),
        (["generate", form], 2),
        (["rules", form], 2),
        (["serve", "--host", form, "--port", "1"], 2),
        (["redact", str(broken)], 1),
    ]
    for args, code in runs:
        result = run_cli(args, code=code)
        assert result.stderr.startswith("Error: "), result.stderr
        plain = secret.replace("/", "_") if args[0] == "redact" else secret
        assert not shown(plain, result.stdout, result.stderr), result.stderr


def test_an_error_line_keeps_its_own_words(run_cli: Any) -> None:
    # (the message's option names are no values: only what the command line gave is read)
    result = run_cli(["validate", "--api-version", "runai", "x.json"], code=2)
    assert "<secret:" not in result.stderr and "--api-version" in result.stderr
