"""The secret policy's table: what is a credential by name, by place, by shape and by context.

Everything the policy decides is declared here, as data; the readers of :mod:`jobschema.secrets` apply
it. To teach the policy something new, add a row here (and a planted case to
``tests/fixtures/secrets/forms/``), not code elsewhere:

- a **name** (an object key, env var, header, flag, INI/YAML/TOML key, XML element): a word to
  :data:`CREDENTIAL_WORDS` (or :data:`SHORT_WORDS`, :data:`TAIL_WORDS`, :data:`QUALIFIED_WORDS`,
  :data:`KEY_QUALIFIERS`, :data:`LOCATOR_NAMES`); a word before it that makes it something else to
  :data:`NOT_AFTER`; a last word that says a name only *refers to* a credential to
  :data:`REFERENCE_WORDS`;
- a **header**: a last word that makes a header named for an API hold its key to
  :data:`HEADER_TAIL_WORDS`, a header listing a credential after its name to :data:`LIST_HEADERS`;
- a **place** (a member that holds a credential whatever its name): :data:`SECRET_KEYS`,
  :data:`LOGIN_HOLDERS`, :data:`SECRET_CONTAINERS`, :data:`SECRET_MEMBERS`;
- a **command** option: :data:`COMMANDS` (a tool's short options and positional credentials),
  :data:`STDIN_WORDS` (options that read a credential from standard input), :data:`STDIN_ARGUMENTS`
  (tools reading their arguments on standard input), :data:`VALUE_OPTIONS` (a value stored as a
  secret);
- **code**: :data:`CONNECTION_CALLS` (calls given a user and a password), :data:`LOGIN_CALLS`;
- an **authorization scheme**: :data:`TOKEN_SCHEMES` or :data:`PARAMETER_SCHEMES`;
- a **context** in prose (``the password is …``): :data:`CONTEXTS`;
- a **token shape** (a provider's key format): :func:`jobschema.secrets.shapes.own`, with its anchors.

What the policy deliberately leaves alone is :data:`NOT_MASKED`.
"""

from __future__ import annotations

from typing import NamedTuple

# --- by name -------------------------------------------------------------------------------------

#: Words that are a credential, and fused words ending in one (``clientsecret``, ``apitoken``).
CREDENTIAL_WORDS = (
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "credential",
    "credentials",
    "cookie",
    "signature",
    "authorization",
    "apikey",
    "accesskey",
    "secretkey",
    "privatekey",
    "dockerconfigjson",
    "dockercfg",
    "contrasena",
    "passwort",
    "motdepasse",
    "creds",
    "masterauth",
    "passcode",
    "privkey",
    "mnemonic",  # a wallet's seed words (``MNEMONIC="abandon ability …"``)
    # session cookies of servlet containers and PHP
    "jsessionid",
    "phpsessid",
    # LDAP's bind and root passwords (nslcd.conf, slapd.conf)
    "bindpw",
    "rootpw",
    # an expect script's prompt, written without its first letter to match either case
    # (``expect "*assword:"; send "X\r"``)
    "assword",
    # PAM's and SSSD's authentication token (``ldap_default_authtok``), a macaroon (a bearer token)
    "authtok",
    "macaroon",
    # curl's ``CURLOPT_USERPWD``/``CURLOPT_PROXYUSERPWD`` (``user:password``), ``--proxy-userpwd``
    "userpwd",
)
#: Words that name a credential as the last word of an environment variable's name (upper case) or a
#: header's only: ``BEARER=X``, ``API_BEARER`` (in prose, ``Bearer authentication`` names none).
LOOSE_WORDS = frozenset({"bearer"})
#: Words for password in other languages written in Latin letters, compared whole (``senha`` but not
#: ``resenha``), wherever they stand in a name (``senha_banco``, ``DB_KENNWORT``); letters with
#: diacritics are read without them (``contraseña``, ``hasło``, ``şifre``, ``lösenord``: see
#: :func:`jobschema.secrets.names.words`).
FOREIGN_WORDS = frozenset(
    {"contrasena", "contrasenya", "contrasinal", "kennwort", "wachtwoord", "wagwoord", "senha", "heslo"}
    | {"haslo", "sifre", "losenord", "salasana", "jelszo", "passord", "adgangskode", "lozinka", "geslo"}
)
#: Names that hold a credential though no word of theirs says so, the ends of names in lower case
#: (SonarQube's ``sonar.login``, also as ``-Dsonar.login``: a token; its ``sonar.token`` says so).
SECRET_NAMES: tuple[str, ...] = ("sonar.login",)
#: Fused words ending in ``pass`` are credentials (``storepass``, ``requirepass``, ``PGPASS``) but these.
NOT_PASS_WORDS = frozenset(
    {"bypass", "compass", "encompass", "overpass", "underpass", "trespass", "surpass"}
    | {"extpass"}  # (encfs's ``--extpass=PROGRAM``: a command that prints the password)
)
#: Words before a last ``pass`` that make it something else (nginx's ``proxy_pass``, ``fastcgi_pass``).
PASS_NOT_AFTER = frozenset(
    {"proxy", "fastcgi", "uwsgi", "scgi", "grpc", "memcached", "by", "first", "second"}
)
#: Words before a short or tail word that make it something else: ``proxy_pass``, ``cpu_pin``
#: (pinning to a core), ``codeSigning`` (a switch).
NOT_AFTER: dict[str, frozenset[str]] = {
    "pass": PASS_NOT_AFTER,
    "pin": frozenset({"cpu", "gpu", "numa", "core", "cores", "thread", "threads", "memory", "mem", "irq"}),
    "signing": frozenset({"code", "commit", "tag", "image", "artifact", "package", "git", "gpg", "request"}),
}
#: Words before ``token`` that make it a model's vocabulary entry (a special token, its id), not a
#: credential: ``pad_token``, ``eos_token_id``, ``decoder_start_token_id``, ``mask_token``.
VOCABULARY_WORDS = frozenset(
    {"pad", "eos", "bos", "unk", "sep", "cls", "mask", "special", "start", "end", "stop", "vocab"}
    | {"image", "video", "audio", "im", "added", "sentinel", "boi", "eoi", "boa", "eoa", "think"}
)
#: Tail words that say credential only after another word (``HMAC_SALT``, ``JWT_SIGNING``; a
#: ``salt`` or ``signing`` alone is a setting or a section).
NOT_FIRST = frozenset({"signing", "salt", "pepper"})
#: Credential words of other scripts, compared whole (Chinese: password, passphrase, key, secret key,
#: private key, token, credential).
SCRIPT_WORDS = frozenset(
    {"密码", "口令", "密钥", "秘钥", "私钥", "令牌", "凭证", "凭据"}
    # traditional Chinese, Japanese and Korean: password, key, private key, passphrase, PIN
    | {
        "密碼",
        "密鑰",
        "金鑰",
        "私鑰",
        "パスワード",
        "パスフレーズ",
        "暗証番号",
        "秘密鍵",
        "비밀번호",
        "패스워드",
    }
    # Russian, Ukrainian, Bulgarian; Greek; Arabic; Hebrew; Thai; Hindi; Vietnamese (compared in
    # lower case: ``ПАРОЛЬ``)
    | {"пароль", "парола", "συνθηματικό", "κωδικός πρόσβασης", "κωδικός_πρόσβασης", "كلمة المرور"}
    | {"كلمة_المرور", "كلمة السر", "סיסמה", "סיסמא", "รหัสผ่าน", "पासवर्ड", "mật khẩu", "mật_khẩu"}
)
#: A name of another script holding one of :data:`SCRIPT_WORDS` (``数据库密码``, ``访问密钥ID``) is a
#: credential, unless it ends in one of these (name, path, file, type, length, policy, rule, hint,
#: mode, version, count, expiry, time, format, strength, management, service, error, field, -logy).
SCRIPT_REFERENCE_SUFFIXES = (
    "名称",
    "名字",
    "名",
    "路径",
    "文件",
    "类型",
    "长度",
    "策略",
    "规则",
    "提示",
    "方式",
    "模式",
    "版本",
    "数量",
    "有效期",
    "过期时间",
    "时间",
    "格式",
    "强度",
    "复杂度",
    "管理",
    "服务",
    "错误",
    "字段",
    "引用",
    "学",
)
#: Short words that are a credential only as a whole word at the end of a name, or before one of
#: :data:`TRAILERS` (``DB_PASS``, ``BCE_SK``, ``ak_id``; not ``pass_rate``, ``akProfile``).
SHORT_WORDS = frozenset({"pwd", "pw", "pass", "pat", "ak", "sk", "sig", "auths", "psk", "otp", "pin", "cred"})
#: Names of several credentials: a plural of these words (``passwords``, ``API_KEYS``), or of the
#: last word of :data:`PLURAL_QUALIFIED` after one of its words (``api_keys``, ``accessTokens``,
#: ``client_secrets``; not ``max_tokens``, ``special_tokens``, ``imagePullSecrets``, ``ssh_keys``,
#: which list public keys): the value holds them all (``API_KEYS=k1,k2``, ``{"prod": k1}``).
PLURAL_WORDS = frozenset(
    {"password", "passwd", "passphrase", "passcode", "apikey", "accesskey", "secretkey", "privatekey"}
    | {"authtoken", "accesstoken", "apitoken", "clientsecret"}
)
PLURAL_QUALIFIED: dict[str, frozenset[str]] = {
    "key": frozenset({"api", "access", "secret", "private", "client", "master", "encryption", "signing"})
    | frozenset({"auth", "account", "license", "webhook", "hmac", "subscription", "storage", "service"}),
    "token": frozenset({"auth", "access", "api", "bearer", "session", "refresh", "oauth", "personal"})
    | frozenset({"deploy", "bot", "registration", "runner", "service", "id", "github", "gitlab", "npm"}),
    "secret": frozenset({"client", "webhook", "jwt", "app", "api", "shared", "signing", "oauth"}),
}
#: One-time password words: they make a credential of a following ``seed`` or ``code`` (``OTP_SEED``,
#: ``MFA_CODE``; not ``random_seed``, ``exit_code``).
OTP_WORDS = frozenset({"otp", "totp", "hotp", "mfa"})
#: Words that are a credential after one of their qualifiers, as the last word of a name (or before
#: one of :data:`TRAILERS`).
QUALIFIED_WORDS: dict[str, frozenset[str]] = {
    "seed": OTP_WORDS,
    "code": OTP_WORDS | {"pin"},
    # (OCI's ``pass_phrase``; a wallet's ``seed_phrase``, ``recovery_phrase``)
    "phrase": frozenset({"pass", "seed", "recovery", "mnemonic", "wallet"}),
    # a credential word split in two (``pass_word``, ``dbPassWd``, ``mot_de_passe``, ``palavra-passe``,
    # ``parola_d_ordine``)
    "word": frozenset({"pass"}),
    "wd": frozenset({"pass"}),
    "passe": frozenset({"de", "palavra"}),
    "ordine": frozenset({"d"}),
}
#: Words that make a credential of a following ``key``.
KEY_QUALIFIERS = frozenset(
    {
        "api",
        "access",
        "secret",
        "private",
        "priv",
        "account",
        "auth",
        "client",
        "signing",
        "encryption",
        "master",
        "service",
        "ssh",
        "db",
        "database",
        "app",
        "storage",
        "subscription",
        "license",
        "shared",
        "session",
        "hmac",
        "webhook",
        "consumer",
        "root",
        "admin",
        "preshared",
        "sas",  # (a shared access signature's key: Azure's ``aeg-sas-key`` header)
        "application",  # (Datadog's ``dd-application-key``)
    }
)
#: Words before ``key`` that make it an identifier's key (``sort_key``, ``PUBLIC_KEY``): in an env var's
#: name (``OPENAI_KEY``, also a command option, ``--wandb-key``) any other word before ``key`` makes a
#: credential.
PLAIN_KEY_QUALIFIERS = frozenset(
    {
        "sort",
        "partition",
        "primary",
        "foreign",
        "cache",
        "index",
        "hash",
        "shard",
        "routing",
        "lookup",
        "group",
        "map",
        "dict",
        "label",
        "node",
        "object",
        "bucket",
        "row",
        "column",
        "table",
        "composite",
        "unique",
        "cluster",
        "topology",
        "metric",
        "event",
        "message",
        "idempotency",
        "dedup",
        "feature",
        "sequence",
        "search",
        "entity",
        "resource",
        "range",
        "record",
        "item",
        "lock",
        "field",
        "property",
        "tag",
        "public",
        "pub",
        "join",
        "match",
        "dataset",
        "input",
        "output",
        "image",
        "model",
        "config",
        "env",
        "value",
        "file",
        "s3",
        "storage",
        "list",
        "sub",
    }
)
#: Words that are a credential as the last word of an HTTP header's name (``X-JFrog-Art-Api``: a
#: header named for an API carries its key). A header's name (``X-…``, hyphenated) is judged as an env
#: var's is: any ``key`` but an identifier's is a credential (``x-amz-server-side-encryption-customer-key``;
#: a ``customer_key`` column is no header).
HEADER_TAIL_WORDS = frozenset({"api", "team"})  # (Honeycomb's ``X-Honeycomb-Team``: the team's key)
#: Headers whose value is a list in which a credential's name stands before the credential (a token
#: as a WebSocket subprotocol: ``Sec-WebSocket-Protocol: access_token, X``).
LIST_HEADERS = frozenset({"sec-websocket-protocol"})
#: Words that count only at the end of a name (or before one of :data:`TRAILERS`).
TAIL_WORDS = frozenset({"auth", "session", "sessionid", "signing", "salt", "pepper"})
TRAILERS = frozenset(
    {"config", "header", "id", "key", "token", "cookie", "string", "data", "value", "json"}
    | {"hex", "b64", "base64", "encoded", "enc", "raw", "plain", "text", "str", "env"}
    | {"ident"}  # (Yarn's ``npmAuthIdent: "user:password"``)
)
#: Last words that say a name holds a command that prints a credential, not the credential
#: (``AIRFLOW__CORE__FERNET_KEY_CMD=cat /run/key``, ``password_command``, ``credential_process``): its
#: value is shown, unless the command prints a literal (``echo X``, ``printf X``), which is the
#: credential (``jobschema.secrets.values``).
COMMAND_WORDS = frozenset(
    {"cmd", "command", "commands", "exec", "eval", "script", "process", "helper", "helpers", "program"}
    | {"dialog"}  # (Apache's ``SSLPassPhraseDialog exec:/path``: a program that prints the passphrase)
)
#: Names that are one fused word saying the value is the command printing a password (encfs's and
#: gocryptfs' ``--extpass PROGRAM``, borg's ``BORG_PASSCOMMAND``): judged as ``password_command`` is.
COMMAND_NAMES = frozenset({"extpass", "passcommand", "passcmd", "passwordcommand", "passexec"})
#: Names whose value is ``user:password`` (a ``.curlrc``'s ``user = "bob:X"``, ``--user bob:X`` of a
#: tool without a row, ``--creds``, ``--proxy-user``): the part after the first ``:`` is a password
#: when it looks like one (:func:`jobschema.secrets.values.pair_password`: not ``1000:1000``,
#: ``app:app``, ``root:wheel``, ``$(id -u):$(id -g)``).
USER_PAIR_NAMES = frozenset(
    {("user",), ("proxy", "user"), ("creds",), ("src", "creds"), ("dest", "creds"), ("auth", "cred")}
    | {("user", "pass"), ("userpass",), ("basic", "auth", "user")}
    | {("login",)}  # (Squid's ``cache_peer … login=bob:X``)
)
#: Options of any command whose value is ``user:password`` (beside the tools' own rows, which win).
USER_PAIR_OPTIONS = frozenset(
    {"-u", "--user", "--proxy-user", "--creds", "--src-creds", "--dest-creds", "--auth-cred"}
    | {"--userpass", "--user-pass", "--http-user-pass"}
)
#: Words a placeholder of a help text or a usage line is made of, in upper case (``--credentials FILE``,
#: ``--password PASSWORD``, ``--token TEXT``), beside :data:`REFERENCE_WORDS`: a value named so names
#: what is given, it is not given.
METAVAR_WORDS = frozenset(
    {"text", "string", "str", "value", "val", "values", "arg", "args", "argument", "key", "keys", "id"}
    | {"data", "input", "output", "n", "int", "integer", "float", "bool", "user", "username", "host"}
    | {"port", "secret", "secrets", "password", "passwd", "pass", "passphrase", "pin", "token", "tokens"}
    | {"credentials", "credential", "creds", "cred", "pw", "pwd", "api", "auth", "access", "private"}
)
#: Last words that say a name refers to or describes a credential instead of holding one.
REFERENCE_WORDS = frozenset(
    {
        "name",
        "names",
        "ref",
        "refs",
        "path",
        "paths",
        "file",
        "files",
        "filename",
        "dir",
        "directory",
        "mount",
        "type",
        "types",
        "kind",
        "method",
        "methods",
        "mode",
        "policy",
        "enabled",
        "disabled",
        "required",
        "length",
        "ttl",
        "url",
        "uri",
        "endpoint",
        "provider",
        "source",
        "format",
        "expiry",
        "expires",
        "expiration",
        "expire",
        "expired",
        "at",
        "in",
        "stdin",
        "fd",
        "env",
        "count",
        "limit",
        "size",
        "budget",
        "num",
        "number",
        "index",
        "timeout",
        "lifetime",
        "duration",
        "version",
        "hint",
        "prompt",
        "label",
        "description",
        "schema",
        "strategy",
        "selector",
        "template",
        "class",
        "field",
        "rotation",
        "store",
        "manager",
        "used",
        "set",
        # what a model's configuration says of its tokens and keys (``token_dropout``,
        # ``num_key_value_heads``, ``token_embedding_dim``): numbers about them, not credentials
        "dropout",
        "heads",
        "head",
        "dim",
        "dims",
        "embedding",
        "embeddings",
        "ratio",
        "prob",
        "probs",
        "logits",
    }
)
#: Names of a connection string or a database URL (``CONN_STR``, ``DATABASE_URL_RAW``, ``dsn``), as
#: the last words of a name (or before one of :data:`TRAILERS`): their value is read for the credential
#: inside it (``user:password@``, ``Password=…;``); an opaque value that looks random is the credential.
LOCATOR_NAMES = frozenset(
    {
        ("conn", "str"),
        ("conn", "string"),
        ("connection", "str"),
        ("connection", "string"),
        ("connstr",),
        ("connectionstring",),
        ("database", "url"),
        ("database", "uri"),
        ("db", "url"),
        ("db", "uri"),
        ("dsn",),
    }
)
#: First words that make a name a switch about a credential, not one (``--no-password``,
#: ``enablePassword``, ``--with-token`` reads it from standard input).
SWITCH_WORDS = frozenset(
    {
        "no",
        "skip",
        "disable",
        "enable",
        "ask",
        "prompt",
        "require",
        "allow",
        "show",
        "print",
        "with",
        "generate",
    }
)
#: A dotted name ending in one of these names a file (``secret-job.json``), not a credential.
FILE_SUFFIXES = frozenset(
    {
        "json",
        "ndjson",
        "jsonl",
        "har",
        "yaml",
        "yml",
        "toml",
        "ini",
        "cfg",
        "conf",
        "txt",
        "log",
        "md",
        "py",
        "sh",
    }
)
#: Names that hold a credential only as a URL query or form parameter (``?key=``, ``&sig=``, a request's
#: signature as Chinese APIs name it: DingTalk's ``&sign=``).
PARAMETER_NAMES = frozenset({"key", "sig", "sign"})

# --- by place ------------------------------------------------------------------------------------

#: Keys whose values are credentials wherever they appear (beyond the name rule).
SECRET_KEYS = frozenset({"imagePullSecretUsername", "imagePullSecretPassword", "bosTemporaryToken"})
#: ``(parent, member)``: members holding credentials by their parent's name, whatever their own (cloud-init's
#: ``chpasswd: {list: …}``, ``user:password`` lines, a text block or a list, as ``chpasswd`` reads them on
#: standard input).
SECRET_MEMBERS = frozenset({("chpasswd", "list")})
#: Objects mapping hosts to their tokens (Composer's ``auth.json``: ``{"github-oauth": {"github.com":
#: X}}``): a host's value under one of these, or under a name that says credential, is its token.
HOST_TOKEN_MAPS = frozenset({"github-oauth", "gitlab-oauth", "gitlab-token", "bearer", "bearer-tokens"})
#: Objects holding a registry login, and its keys (the create request's ``jobSpec.imageConfig``).
LOGIN_HOLDERS = frozenset({"imageConfig"})
LOGIN_KEYS = frozenset({"username", "password"})
#: A member that holds a login's credential when a user stands beside it in the same object
#: (``kaggle.json``: ``{"username": "bob", "key": "…"}``), and the members that name the user.
USER_KEYS = frozenset({"key", "Key", "KEY"})
USER_NAMES = frozenset({"username", "userName", "user", "login", "Username", "User"})
#: ``(kind, members)``: in an object whose ``kind`` is the first, every value under these members is
#: a credential (a Kubernetes Secret's ``data`` and ``stringData``, in JSON or YAML, at any depth).
SECRET_CONTAINERS = (("Secret", frozenset({"data", "stringData"})),)
#: A JSON Web Key's private members (RFC 7518: an RSA key's ``d``, ``p``, ``q``, ``dp``, ``dq``,
#: ``qi``, an EC or OKP key's ``d``, a symmetric key's ``k``): secrets in an object holding ``kty``,
#: whatever its other members (its public ``n``, ``e``, ``x``, ``y`` stay).
JWK_PRIVATE_MEMBERS = frozenset({"d", "p", "q", "dp", "dq", "qi", "k"})
#: Members whose value is a pair's name (``{"name": "HF_TOKEN", "value": …}``) or its label (``key``,
#: ``{"k": "api_token", "v": …}``).
PAIR_NAMES = ("name", "key", "k", "Name", "Key", "NAME", "KEY")
#: The members holding a pair's value.
PAIR_VALUES = frozenset({"value", "val", "v", "Value", "Val", "VALUE"})
#: In an object under a credential's name (``{"password": {…}}``) a string is the credential
#: (``{"password": {"plain": X}}``), but under these keys, compared as names are, word by word: a
#: reference to where it is kept (``secretKeyRef``, ``valueFrom``, ``vault``, ``$ref``; also any key
#: whose last word is a :data:`REFERENCE_WORDS` one: ``secretName``, ``path``, ``env``), or words about
#: it (a JSON Schema's ``description``, ``format``, ``examples``). Nothing below them is a credential by
#: this rule.
NOT_HELD_KEYS = frozenset(
    {"ref", "key", "keys", "from", "vault", "store", "secret", "secrets", "provider", "selector", "lookup"}
    | {"description", "title", "comment", "note", "notes", "help", "example", "examples", "enum"}
    | {"pattern", "const", "algorithm", "alg", "encoding", "charset", "unit", "scheme", "deprecated"}
    | {"fn", "get", "att", "sub", "import", "join", "select", "reference", "resolve", "id", "arn"}
)

# --- commands ------------------------------------------------------------------------------------


class Tool(NamedTuple):
    """A command's credential options: ``options`` take the credential as their value (attached,
    ``-pSECRET``, ``-hpSECRET``, ``/pass:SECRET``, or the next word, ``/rp SECRET``); ``after`` maps
    an option to the separator its value's secret part follows (``curl -u user:PASS``: ``":"``);
    ``positional``: which positional words are secrets (``-1`` the last), given the words the
    ``subcommand`` starts with; ``follows``: the positional word after the first one starting with it
    is a secret (``net use \\\\srv\\share X``); ``windows``: its switches start with ``/`` and are
    no positional words; ``valued``: options whose next word is their value, not a positional word
    (``openssl passwd -in FILE``); ``typed``: options that say how the ``after`` options' values are
    read (httpie's ``-A bearer``): unless they name a type of :data:`AUTH_PAIR_TYPES`, those values
    are credentials whole (``http -A bearer -a TOKEN``).

    ``pair``: the positional words are ``user:password`` pairs, the part after the ``:`` a secret
    when it looks like a password (``bundle config set HOST bob:X``; ``bundle config set path
    vendor/bundle`` holds none); ``login``: the first positional word is an Oracle login,
    ``user/password[@db]`` (``imp scott/X@orcl``, ``CONNECT scott/X``): the part after the ``/``;
    ``keyed``: the positional words count only after a key starting so (``composer config
    http-basic.HOST bob X``, not ``composer config name vendor/pkg``); ``named``: a switch naming a
    value and the switch giving it (``reg add KEY /v Password /d X``): the value when the name says
    credential; ``attached``: options whose value is only ever attached (``mysql -pX``,
    ``--password=X``): the word after them is another argument (``mysql -u root -p app``: the
    database), a credential only when it looks generated; ``when``: the positional words count only
    when this option is given (``htpasswd -b F U X``; ``htpasswd -c F U`` prompts), also among short
    flags run together (``-nb``).

    An ``after`` option's value without its separator, or with nothing after it (``curl -u TOKEN:``,
    GitHub's and Stripe's way of giving a token as the user), is a credential whole when it looks
    random (a user's name does not)."""

    options: frozenset[str] = frozenset()
    after: tuple[tuple[str, str], ...] = ()
    positional: tuple[int, ...] = ()
    subcommand: tuple[str, ...] = ()
    follows: str = ""
    windows: bool = False
    valued: frozenset[str] = frozenset()
    typed: frozenset[str] = frozenset()
    pair: bool = False
    login: bool = False
    keyed: str = ""
    named: tuple[str, str] | None = None
    attached: frozenset[str] = frozenset()
    when: str = ""


def _tool(*options: str, after: tuple[tuple[str, str], ...] = (), positional: tuple[int, ...] = ()) -> Tool:
    return Tool(frozenset(options), after, positional)


_MYSQL = Tool(frozenset({"-p"}), attached=frozenset({"-p", "--password"}))
_LOGIN = Tool(frozenset({"-p"}), subcommand=("login",))
_LDAP = _tool("-w", "-y")
_SEVEN_ZIP = _tool("-p")
_SQLSERVER = _tool("-P")
#: Tools whose short options (or positional words) carry a credential. Long options named like a
#: credential (``--password``, ``--api-key``, ``-storepass``) count for every command without a row.
COMMANDS: dict[str, tuple[Tool, ...]] = {
    **dict.fromkeys(("mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlsh", "mariadb"), (_MYSQL,)),
    "mariadb-dump": (_MYSQL,),
    "sshpass": (_tool("-p"),),
    # ``redis-cli -a X``, ``redis-cli AUTH [user] X`` (also on standard input: STDIN_ARGUMENTS)
    **dict.fromkeys(
        ("redis-cli", "keydb-cli", "valkey-cli"),
        (
            _tool("-a", "--pass", "--askpass"),
            Tool(positional=(-1,), subcommand=("AUTH",)),
            Tool(positional=(-1,), subcommand=("auth",)),
        ),
    ),
    **dict.fromkeys(
        ("curl", "curlie"),
        (  # (curlie: curl's options, httpie's output)
            _tool(
                "--oauth2-bearer",
                after=(
                    ("-u", ":"),
                    ("--user", ":"),
                    ("-b", "="),  # ``-b 'JSESSIONID=X; lang=en'``: a cookie's value (``-b FILE``: none)
                    ("-U", ":"),
                    ("--proxy-user", ":"),
                    ("-E", ":"),
                    ("--cert", ":"),
                    ("--proxy-cert", ":"),
                ),
            ),
        ),
    ),
    "wget": (_tool(),),
    **dict.fromkeys(("zip", "unzip", "zipcloak"), (_tool("-P"),)),
    **dict.fromkeys(("7z", "7za", "7zz", "7zr"), (_SEVEN_ZIP,)),
    **dict.fromkeys(("rar", "unrar"), (_tool("-p", "-hp"),)),
    # Samba's tools: ``-U user%PASSWORD``
    **dict.fromkeys(
        ("smbclient", "smbcacls", "smbget", "smbtree", "smbcquotas", "winexe", "samba-tool", "rpcclient"),
        (_tool(after=(("-U", "%"), ("--user", "%"))),),
    ),
    # ``mkpasswd -m sha-512 PASSWORD [SALT]``
    "mkpasswd": (
        Tool(positional=(0,), valued=frozenset({"-m", "--method", "-S", "--salt", "-R", "--rounds"})),
    ),
    # ``bw login EMAIL PASSWORD``
    "bw": (Tool(positional=(1,), subcommand=("login",)),),
    # macOS keychain: ``security add-generic-password -a bob -s svc -w PASSWORD``
    **dict.fromkeys(("ldapsearch", "ldapadd", "ldapmodify", "ldapdelete", "ldapwhoami"), (_LDAP,)),
    **dict.fromkeys(("sqlcmd", "bcp", "osql"), (_SQLSERVER,)),
    "az": (_LOGIN,),
    **dict.fromkeys(("docker", "podman", "nerdctl", "buildah", "skopeo", "helm", "oras", "crane"), (_LOGIN,)),
    "cf": (_LOGIN,),
    "oc": (_LOGIN,),
    "twine": (_tool("-p"),),
    **dict.fromkeys(
        ("mongo", "mongosh", "mongodump", "mongorestore", "mongoexport", "mongoimport"), (_tool("-p"),)
    ),
    "ipmitool": (_tool("-P", "-k"),),
    **dict.fromkeys(("snmpwalk", "snmpget", "snmpset", "snmpbulkwalk"), (_tool("-c", "-A", "-X"),)),
    **dict.fromkeys(("mosquitto_pub", "mosquitto_sub"), (_tool("-P"),)),
    "lftp": (_tool(after=(("-u", ","),)),),
    "rdesktop": (_tool("-p"),),
    "xfreerdp": (_tool("/p:"),),
    "openssl": (
        _tool("-k", "-K", after=(("-pass", "pass:"), ("-passin", "pass:"), ("-passout", "pass:"))),
        Tool(positional=(-1,), subcommand=("passwd",), valued=frozenset({"-in", "-salt"})),
    ),
    "htpasswd": (Tool(positional=(-1,), when="-b"),),
    # (the eighth round: tools no row had)
    "mosquitto_passwd": (Tool(positional=(-1,), when="-b"),),
    "dscl": (Tool(positional=(-1,), when="-passwd"),),  # ``dscl . -passwd /Users/bob X``
    # unixODBC's ``isql DSN USER PASSWORD``, Sybase's ``isql -Usa -PX`` (one row: a second key of
    # this table replaced the first, and ``-P`` went unread)
    "isql": (_SQLSERVER, Tool(positional=(2,))),
    "db2": (Tool(follows="using"),),  # ``db2 connect to DB user bob using X``
    "security": (
        Tool(frozenset({"-w"}), subcommand=("add-generic-password",)),
        Tool(frozenset({"-w"}), subcommand=("add-internet-password",)),
        Tool(frozenset({"-p"}), subcommand=("unlock-keychain",)),
        Tool(frozenset({"-p"}), subcommand=("create-keychain",)),
        Tool(frozenset({"-P"}), subcommand=("import",)),
    ),
    "dotnet": (
        Tool(frozenset({"-k"}), subcommand=("nuget", "push")),
        # (the user's ``-p``, as for any tool without a row: ``dotnet nuget add source … -u bob -p X``)
        Tool(frozenset({"-p"}), subcommand=("nuget", "add", "source")),
        Tool(frozenset({"-p"}), subcommand=("nuget", "update", "source")),
    ),
    "nuget": (Tool(positional=(0,), subcommand=("setapikey",)),),
    "nmcli": tuple(
        Tool(follows=lead) for lead in ("password", "wifi-sec.psk", "802-11-wireless-security.psk")
    ),
    "mc": (
        Tool(positional=(-2, -1), subcommand=("alias", "set")),
        Tool(positional=(-2, -1), subcommand=("host", "add")),
        # ``mc admin user add ALIAS USER PASSWORD``
        Tool(positional=(2,), subcommand=("admin", "user", "add")),
    ),
    # a password's hash is a login too (``useradd -p HASH``)
    **dict.fromkeys(("useradd", "usermod"), (_tool("-p"),)),
    # Huawei OBS's ``obsutil config -i=ID -k=KEY -t=TOKEN`` (Go flags: ``-k=X`` or ``-k X``)
    "obsutil": (_tool("-k", "-t"),),
    "vault": (
        Tool(positional=(-1,), subcommand=("login",)),
        Tool(positional=(-1,), subcommand=("operator", "unseal")),
        # a token looked up, renewed or revoked (``vault token lookup s.X``; ``-accessor A`` names one)
        *(
            Tool(positional=(-1,), subcommand=("token", verb), valued=frozenset({"-accessor", "-format"}))
            for verb in ("lookup", "renew", "revoke")
        ),
    ),
    # InfluxDB's CLI: ``-t`` is its token (``influx config create -t X``, ``influx query -t X``), ``-p``
    # a password (``influx setup -u bob -p X``)
    "influx": (_tool("-t", "-p"),),
    "cargo": (Tool(positional=(-1,), subcommand=("login",)),),
    "wandb": (Tool(positional=(-1,), subcommand=("login",)),),
    "kubectl": (Tool(after=(("--from-literal", "="),), subcommand=("create", "secret")),),
    "rabbitmqctl": (
        Tool(positional=(-1,), subcommand=("add_user",)),
        Tool(positional=(-1,), subcommand=("change_password",)),
    ),
    "poetry": (Tool(positional=(-1,), subcommand=("config",)),),
    **dict.fromkeys(("ossutil", "ossutil64"), (_tool("-k"),)),
    "coscmd": (_tool("-s"),),
    "cqlsh": (_tool("-p"),),
    # ``sentinel auth-pass MASTER PASSWORD`` (sentinel.conf)
    "sentinel": (Tool(positional=(-1,), subcommand=("auth-pass",)),),
    "rabbitmqadmin": (_tool("-p"),),
    # ``glab auth login -t X``, ``doctl -t X`` (its global ``--access-token``), ``gitlab-runner
    # register -r X`` (the registration token)
    "glab": (Tool(frozenset({"-t"}), subcommand=("auth", "login")),),
    "doctl": (_tool("-t"),),
    "gitlab-runner": (Tool(frozenset({"-r"}), subcommand=("register",)),),
    # ``ftp`` reads its commands on standard input: ``user NAME PASSWORD``
    **dict.fromkeys(("ftp", "pftp"), (Tool(positional=(1,), subcommand=("user",)),)),
    # (xh and xhs take httpie's options)
    **dict.fromkeys(
        ("http", "https", "httpie", "xh", "xhs"),
        (
            Tool(
                frozenset({"--bearer"}),  # (xh's)
                after=(("-a", ":"), ("--auth", ":")),
                typed=frozenset({"-A", "--auth-type"}),
            ),
        ),
    ),
    "ssh-keygen": (_tool("-N", "-P"),),
    **dict.fromkeys(
        ("psexec", "psexec.exe", "psexec64", "psexec.py", "evil-winrm", "crackmapexec"), (_tool("-p"),)
    ),
    **dict.fromkeys(("ncftp", "ncftpput", "ncftpget", "ncftpls"), (_tool("-p"),)),
    # ``net use \\srv\share PASSWORD /user:bob``: the word after the share
    "net": (
        Tool(subcommand=("use",), follows="\\", windows=True),
        # ``net user NAME PASSWORD /add``
        Tool(positional=(1,), subcommand=("user",), windows=True),
        # Samba's ``net rpc … -U user%PASSWORD``
        _tool(after=(("-U", "%"), ("--user", "%"))),
    ),
    # ``cmdkey /generic:HOST /user:bob /pass:PASSWORD``, ``schtasks /create … /ru bob /rp PASSWORD``
    **dict.fromkeys(("cmdkey", "cmdkey.exe"), (Tool(frozenset({"/pass:"}), windows=True),)),
    **dict.fromkeys(("schtasks", "schtasks.exe"), (Tool(frozenset({"/rp", "/RP", "/Rp"}), windows=True),)),
    # Oracle's tools given a login first: ``imp scott/X@orcl file=x.dmp``, ``exp``, SQL*Plus'
    # ``CONNECT scott/X@orcl`` (``expdp``, ``sqlplus``, ``sqlldr``, ``rman``, ``dgmgrl``: the
    # ``oracle-login`` shape)
    **dict.fromkeys(("imp", "impdp", "exp", "expdp"), (Tool(login=True),)),
    **dict.fromkeys(("connect", "conn", "CONNECT", "CONN"), (Tool(login=True),)),
    # ``ab -A user:X`` (Apache Bench), ``hey -a user:X``, ``p4 -P X``, ``winrs -p:X``
    "ab": (_tool(after=(("-A", ":"), ("-P", ":"))),),
    "hey": (_tool(after=(("-a", ":"),)),),
    "p4": (_tool("-P"),),
    **dict.fromkeys(("winrs", "winrs.exe"), (_tool("-p:", "/p:"),)),
    # lftp's own commands (``lftp -e 'open -u bob,X host'``)
    "open": (_tool(after=(("-u", ","), ("--user", ","))),),
    # ``composer config [--global] http-basic.HOST USER PASSWORD``
    "composer": (Tool(positional=(1,), subcommand=("config",), keyed="http-basic."),),
    # ``bundle config set [--global] HOST bob:X``
    "bundle": (Tool(positional=(-1,), subcommand=("config",), pair=True),),
    # ``ansible-vault encrypt_string 'X' --name db_password``
    "ansible-vault": (
        Tool(
            positional=(0,),
            subcommand=("encrypt_string",),
            valued=frozenset({"--name", "-n", "--vault-id", "--vault-password-file", "--output", "-p"}),
        ),
    ),
    # ``ldappasswd -s NEWPASSWORD -a OLDPASSWORD`` (beside LDAP's ``-w``)
    "ldappasswd": (_tool("-w", "-y", "-s", "-a"),),
    # ``signtool sign /f cert.pfx /p PASSWORD``, ``wpa_passphrase SSID PASSPHRASE``, ``hydra -p X``
    **dict.fromkeys(("signtool", "signtool.exe"), (Tool(frozenset({"/p"}), windows=True),)),
    "wpa_passphrase": (_tool(positional=(1,)),),
    "hydra": (_tool("-p"),),
    # Codecov's uploaders: ``codecov -t TOKEN``, ``codecovcli upload-process -t TOKEN``
    **dict.fromkeys(("codecov", "codecovcli"), (_tool("-t"),)),
    # ``reg add KEY /v Password /d VALUE``: the data of a value named like a credential
    **dict.fromkeys(("reg", "reg.exe"), (Tool(windows=True, named=("/v", "/d")),)),
    # (the thirteenth round: stores of logins given by position) Oracle's wallet (``mkstore -wrl W
    # -createCredential ALIAS USER X``), SAP HANA's (``hdbuserstore SET KEY HOST USER X``), ZooKeeper's
    # ``addauth digest USER:X`` (a zkCli line, or its command line), Qiniu's ``qshell account AK SK
    # NAME``, net-snmp's ``createUser NAME SHA X AES Y`` (snmpd.conf)
    "mkstore": tuple(
        Tool(positional=(-1,), when=option, valued=frozenset({"-wrl"}))
        for option in ("-createCredential", "-modifyCredential")
    ),
    "hdbuserstore": tuple(Tool(positional=(3,), subcommand=(verb,)) for verb in ("SET", "set")),
    "addauth": (Tool(positional=(-1,), subcommand=("digest",), pair=True),),
    **dict.fromkeys(
        ("zkcli.sh", "zkcli", "zookeeper-client"),
        (Tool(positional=(-1,), subcommand=("addauth", "digest"), pair=True, valued=frozenset({"-server"})),),
    ),
    "qshell": (Tool(positional=(1,), subcommand=("account",)),),
    # (a row's name is matched in lower case, and found in a text as it is written: both spellings)
    **dict.fromkeys(("createUser", "createuser"), (Tool(positional=(2, 4)),)),
    "net-snmp-create-v3-user": (_tool("-A", "-X"),),
    # ``ConvertTo-SecureString 'PASSWORD' -AsPlainText``
    "convertto-securestring": (Tool(frozenset({"-String", "-string"}), positional=(0,)),),
    # ``printf 'DB_PASSWORD=%s\n' X``: the argument a credential's conversion takes
    # (``commands._format_marks``)
    "printf": (Tool(),),
    # (the twelfth round: database, Kerberos and benchmark clients' short options) Vertica's ``vsql
    # -w X``, Netezza's ``nzsql -pw X``, FreeTDS' and Sybase's ``tsql``/``sqsh``/``fisql -P X``,
    # ``kadmin -w X``, the Redis benchmarks' ``-a X``, MongoDB's other tools' ``-p X``
    "vsql": (_tool("-w"),),
    "nzsql": (_tool("-pw"),),
    **dict.fromkeys(("tsql", "sqsh", "fisql"), (_SQLSERVER,)),
    **dict.fromkeys(("kadmin", "kadmin.local", "kpasswd"), (_tool("-w"),)),
    **dict.fromkeys(("memtier_benchmark", "redis-benchmark", "valkey-benchmark"), (_tool("-a"),)),
    **dict.fromkeys(("mongostat", "mongotop", "mongofiles"), (_tool("-p"),)),
}
#: Tools with a row whose ``-p`` after a user given by ``-u`` is that user's password all the same
#: (``az sql server create -u bob -p X``, ``az acr login -n r -u bob -p X``; the row reads ``-p`` of
#: ``az login`` alone): :func:`commands._paired_marks` reads them as tools without a row.
PAIRED_ROWS = frozenset({"az", "cf"})
#: Auth types (httpie's ``-A TYPE``) whose credential is given as ``user:password``: under any other
#: type (``bearer``, ``jwt``, ``token``, ``api-key``, a plugin's) the auth option's value is the
#: credential whole.
AUTH_PAIR_TYPES = frozenset({"basic", "digest", "ntlm", "negotiate", "kerberos"})
#: Words of a command line that make ``-p`` a password (``regctl registry login -p X``,
#: ``argocd login -p X``): among the first plain words after the tool.
LOGIN_WORDS = frozenset({"login"})
#: Words that read the next two words as ``NAME VALUE`` (``aws configure set NAME VALUE``, ``setx``,
#: Dockerfile ``ENV``/``ARG``, ``git config NAME VALUE``, ``npm config set``): VALUE is a credential
#: when NAME is named like one.
NAME_VALUE_WORDS = frozenset({"set", "setx", "ENV", "ARG", "config", "put", "env:set"})
#: Last words of an option that reads a credential from standard input (``--password-stdin``,
#: ``--passphrase-fd 0``): what ``echo``/``printf`` or a here-string feeds that command is a credential.
STDIN_WORDS = frozenset({"stdin", "fd"})
#: Options of a command run before the command itself that make it read a password on standard
#: input (``echo X | sudo -S cmd``, ``sudo -S cmd <<< X``).
PREFIX_STDIN = frozenset({("sudo", "-S"), ("sudo", "--stdin")})
#: Commands that read credentials from standard input whatever their options (also those that read
#: a passphrase there when it is no terminal: ``echo X | cryptsetup luksOpen DEV NAME``).
STDIN_COMMANDS = frozenset(
    {"chpasswd", "chntpw", "kinit", "cryptsetup", "ecryptfs-add-passphrase", "ecryptfs-wrap-passphrase"}
)
#: Commands that read the password on standard input when given an option (also among short flags
#: run together): ``htpasswd -i F U <<< X``, ``printf 'X\nX\n' | smbpasswd -a -s bob``, sshfs'
#: ``-o password_stdin``.
STDIN_FLAGS = frozenset(
    {("htpasswd", "-i"), ("smbpasswd", "-s"), ("mosquitto_passwd", "-i"), ("sshfs", "password_stdin")}
)
#: Commands that read their commands on standard input as they take them as arguments (``redis-cli
#: <<< 'AUTH default X'``): each line fed to them is judged as their command line.
STDIN_ARGUMENTS = frozenset({"redis-cli", "keydb-cli", "valkey-cli", "ftp", "pftp"})
#: Commands (their first words but options) that prompt for credentials on standard input
#: (``az devops login --org URL`` reads a personal access token).
STDIN_PROMPTS = frozenset(
    {("aws", "configure"), ("passwd",), ("az", "login"), ("az", "devops", "login"), ("vncpasswd",)}
    # Elastic's keystores: ``echo X | elasticsearch-keystore add -x NAME``
    | {("elasticsearch-keystore", "add"), ("kibana-keystore", "add"), ("logstash-keystore", "add")}
    # secret stores that read the value they store on standard input (``echo X | wrangler secret put N``)
    | {("vercel", "env", "add"), ("wrangler", "secret", "put"), ("pass", "insert"), ("gopass", "insert")}
    | {("fly", "secrets", "import"), ("flyctl", "secrets", "import"), ("gh", "secret", "set")}
    | {("vault", "login")}  # (``vault login - <<< X``)
    # a keyring's store, a CLI login that reads its token (``echo X | terraform login``)
    | {("secret-tool", "store"), ("terraform", "login"), ("tofu", "login")}
    # an encrypted dataset's passphrase (``echo X | zfs load-key tank/data``)
    | {("zfs", "load-key")}
    # NVIDIA NGC's CLI reads its API key first (``printf 'KEY\njson\n' | ngc config set``); MySQL's
    # login paths their password (``echo X | mysql_config_editor set --password``)
    | {("ngc", "config", "set"), ("mysql_config_editor", "set")}
)
#: Commands that write what standard input gives them to the files they are given (``echo X | sudo tee
#: /etc/app/db_password``): a credential when a file is named like one.
STDIN_WRITERS = frozenset({"tee"})
#: Commands that store what standard input gives them as a secret, when told to read it (their words
#: but options, then the word that says so): ``printf X | docker secret create NAME -``, ``echo X |
#: gcloud secrets create NAME --data-file=-``.
STDIN_SECRETS = (
    (("docker", "secret", "create"), "-"),
    (("podman", "secret", "create"), "-"),
    (("gcloud", "secrets", "create"), "--data-file=-"),
    (("gcloud", "secrets", "versions", "add"), "--data-file=-"),
)
#: Options whose value a command stores (``--value``): a secret when the command stores a secret, as
#: one of :data:`SECRET_VALUE_TYPES` says (``aws ssm put-parameter --type SecureString``), or the
#: command is a secret store (:data:`SECRET_VALUE_STORES`: ``az keyvault secret set``, ``gh secret set
#: NAME --body X``), or the name it
#: is stored under (an option of :data:`VALUE_NAME_OPTIONS`: ``--name /prod/db_password``) says
#: credential.
VALUE_OPTIONS = frozenset({"--value", "--parameter-value", "--body", "-Value"})
SECRET_VALUE_TYPES = frozenset({("--type", "SecureString"), ("--type", "securestring"), ("--kind", "secret")})
SECRET_VALUE_STORES = (("secret", "set"),)
VALUE_NAME_OPTIONS = frozenset({"--name", "-n", "--key", "--parameter-name", "-Name", "-Path"})
#: Commands that only write their words to standard output (what a pipe feeds the next command).
ECHO_COMMANDS = frozenset({"echo", "printf", "print"})
#: Commands that only decode what a pipe passes through them: what is echoed before them still feeds
#: the reader after them (``echo B64 | base64 -d | docker login --password-stdin``).
PIPE_FILTERS = frozenset({"base64", "basenc", "xxd", "tr", "gunzip", "zcat", "rev", "openssl"})
#: Words run before the command itself (``sudo -E mysql …``).
PREFIX_COMMANDS = frozenset(
    {"sudo", "env", "time", "nohup", "exec", "command", "xargs", "stdbuf", "nice", "doas", "npx", "bunx"}
)

# --- authorization schemes -----------------------------------------------------------------------

#: Schemes followed by one opaque credential (masked whole: ``Bearer X``, ``bce-auth-v1/…``).
TOKEN_SCHEMES = (
    "bearer",
    "basic",
    "token",
    "negotiate",
    "ntlm",
    "ssws",
    "splunk",
    "genie-key",
    "apikey",
    "sharedkey",
)
#: Schemes that are also common words: recognised in an ``Authorization`` value only, not in any text.
WORD_SCHEMES = frozenset({"token"})
#: Schemes followed by ``name=value`` parameters (masked whole: Digest, AWS SigV4, OAuth 1, Hawk, Azure
#: SharedKey, Baidu's ``bce-auth-v1/…`` is a token scheme with ``/``-joined parts).
PARAMETER_SCHEMES = ("digest", "aws4-hmac-sha256", "oauth", "hawk", "hmac-sha256", "hmac-sha1")

# --- by context, in prose ------------------------------------------------------------------------


class Context(NamedTuple):
    """A credential word in prose, then (after :data:`FILLERS`) a value: a secret when the value
    passes the context's test. ``words`` are the last words of the name; ``plain_ok`` accepts any
    value but a dictionary-like lowercase word; otherwise the value must look random (at least
    ``length`` characters of two or more classes and ``entropy`` bits per character)."""

    words: frozenset[str]
    length: int
    entropy: float
    plain_ok: bool = False


#: What may stand between a credential word and its value in prose.
FILLERS = frozenset(
    {"is", "was", "=", ":", "：", "to", "as", "of", "by", "->", "=>", "now", "set", "are", "为", "是"}
    | {"est", "ist", "es", "é", "è", "jest", "är", "er", "je", "—"}  # (``le mot de passe est x``)
    | {"は", "が", "는", "은"}  # (``パスワードは x``, ``비밀번호는 x``)
)
#: Words that name what is given a credential (``PASSWORD FOR 'grafana'@'%' = 'x'``): skipped with the
#: word after them.
FOR_WORDS = frozenset({"for", "of"})
#: Words after which ``user / password`` or ``user:password`` is given (``credentials admin / x``).
PAIR_WORDS = frozenset({"credentials", "credential", "creds", "login"})
#: The secrets' types of an ``ipsec.secrets`` line (``[selectors] : PSK "x"``, ``carol : XAUTH "x"``,
#: also unquoted: ``: PSK 0sBASE64``): the value after the type is the credential.
IPSEC_TYPES = frozenset({"PSK", "XAUTH"})
#: Last words of calls that open a connection given a user and a password, JDBC-style: the last of two
#: quoted strings, after a locator that may be a variable (``DriverManager.getConnection(url, "sa",
#: "x")``, ``ds.getConnection("app", "x")``, ``getPooledConnection``, ``getXAConnection``).
CONNECTION_CALLS = frozenset(
    {("get", "connection"), ("get", "pooled", "connection"), ("get", "xa", "connection")}
    # accounts created with their password (Jenkins' ``createAccount("admin", X)``, Django's
    # ``create_user('bob', 'bob@x', X)``, ``create_superuser``, ``add_user``)
    | {("create", "account"), ("create", "user"), ("create", "superuser"), ("add", "user")}
    # an LDAP bind given a DN and a password (python-ldap's ``simple_bind_s(dn, X)``, ``bind_s``)
    | {("simple", "bind"), ("simple", "bind", "s"), ("bind", "s")}
)
#: A network device's configuration line (Cisco IOS, Junos, FortiOS, VyOS, keepalived, Quagga): a
#: line whose first word is one of ``DEVICE_HEADS`` or the keyword itself (``tacacs-server host
#: 10.0.0.1 key X``, ``snmp-server community X RO``, ``ntp authentication-key 1 md5 X``, ``set system
#: radius-server … secret "X"``, an indented ``key 0 X`` in a server's block), a credential keyword of
#: ``DEVICE_KEYWORDS`` on it, the key's type if one is given (``DEVICE_TYPES``: ``md5``, ``ascii``;
#: or a number: ``7``, a key's number before ``md5``), then the value. A keyword that starts its line
#: (``key``, ``secret``) holds a value only with a type before it (``key 0 X``; ``key 1`` numbers a
#: key chain's key); a value of digits alone is a number (a GRE tunnel's ``key 42``).
DEVICE_HEADS = frozenset(
    {"radius-server", "tacacs-server", "snmp-server", "enable", "ntp", "ip", "ipv6", "neighbor", "set"}
    | {"server", "server-private", "crypto", "username", "tacacs", "radius", "snmp", "aaa", "ppp"}
)
DEVICE_KEYWORDS = frozenset(
    {"key", "key-string", "authentication-key", "secret", "community", "password", "pre-shared-key"}
    | {"pre-shared-secret", "psksecret", "auth_pass", "wpa-psk", "message-digest-key"}
)
#: Keywords that start their line and hold a value only after a type (``key 0 X``).
DEVICE_TYPED_FIRST = frozenset({"key", "secret", "password", "community"})
DEVICE_TYPES = frozenset(
    {"md5", "sha", "sha1", "ascii", "hex", "encrypted", "unencrypted", "plaintext", "cleartext", "plain"}
    | {"simple", "ascii-text", "hexadecimal", "enc"}
)
#: Last words of names whose value is a key when it has a key's size, whatever else they may hold
#: (``encrypt``: Consul's and Nomad's gossip key, ``encrypt = "pUqJrVyVRj5jsiYEkM/tFQYf…="``,
#: ``-encrypt=…``, ``CONSUL_ENCRYPT``; ``encrypt: true`` is a setting): base64 of 16, 24 or 32 bytes.
KEY_VALUE_WORDS = frozenset({"encrypt"})
#: Last words of calls that encode their argument (base64, bytes): a ``user:password`` literal given
#: to one is about to become a Basic authorization (``btoa("bob:X")``, ``Buffer.from("bob:X")``,
#: ``base64.b64encode(b"bob:X")``, ``Base64.strict_encode64``, Go's ``EncodeToString([]byte("bob:X"))``,
#: .NET's ``Encoding.UTF8.GetBytes("bob:X")``): its password, judged as a ``user:password`` value's.
ENCODER_CALLS = frozenset(
    {("btoa",), ("buffer", "from"), ("64", "encode"), ("encode", "64"), ("encode", "to", "string")}
    | {("get", "bytes"), ("base", "64", "encode"), ("encode", "base", "64"), ("base", "64", "string")}
)
#: Calls given a user and a password by position, no name beside them, and where the password stands
#: among their arguments (from 0; a negative place counts from the last): PHP's ``new mysqli("db",
#: "bob", X, "app")``, ``mysqli_connect``, ``mysql_connect``, ``new PDO(dsn, "bob", X)``,
#: ``oci_connect("bob", X, db)``, ``ftp_login($c, "bob", X)``, ``ldap_bind($c, dn, X)``,
#: ``ssh2_auth_password``; Python's ``ftplib.FTP("h", "bob", X)``, ``pymysql.connect("db", "bob", X)``,
#: ``MySQLdb``, ``mysql.connector``, ``cx_Oracle.connect("bob", X, dsn)``; Rust's ``.basic_auth("bob",
#: Some(X))``; .NET's ``new AuthenticationHeaderValue("Bearer", X)`` (a scheme, then its credential).
#: Only a quoted argument is a value (a variable names one held elsewhere).
POSITIONAL_CALLS: dict[tuple[str, ...], int] = {
    ("mysqli",): 2,
    ("mysqli", "connect"): 2,
    ("mysql", "connect"): 2,
    ("mysql", "pconnect"): 2,
    ("pdo",): 2,
    ("oci", "connect"): 1,
    ("oci", "pconnect"): 1,
    ("oracle", "connect"): 1,
    ("oracledb", "connect"): 1,
    ("ftp", "login"): -1,
    ("ldap", "bind"): -1,
    ("auth", "password"): -1,
    ("ftplib", "ftp"): 2,
    ("ftplib", "ftp", "tls"): 2,
    ("ftp",): 2,
    ("ftp", "tls"): 2,
    ("pymysql", "connect"): 2,
    ("ldb", "connect"): 2,
    ("connector", "connect"): 2,
    ("basic", "auth"): -1,
    ("authentication", "header", "value"): -1,
    # .NET's ``new NetworkCredential("bob", X, "DOMAIN")`` (the domain comes after the password)
    ("network", "credential"): 1,
    # a signing key given by position: ``jwt.encode(payload, X, …)``, ``jwt.sign``, ``jwt.verify``,
    # ``hmac.new(X, msg, …)``, ``Fernet(X)``; a search service's admin key (``algoliasearch(app, X)``)
    ("jwt", "encode"): 1,
    ("jwt", "decode"): 1,
    ("jwt", "sign"): 1,
    ("jwt", "verify"): 1,
    ("hmac", "new"): 0,
    ("fernet",): 0,
    ("algoliasearch",): 1,
    # (the twelfth round) Go's ``smtp.PlainAuth(identity, user, X, host)``, PHP's
    # ``$mysqli->real_connect(host, user, X)``, Perl's and Ruby's ``Net::SMTP`` ``auth(user, X)``
    ("plain", "auth"): 2,
    ("real", "connect"): 2,
    ("cram", "md5", "auth"): 2,
    # (the thirteenth round) MongoDB's ``db.changeUserPassword(user, X)``; ClickHouse's table functions
    # given a login (``mysql('db:3306', 'app', 't', 'bob', X)``, ``postgresql(…)``, ``mongodb(…)``)
    ("change", "user", "password"): 1,
    ("mysql",): 4,
    ("postgresql",): 4,
    ("mongodb",): 4,
}
#: Types a declaration may give a credential's name before its value (``val password: String = "x"``,
#: ``const TOKEN: &str = "x"``, ``var password string = "x"``, ``api_key: SecretStr = SecretStr("x")``):
#: the value is after the type; a type alone is no value (``password: str``), nor a name (``SecretStr``).
DECLARED_TYPES: tuple[str, ...] = (
    "str",
    "string",
    "String",
    "secureString",
    "securestring",
    "SecretStr",
    "SecretString",
)
DECLARED_TYPES += ("SecretBytes", "NSString", "CharSequence")
#: Types a table's column may name beside a credential's name (``| password | string |``: a schema's
#: table of fields, no value).
TYPE_WORDS = frozenset(t.lower() for t in DECLARED_TYPES) | {"int", "integer", "bool", "boolean", "number"}
TYPE_WORDS |= {"object", "array", "list", "map", "dict", "float", "bytes", "text", "secret", "password"}
#: Calls whose ``key=`` argument is a credential (``wandb.login(key=…)``).
LOGIN_CALLS = frozenset({"login", "auth", "authenticate", "connect", "signin", "sign_in", "log_in"})
CONTEXTS = (
    # ``the password is hunter2``, ``IDENTIFIED BY 'x'``, ``PASSWORD 'x'`` (SQL): any non-word value.
    Context(
        frozenset({"password", "passwd", "passphrase", "pwd", "pass", "pin", "identified"})
        | FOREIGN_WORDS
        | {"motdepasse", "passwort", "passe", "word", "wd", "ordine"},  # (after their qualifier)
        4,
        0.0,
        True,
    ),
    # ``using token 8f2a9c…``, ``api key = K9x…``: a value that looks random.
    Context(frozenset(), 10, 2.8),
)

# --- bounds --------------------------------------------------------------------------------------

#: How deep texts inside texts are read (a YAML inside base64 inside an env value inside a command).
MAX_DEPTH = 6
#: Texts longer than this are read for shapes and names only (not parsed as documents).
DOCUMENT_LIMIT = 1 << 20
#: Base64 runs shorter than this are not decoded (too short to hold ``name=value``).
BASE64_MIN = 16
#: A gzip body inside base64 is read up to this many bytes once inflated.
INFLATE_LIMIT = 1 << 20

# --- values that are no credential --------------------------------------------------------------

#: Values that are settings, not secrets (``password_auth: disabled``, ``secret: false``).
SETTING_WORDS = frozenset(
    {
        "null",
        "none",
        "nil",
        "true",
        "false",
        "yes",
        "no",
        "on",
        "off",
        "~",
        "enabled",
        "disabled",
        "enable",
        "disable",
        "required",
        "optional",
        "auto",
        "default",
        "unset",
        "empty",
        "n/a",
        "na",
    }
)
#: Last words of a name whose value may be the *name* of a credential held elsewhere (a Kubernetes
#: Secret, a vault path, a key id): a value shaped like a resource name (``db-password``,
#: ``prod/db``) is not masked under them; a random-looking one is.
RESOURCE_NAMES = frozenset(
    {"secret", "secrets", "token", "key", "credential", "credentials", "creds", "auth", "id"}
)

# --- left alone ----------------------------------------------------------------------------------

#: What the policy deliberately does not mask, and why.
NOT_MASKED = (
    ("image digests, commit hashes, UUIDs, job and pod ids, IPs, quantities", "identifiers, not credentials"),
    ("a bare hex key with nothing around it (40 hex digits)", "no rule can tell it from a commit hash"),
    (
        "variable references: $NAME, ${NAME}, $(cmd), {{ .Values.x }}, %NAME%",
        "they name a secret held elsewhere",
    ),
    ("values under names that refer to a credential: secretName, tokenPath, --password-file", "references"),
    (
        "Kubernetes object names under a Secret's reference (accessKeySecret: my-oss-secret)",
        "references; any other value there is the credential",
    ),
    ("training seeds (seed: 42, random_seed), exit and status codes", "no secret in them"),
    (
        "a bare AWS secret access key (40 base64 characters) with no key id beside it and no name",
        "no literal to anchor a linear scan on",
    ),
    (
        "file paths and resource names given to a credential name: /etc/secrets/key.json, db-password",
        "references",
    ),
    ("settings and placeholders: true, disabled, ***, <redacted>", "no secret in them"),
    ("public keys and certificates", "not usable as a login by themselves"),
    ("binary data in base64 (not UTF-8 text once decoded, or gzip beyond INFLATE_LIMIT)", "cannot be read"),
    ("lowercase dictionary words after a credential word in prose (token expired)", "they are prose"),
)
