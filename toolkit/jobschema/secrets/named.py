"""Secrets by name in text: a name that says credential, then the value it is given.

One rule in every syntax a name gives a value in:

- ``NAME=VALUE`` (shell, dotenv, query strings, properties, ``-DNAME=VALUE``, ``--name=VALUE``),
  ``NAME := VALUE``, ``NAME => VALUE``;
- ``NAME = VALUE``, ``NAME: VALUE`` (also ``NAME：VALUE``) at the start of a line or inside ``{…}``,
  and ``NAME VALUE`` alone on a line (INI, TOML, YAML, HTTP headers, ``redis.conf``);
- ``"NAME": VALUE`` with any quotes, also escaped (JSON, JavaScript, Python, JSON inside JSON);
- ``<NAME>VALUE</NAME>``, ``<entry key="NAME">VALUE</entry>`` (XML);
- the ``value`` of a ``{name, value}`` pair whose name says credential, in any of these syntaxes
  (also ``{key, val}``, ``{k, v}``, in any case);
- ``login(key=…)``: the key given to a login call.

Where no such syntax follows, the prose contexts of :data:`~jobschema.secrets.table.CONTEXTS` apply
(``the password is hunter2``, ``IDENTIFIED BY 'x'``, ``using token 8f2a…``, ``credentials admin / x``).
A value found is masked only when it may be a credential (:func:`~jobschema.secrets.values.plausible`:
not a setting, a reference, a path, a placeholder or a resource's name).

Names are found from the credential stems (``pass``, ``token``, ``secret``, ``key``, ``auth``, …):
one search of a plain alternation, then only the names holding a stem are judged (by
:func:`~jobschema.secrets.names.is_secret_name`), so text without a stem costs one search.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

from jobschema.secrets.columns import UNPACKING, UNPACKING_REACH
from jobschema.secrets.names import (
    is_secret_name,
    is_secret_parameter,
    names_several,
    plain_letters,
    qualified_key,
    value_decides,
    words,
)
from jobschema.secrets.table import (
    CONNECTION_CALLS,
    CONTEXTS,
    DECLARED_TYPES,
    DEVICE_HEADS,
    DEVICE_KEYWORDS,
    DEVICE_TYPED_FIRST,
    DEVICE_TYPES,
    ENCODER_CALLS,
    FILLERS,
    FOR_WORDS,
    FOREIGN_WORDS,
    IPSEC_TYPES,
    LIST_HEADERS,
    LOGIN_CALLS,
    NOT_AFTER,
    NOT_HELD_KEYS,
    PAIR_NAMES,
    PAIR_WORDS,
    PARAMETER_SCHEMES,
    POSITIONAL_CALLS,
    QUALIFIED_WORDS,
    REFERENCE_WORDS,
    SCRIPT_REFERENCE_SUFFIXES,
    SCRIPT_WORDS,
    SECRET_MEMBERS,
    TOKEN_SCHEMES,
    TRAILERS,
    TYPE_WORDS,
    USER_KEYS,
    Context,
)
from jobschema.secrets.values import classes, looks_random, pair_password, plausible

Span = tuple[int, int, bool]
#: A syntax was found but holds no value to mask: the name is settled, no other reading is tried.
SETTLED: Span = (0, 0, False)


#: The stems whose occurrence starts a look for a name.
def _bare_arguments(text: str, end: int, name: str) -> Span | None:
    """A call's arguments without brackets (Ruby's ``req.basic_auth "bob", "x"``, ``smtp.login "bob",
    "x"``, Perl's): the credential, as the call with brackets gives it; None for another call."""
    last = words(name)[-1:]
    if not (last in _CALL_WORDS or _setter(name) or last in _LOGIN_CALL_WORDS):
        return None
    bare = _compiled("bare-arguments").match(text, end)
    if bare is None or (last in _LOGIN_CALL_WORDS and bare["first"] is None):
        return None  # (a login call's one argument is a user: ``ftp.login "anonymous"``)
    return _span(text, bare.start("last"), bare.end("last"))


STEMS: tuple[str, ...] = ("pass", "pwd", "secret", "token", "credential", "cookie", "sig", "key", "auth")
STEMS += ("session", "dockercfg", "dockerconfigjson", "contrasena", "passwort", "motdepasse", "identified")
# names for password in other languages (``FOREIGN_WORDS``; written with marks too: the name holding
# one is read without them, ``contraseña``), ``parola_d_ordine``, PAM's ``authtok``, macaroons
STEMS += (*sorted(FOREIGN_WORDS), "contraseñ", "hasło", "şifre", "lösenord", "jelszó", "paßw", "parola")
STEMS += ("authtok", "macaroon", "mnemonic", "phrase")  # (a wallet's ``MNEMONIC``, ``seed_phrase``)
STEMS += ("cred", "login", "salt", "pepper", "mfa", "conn", "dsn", "database", "db_ur", "dbur")
STEMS += ("user", "assword")  # (a ``user:password`` value: ``USER_PAIR_NAMES``)
# (calls that create an account with its password: ``CONNECTION_CALLS``)
STEMS += (
    "createaccount",
    "createuser",
    "create_user",
    "create_superuser",
    "add_user",
    "bind_s",
    "simple_bind",
)
STEMS += ("mysqli", "pdo", "ftp", "ldap_bind")  # (calls given a password by position: ``POSITIONAL_CALLS``)
STEMS += ("jwt", "hmac", "fernet", "algoliasearch")  # (and a signing key: ``POSITIONAL_CALLS``)
STEMS += ("mysql(", "postgresql(", "mongodb(")  # (ClickHouse's table functions: ``POSITIONAL_CALLS``)
STEMS += ("btoa", "buffer", "encode", "getbytes")  # (a ``user:password`` encoded: ``ENCODER_CALLS``)
STEMS += ("community",)  # (a network device's ``snmp-server community X``: ``DEVICE_KEYWORDS``)
STEMS += ("encrypt",)  # (a gossip key: ``KEY_VALUE_WORDS``)
STEMS += (
    "-api",
    "-team",
    "sessid",
    "bearer",
)  # a header named for an API or team (``X-JFrog-Art-Api``), ``PHPSESSID``, a map of bearer tokens
#: Short stems, also found inside words (``bosAk``); the name holding them decides.
WORD_STEMS = ("ak", "sk", "otp", "pat", "pin", "pw")

_NAME_SET = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.$-")
#: How far back a name is followed from its stem.
_NAME_REACH = 128
#: Where a bare value ends: space, a separator, a quote, a bracket, full-width punctuation.
_BARE_END = "\\s&\"'<>;,`)\\]}|\\\\，。；、（）：】"
#: A bare value's character: an ``&`` too, unless another ``name=`` follows it (a query's next
#: parameter, ``&amp;user=``): ``Tr0ub4dor&3`` is one password.
_BARE_CHARACTER = rf"(?:[^{_BARE_END}]|&(?![^\s&=]{{0,64}}=))"

_PATTERNS = {
    # after a name: the separator, then where the value starts
    "assign": r"[ \t]*(?::=|\?=|=>|=(?!=))[ \t]*",
    "colon": r"[ \t]*[:：](?!:)[ \t]*",
    "space": r"[ \t]+(?=[^\s=:])",
    # (a quote doubled inside its quotes is one of its characters: YAML's and SQL's ``'it''s'``, C#'s
    # and VB's ``"a""b"``; the shell and Python join the two literals into one value all the same)
    "quoted": (
        r"\"(?P<dq>(?:[^\"\\\n]|\\.|\"\"){0,4096})\"|'(?P<sq>(?:[^'\\\n]|\\.|''){0,4096})'"
        r"|`(?P<bq>[^`\n]{0,4096})`"
    ),
    # a literal of a language's own delimiters: Rust's raw string (``r#"x"#``), C#'s verbatim one
    # (``@"x"``), Lua's long bracket (``[[x]]``, ``[==[x]==]``), Erlang's and Elixir's binary (``<<"x">>``)
    "delimited": (
        r"r(?P<h>\#{1,4})\"(?P<rv>[^\n]{0,4096}?)\"(?P=h)|@\"(?P<cv>(?:[^\"\n]|\"\"){0,4096})\""
        r"|\[(?P<e>=*)\[(?P<lv>[^\n]{0,4096}?)\](?P=e)\]|<<\"(?P<ev>[^\"\n]{0,4096})\">>"
    ),
    # a literal decoded on the spot (``base64.b64decode('…')``, ``atob('…')``, Java's
    # ``new String(Base64.getDecoder().decode("…"))``, Ruby's ``Base64.decode64``, PHP's
    # ``base64_decode``, .NET's ``FromBase64String``; in one call converting it): the literal is the
    # value, encoded (masked already: settled)
    "decoded-literal": (
        r"(?:(?:new[ \t]+)?[\w.]{1,64}\([ \t]*)?(?:[\w.]{0,64}\.)?"
        r"(?:(?:urlsafe_)?b(?:64|32)decode|decodebytes|atob|(?:strict_)?decode64|base64_decode"
        r"|[Ff]rom[Bb]ase64(?:String)?|getDecoder\(\)\.decode|[Dd]ecodeString)"
        r"\([ \t]*[bB]?(?P<q>[\"'`])(?P<v>[A-Za-z0-9+/=_-]{4,4096}|<secret:[0-9a-f]{8}>)(?P=q)"
    ),
    # a value written over lines: TOML's and Python's triple quotes, a here-document (HCL, Ruby, PHP)
    "triple": r"(?P<tq>\"\"\"|\'\'\')\r?\n?(?P<tv>[\s\S]{1,8192}?)(?P=tq)",
    "heredoc": (
        r"<<<?[-~]?(?P<hq>[\"']?)(?P<tag>[A-Za-z_]\w{0,31})(?P=hq)[ \t]*\r?\n"
        r"(?P<body>[\s\S]{0,8192}?)\r?\n[ \t]*(?P=tag)(?!\w)"
    ),
    # a format string's field in braces (``{json.dumps(key)}``, ``{pw!r}``): code, not a value
    # nothing after ``name =`` on its line, the value on the next line, indented (an INI continuation)
    "continued": r"\r?\n[ \t]+(?P<v>\S)",
    # a line ending in ``\`` after ``name=``: the value goes on on the next line (Java properties)
    "line-continued": r"\\\r?\n[ \t]*(?P<v>[^\s\\])",
    # the INI section a name stands in (the last header before it, nothing but lines between)
    "ini-section": r"(?m)^[ \t]*\[(?P<s>[\w .-]{1,64})\][ \t]*\r?\n(?:(?![ \t]*\[)[^\n]*\n){0,64}[ \t]*\Z",
    "format-field": (
        r"[A-Za-z_][\w.]{0,128}(?:\([^()]{0,256}\)|\[[^\[\]]{0,256}\])?(?:![rsa])?(?::[^{}]{0,32})?"
    ),
    # a connection string's ``;`` before the name (``…;Uid=sa;Pwd=``): a value in braces there is one
    "odbc-lead": r";[ \t]*[\w .-]{1,64}=[ \t]*\Z",
    # an ODBC or ADO.NET value in braces, which may hold ``;`` (``Pwd={p;w}``, ``}}`` a brace in it)
    "braced": r"\{(?P<bv>(?:[^{}\n\"']|\}\}){1,1024})\}(?=[;\"']|[ \t]*$|[ \t]*\r?\n)",
    "escaped": r"\\\"(?P<eq>(?:(?!\\\")[^\n]){0,4096})\\\"",
    "unit": r"\$\((?:[^()\n]|\([^()\n]*\)){0,1024}\)|\$\{[^}\n]{0,256}\}",
    # code that computes a value: a dotted name called or subscripted (``os.environ["X"]``,
    # ``getpass.getpass()``), a name called with nothing or a string (``get_token()``; not
    # ``Tr0ub4dor(3``, a password)
    "expression": (r"(?:[A-Za-z_]\w{0,64}\.){1,8}[A-Za-z_]\w{0,64}[(\[]|[A-Za-z_]\w{0,64}\((?:\)|[\"'])"),
    "bare": rf"{_BARE_CHARACTER}{{1,4096}}",
    # the values given to a name of several credentials, joined by ``,`` (``API_KEYS=k1,k2``)
    "several": r"[^\s\"'<>;`|\\=,&]{1,1024}={0,2}(?:,[^\s\"'<>;`|\\=,&]{1,1024}={0,2}){0,63}(?![^\s,;&\"'])",
    "inline": r"[^\n,}\]\"'，；]{1,4096}",
    "line": r"[^\r\n]{1,8192}",
    "word": r"[^\s\"']{1,4096}[ \t]*(?=\r?\n|$)",
    "number": r"-?\d[\d.eE+-]{0,64}(?![\w.])",
    # (``:name:``: a Ruby symbol as a YAML key, ``~/.gem/credentials``' ``:rubygems_api_key:``)
    "line-lead": r"(?:[ \t]*(?:-[ \t]+)?(?:(?:export|set|declare -x|readonly|local|ENV|ARG)[ \t]+)?:?)$",
    "filler-word": r"[ \t]*(?P<w>[:：=]|[^\s:：=]{1,8})",
    # a member's name (quoted or not), its separator: ``list: |``, ``"list": [``
    "member-ahead": r"(?<![\w-])[\"']?(?P<m>[A-Za-z_]\w{0,31})[\"']?[ \t]*:[ \t]*",
    # a list header's name, then items before the name (``Sec-WebSocket-Protocol: v1, access_token``)
    # (also a ``{name, value}`` pair's: ``"name": "Sec-WebSocket-Protocol", "value": "access_token, X"``)
    "list-header": (
        r"(?P<name>[\w-]{1,64})[\"']?(?:[ \t]*,[ \t]*[\"']?value[\"']?)?[ \t]*[:=][ \t]*[\"']?"
        r"(?:[^\s,\"':=]{1,64}[ \t]*,[ \t]*){0,4}$"
    ),
    "list-item": r"[ \t]*,[ \t]*(?P<v>[^\s,\"'\]\\]{1,4096})",
    # an ``ipsec.secrets`` line: selectors (or none), a colon, the type; then its value
    "ipsec-lead": r"(?:^|[\n\"'])[ \t]*(?:[^\s:\"']{1,128}[ \t]+){0,4}:[ \t]+$",
    "ipsec-value": r"[ \t]+(?:(?P<q>[\"'])(?P<v>[^\"'\n]{1,4096})(?P=q)|(?P<bare>0[sx][^\s\"']{1,4096}))",
    # the number of one of several (``Unseal Key 1:``, ``Recovery Key #2:``)
    "index": r"#?\d{1,2}",
    "token": (
        r"[ \t]*(?:\"(?P<dq>[^\"\n]{1,4096})\"|'(?P<sq>[^'\n]{1,4096})'"
        rf"|(?P<bare>{_BARE_CHARACTER}{{1,4096}}))"
    ),
    # ``PASSWORD 'x'``, ``IDENTIFIED BY 'x'``, ``PASSWORD FOR 'u'@'%' = 'x'``, ``passphrase for … is "x"``
    "quoted-ahead": (
        r"(?:[ \t]+(?i:for)(?:[ \t]+[^\s'\"=]{1,64}|[ \t]*'[^'\n]{0,64}'(?:@'[^'\n]{0,64}')?){1,3})?"
        r"[ \t]*(?:(?:=|(?i:is|to|by|as|was)\b)[ \t]*)?(?P<q>['\"])(?P<v>(?:[^'\"\n]|''){1,4096})(?P=q)"
    ),
    "user-pair": r"[ \t]*[:：]?[ \t]*(?P<user>[\w.@-]{1,64})[ \t]*[/:][ \t]*(?P<v>[^\s,;)]{3,4096})",
    "header": r"(?i:(?:proxy-)?authorization|(?:set-)?cookie|x-[\w-]{1,64})",
    "header-line": r"[^\r\n]{1,8192}",
    "header-word": r"[ \t]*[^\s\"']{1,8192}",
    # where a quoted header value may end: a line break, a quote or an escaped line break
    "header-stop": r"\\+[nr]|\\*[\"']|[\r\n]",
    "pair-label": r"[\"']?\b(?i:name|key|k)[\"']?[ \t]*(?::|=>|=)[ \t]*[\"']?$",
    # a block or a map after a name (``NAME {``, ``"NAME" {``, ``NAME = {``, ``NAME: {``), its body (a
    # block inside it once deep), a block inside it, a member of it
    "block-open": r"[\"']?[ \t]*(?:(?:=(?!=)|:)[ \t]*)?\{|[\"']?[ \t]*(?:=(?!=)|:)[ \t]*\[",
    "flow-list": r"[^\[\]\n]{1,4096}(?=\])",
    "flow-item": r"[\"'](?P<v>[^\"'\n]{1,4096})[\"']",
    "block-body": r"(?:[^{}]|\{[^{}]{0,1024}\}){1,4096}(?=\})",
    "inner-block": r"\{[^{}]{0,1024}\}",
    "block-member": (
        r"(?:^|(?<=[\n{,;]))[ \t]*(?P<k>[\"']?[\w.-]{1,64}[\"']?)[ \t]*(?:=>|=(?!=)|:)[ \t]*"
        r"(?:\"(?P<q>(?:[^\"\\\n]|\\.){1,4096})\"|'(?P<sq>[^'\n]{1,4096})'"
        r"|(?P<v>[^\s,;}{\"'#\[]{1,4096}))"
    ),
    # a pair's name given by a flattened path (``env[0].name=``): its value is at the same path
    "flat-label": (
        r"(?<![\w\[\].-])(?P<path>[\w-]{1,64}(?:\[\d{1,6}\]|\.[\w-]{1,64}){0,8}[.\]])"
        r"(?i:name|key|k)=$"
    ),
    "meta-content": r"\bcontent[ \t]*=[ \t]*",
    "pair-value": r"(?<![\w.-])[\"']?(?P<name>(?i:value|val|v))[\"']?[ \t]*(?::|=>|=)[ \t]*[\"']?",
    "login-call": r"\b(?P<call>\w+)\([^()]{0,64}$",
    # a user's name earlier in the same object (no brace between): ``{"username": "bob", "key": …``
    "user-member": r"[\"'](?:username|userName|user|login|Username|User)[\"'][ \t]*:[^{}]{0,256}$",
    "item": r"\n[ \t]*- ",
    "script-lead": r"[\u3400-\u4dbf\u4e00-\u9fffA-Za-z0-9_.$-]+\Z",
    "script-tail": r"[\u3400-\u4dbf\u4e00-\u9fff]+",
    # a quote written as an HTML entity
    "entity-quote": r"&(?:quot|apos|#34|#39|#x22|#x27);",
    # a word asked (``Password forgotten?``): prose, not a value
    "question": r"[^\W\d_]{1,64}\?",
    "script-joined": r"(?:[_.-][^\W\d_][\w]{0,63}){1,4}",
    "tag-tail": r"(?:\s+[\w:.-]+\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s>]+))*\s*(?P<closing>/?)>",
    # an element's content that is one value: text, CDATA, or one child element holding either
    # (``<value>x</value>`` in a Spring ``<property name="password">``, a .NET ``<setting>``)
    "content": (
        r"\s*(?:<(?P<child>[\w:.-]{1,64})(?:\s[^<>]{0,256})?>)?\s*"
        r"(?:<!\[CDATA\[(?P<cdata>(?:(?!\]\]>)[\s\S]){1,4096})\]\]>|(?P<text>[^<]{1,4096}))\s*"
        r"(?(child)</(?P=child)>\s*)$"
    ),
    "xml-prefix": r"<[\w.-]{1,32}:$",
    "dumped": r"[ \t]*\r?\n?[ \t]{0,64}string\(\d{1,9}\) \"(?P<v>[^\"\n]{1,4096})\"",
    "value-child": (
        r"\s{0,64}<(?:[\w.-]{1,32}:)?(?i:value)>(?P<v>[^<]{1,4096})</(?:[\w.-]{1,32}:)?(?i:value)>"
    ),
    "element-name": r"<([\w:.-]+)",
    "attribute-head": r"<[\w:-]+[^<>]*\b(?:key|name)=$",
    "multipart-head": r"(?i:form-data)[^\r\n]{0,256}\bname=$",
    "part-body": r"[^\r\n]{0,256}(?:\r?\n[^\r\n]{1,256}){0,8}\r?\n\r?\n(?P<v>[^\r\n]{1,4096})",
    # ``os.getenv("API_KEY", "x")``, ``os.environ.setdefault('HF_TOKEN', 'x')``, Go's ``os.Setenv``
    # (also .NET's ``[Environment]::SetEnvironmentVariable('X', 'x')``)
    # (also Rust's ``std::env::set_var("X", …)``, PHP's ``define('DB_PASSWORD', …)`` of wp-config.php,
    # Java's ``System.setProperty("javax.net.ssl.keyStorePassword", …)``)
    "env-call": (
        r"(?i:\benv\w*|\bgetenv|\bputenv|\bsetenv\w*|\benv::set_var|\bdefine|\bset_?property)"
        r"(?:\.(?:get|setdefault|pop))?\([ \t]*$"
    ),
    # a call's opening bracket right before its first argument (``props.put(``)
    "any-call": r"[A-Za-z0-9_]\([ \t]*$",
    # a setter of options given the option's constant before its value (``curl_setopt($ch,
    # CURLOPT_USERPWD, …)``, ``curl_easy_setopt(c, CURLOPT_PASSWORD, …)``, pycurl's ``c.setopt(
    # pycurl.USERPWD, …)``, ``ldap_set_option``, ``setOption``)
    "option-setter": r"(?i:setopt|set_option|setoption)\([^()\n]{0,128}$",
    # a call's arguments without brackets (Ruby's ``req.basic_auth "bob", "x"``, Perl's), ending
    # the statement
    "bare-arguments": (
        r"[ \t]+(?:(?P<q1>[\"'])(?P<first>[^\"'\n]{0,1024})(?P=q1)[ \t]*,[ \t]*){0,3}"
        r"(?P<q2>[\"'])(?P<last>[^\"'\n]{1,4096})(?P=q2)[ \t]*(?=[;\r\n#]|$)"
    ),
    # a pair in a language's map or tuple syntax, then its quoted value: Kotlin's ``"password" to
    # "x"``, Scala's ``->``, Lisp's ``("password" . "x")``, Erlang's ``{password, "x"}``, a list's
    # ``["password", "x"]``, Clojure's ``:password "x"``
    "pair-syntax": (
        r"(?:[ \t]+(?P<word>to|->|\.)[ \t]+|[ \t]*(?P<comma>,)[ \t]*|(?P<space>[ \t]+))"
        r"(?:\"(?P<dq>[^\"\\\n]{1,4096})\"|'(?P<sq>[^'\\\n]{1,4096})')"
    ),
    "next-argument": r"[ \t]*,[ \t]*",
    # ``(user, password)``: an argument list or tuple of quoted strings (``set_password(svc, user, x)``)
    "arguments": (
        r"\([ \t]*(?:(?P<q1>[\"'])(?P<first>[^\"'\n]{0,1024})(?P=q1)[ \t]*,[ \t]*){0,3}"
        r"(?P<q2>[\"'])(?P<last>[^\"'\n]{1,4096})(?P=q2)"
        # (the literal converted as it is given: Java's ``"x".toCharArray()``, ``.getBytes()``, Python's
        # ``.encode()``, Rust's ``.as_bytes()``, ``.to_string()``)
        r"(?:\.(?:toCharArray|getBytes|encode|as_bytes|to_string|to_owned|into|toString)\([^()\n]{0,32}\))?"
        r"[ \t]*,?[ \t]*\)"
    ),
    # ``(url, "user", "password")``, ``("jdbc:…", "user", "password")``, ``("user", "password")``
    "connection-arguments": (
        r"\([ \t]*(?:[A-Za-z_][\w.]{0,128}[ \t]*,[ \t]*"
        r"|(?P<q0>[\"'])[^\"'\n]{0,1024}(?P=q0)[ \t]*,[ \t]*)?"
        r"(?P<q1>[\"'])[^\"'\n]{0,1024}(?P=q1)[ \t]*,[ \t]*"
        r"(?P<q2>[\"'])(?P<last>[^\"'\n]{1,4096})(?P=q2)[ \t]*\)"
    ),
    # a keyword argument's lead: the call's bracket, or a comma and a space (``f(a, password=…``)
    "keyword-lead": r"(?:\(|,[ \t]+)[ \t]*\Z",
    # a declaration's type between a name and its value (``val password: String = "x"``, Rust's
    # ``const TOKEN: &str = "x"``, Go's ``var password string = "x"``, Bicep's ``param pw string = 'x'``)
    # (a type alone is no value: ``password: str``, ``token: string;``)
    "typed": (
        r"[ \t]*(?::[ \t]*|[ \t])(?:&(?:'static[ \t]+)?)?"
        rf"(?:{'|'.join(DECLARED_TYPES)})\??"
        r"[ \t]*(?:=(?![=>])[ \t]*(?:SecretStr|SecretString|Secret)?(?:\([ \t]*)?|(?P<alone>(?=[;,)\r\n]|$)))"
    ),
    # what closes a name set off by emphasis, brackets or a code span (``**Password:** x``,
    # ``**password**: x``, PHP's ``[password] => x``), before its separator or after it
    "closer": r"\*\*|__|\]|`",
    # a default given after a reference to a value held elsewhere (``process.env.KEY || "x"``)
    "default": r"[ \t]*(?:\|\||\?\?|\bor\b|\?:)[ \t]*(?P<q>[\"'`])(?P<v>(?:[^\"'`\\\n]|\\.){1,1024})(?P=q)",
    # a default given inside a reference (the reference names a value held elsewhere, the default is
    # a value): the shell's ``${X-x}``/``${X:=x}``, a template's ``{{ .Values.x | default "x" }}``,
    # ``{{ x | default('x') }}``, ``{{ default "x" .Values.x }}``, ``{{ or .Env.X "x" }}``, Make's
    # ``$(or $(X),x)``
    "reference-default": (
        r"\$\{[A-Za-z_]\w{0,63}:?[-=](?P<s>[^}\s$'\"]{1,1024})\}"
        r"|\{\{-?[^{}\n]{0,256}?"
        r"(?:\|[ \t]*default[ \t]*\(?|\bdefault[ \t]+|\bor[ \t]+(?:[^\s\"'{}]{1,128}[ \t]+)?)"
        r"[ \t]*(?P<q>[\"'])(?P<t>[^\"'\n]{1,1024})(?P=q)"
        r"|\$\(or[ \t]+\$\([A-Za-z_]\w{0,63}\),(?P<m>[^)\s$]{1,1024})\)"
    ),
    # a Markdown table's row giving a name its value (``| API_TOKEN | `x` |``)
    # (one word, or a code span: ``| password | the password |`` describes)
    # the attribute naming a ``{key, value}`` pair in markup (``<add key="DbPassword" value="x"/>``)
    "pair-attribute": r"=[ \t]*(?P<q>[\"'])[^\"'\n]{0,256}(?P=q)[ \t]+(?i:value|val)[ \t]*=",
    "cell": (
        r"[ \t]*\|[ \t]*(?:`(?P<c>[^`\n]{1,1024})`|(?P<v>[^|`\s\\\"']{1,1024}))[ \t]*\|[ \t]*"
        r"(?=\r?\n|\\[nr]|[\"']|$)"
    ),
    # a variable's name (no digits: ``hunter2`` is how a password is written)
    "variable": r"(?:\$env:)?[A-Za-z_][A-Za-z_.]{0,63}",
    # a property list's value after its ``<key>`` (``<key>Password</key><string>x</string>``)
    "plist-value": r"</key>\s{0,64}<(?P<t>string|data)>\s{0,64}(?P<v>[^<\s][^<]{0,4095}?)\s{0,64}</(?P=t)>",
    # the literal an encoding call is given first (``("bob:x")``, ``(b"bob:x")``, ``([]byte("bob:x"))``)
    "encoded-literal": r"\([ \t]*(?:\[\]byte\([ \t]*)?[bB]?(?P<q>[\"'`])(?P<v>[^\"'`\n]{1,1024})(?P=q)",
    # a network device's line: its first word (after indentation, a ``no``), up to the keyword
    "device-lead": r"[ \t]*(?:no[ \t]+)?(?P<head>[\w-]{1,32})",
    # a RADIUS or TACACS+ server's block above an indented line (``radius server r1``, its lines)
    "device-block": (
        r"(?:^|[\n>])(?:radius|tacacs|aaa)[\w-]*[ \t][^\n]{0,256}\n(?:[ \t]+[^\n]{0,256}\n){0,8}\Z"
    ),
    "device-space": r"[ \t]+(?![\s=:])",
    "device-words": r"[^\n]{0,1024}",
    "device-word": r"[ \t]+(?:\"(?P<v>[^\"\n]{1,1024})\"|(?P<w>[^\s\"']{1,1024}))",
    # one argument of a call, up to its ``,`` or ``)``: a quoted string (also a bytes literal, Rust's
    # ``Some("x")``), or anything else without quotes or brackets (a variable, ``$conn``, a number)
    # (a literal may be encoded on the spot, ``"x".encode()``; an object or list literal is one
    # argument, ``jwt.encode({"sub": 1}, X)``)
    "positional-argument": (
        r"[ \t]*(?:(?:Some\([ \t]*)?(?:&[ \t]*)?[bBrRuU]?(?P<q>[\"'])(?P<v>(?:[^\"'\\\n]|\\.){0,1024})(?P=q)"
        r"(?:\.[A-Za-z_]\w{0,16}\(\))?(?:[ \t]*\))?|\{[^{}\n]{0,256}\}|\[[^\[\]\n]{0,256}\]"
        r"|[^,()\"'\n]{1,256}(?:\([^()\n]{0,256}\))?)[ \t]*(?P<sep>[,)])"
    ),
    # the answer to a prompt (``expect "password:"; send "x\r"``): after the prompt's closing quote
    "answer": (r"\s{0,8}(?:[;{]\s{0,8})?(?:[\w-]{1,16}[ \t]+){0,2}(?P<q>[\"'])(?P<v>[^\"'\n]{1,4096})(?P=q)"),
    # a name given a value in markup or an option (``serializeAs=``): syntax, never a value
    "syntax-name": r"^[A-Za-z_][\w:.-]{0,63}=$",
}


@cache
def _compiled(key: str) -> re.Pattern[str]:
    if key == "scheme":  # an authorization value's scheme, from the table
        schemes = "|".join(
            re.escape(scheme) for scheme in (*TOKEN_SCHEMES, *PARAMETER_SCHEMES, "bce-auth-v1")
        )
        return re.compile(rf"(?i:{schemes})\b[ \t/]*")
    return re.compile(_PATTERNS[key])


@cache
def _stem_gate() -> re.Pattern[str]:
    """The stems as a trie (a character at a time: most positions fail at their first character; the
    same hits as their alternation, in half the time)."""
    from jobschema.secrets.shapes import _trie

    return re.compile(_trie(sorted({*STEMS, *WORD_STEMS, *SCRIPT_WORDS})))


@cache
def _name_run() -> re.Pattern[str]:
    return re.compile(r"[A-Za-z0-9_.$-]+")


def lowered(text: str) -> str:
    """``text`` in lowercase, position for position (``str.lower`` lengthens a dotted capital I)."""
    low = text.lower()
    return low if len(low) == len(text) else "".join(c.lower() if c.isascii() else "\0" for c in text)


def has_stem(text: str) -> bool:
    """True when ``text`` holds a credential stem (a name that says credential may stand in it)."""
    return _stem_gate().search(lowered(text)) is not None


def spans(text: str) -> list[Span]:
    """The values of credential names in ``text``, as ``(start, end, quoted)`` spans."""
    found: list[Span] = []
    seen: set[int] = set()
    for hit in _stem_gate().finditer(lowered(text)):
        # (a stem of a call ends in its bracket: the name ends before it)
        start, end = _name_around(text, hit.start(), hit.end() - hit.group().endswith("("))
        if start in seen:
            continue
        seen.add(start)
        # (a shell parameter expansion's name, ``${DB_PASSWORD:-x}``: its literal default, if any;
        # Spring's ``${db.password:x}`` is a name and its value)
        expansion = text[max(0, start - 2) : start] == "${" and _SHELL_OPERATOR.match(text, end) is not None
        span = _expansion_default(text, start, end) if expansion else _value_of(text, start, end)
        if span is not None:
            found.append(span)
        elif "{" in text[end : end + 8] or "[" in text[end : end + 8]:
            found += _block_spans(text, start, end)
    return found


def _block_spans(text: str, start: int, end: int) -> list[Span]:
    """The values in a block or map given to a credential's name in text that does not parse
    (HCL's ``variable "db_password" { default = "x" }``, ``api_keys = { prod = "x" }``, a JavaScript
    object): each member's value, as a parsed document's strings under the name are judged
    (:func:`jobschema.secrets.places.is_secret_place`: not a member that refers to where the
    credential is kept or describes it, ``type``, ``description``, ``secretKeyRef``; a setting, a
    reference or a path is no value). Members of blocks inside the block are not read here."""
    name = text[start:end].lstrip("-$").rstrip(".")
    opening = _compiled("block-open").match(text, end)
    if opening is None or not is_secret_name(name):
        return []
    if opening.group().endswith("["):  # ``passwords: ["x", "y"]`` (a flow list that did not parse)
        items = _compiled("flow-list").match(text, opening.end())
        if items is None:
            return []
        spans = [_span(text, *item.span("v")) for item in _compiled("flow-item").finditer(items.group())]
        return [
            (low + items.start(), high + items.start(), False)
            for low, high, _ in (span for span in spans if span is not None)
            if plausible(items.group()[low:high], name, True)
        ]
    block = _compiled("block-body").match(text, opening.end())
    if block is None:
        return []
    inner = [m.span() for m in _compiled("inner-block").finditer(text, block.start(), block.end())]
    found: list[Span] = []
    for member in _compiled("block-member").finditer(text, block.start(), block.end()):
        if any(low <= member.start("k") < high for low, high in inner):
            continue
        key = member["k"].strip("\"'")
        keyed = words(key)
        if not keyed or keyed[0] == "x" or keyed[-1] in REFERENCE_WORDS or set(keyed) & NOT_HELD_KEYS:
            continue
        group = next(g for g in ("q", "sq", "v") if member[g] is not None)
        if group == "v" and _compiled("number").fullmatch(member["v"]):
            continue  # (``ttl = 30``: a number, as a parsed document's are not held)
        span = _span(text, member.start(group), member.end(group))
        if span is not None and plausible(text[span[0] : span[1]], key, group != "v"):
            found.append(span)
    return found


def _name_around(text: str, start: int, end: int) -> tuple[int, int]:
    """The run of name characters holding ``text[start:end]`` (a word of another script ends its name:
    ``数据库密码``, ``DB密码``)."""
    if lowered(text[start:end]) in SCRIPT_WORDS:
        lead = _compiled("script-lead").search(text, max(0, start - _NAME_REACH), start)
        tail = _compiled("script-tail").match(text, end, end + _NAME_REACH)
        if tail is not None and text[start : tail.end()].endswith(SCRIPT_REFERENCE_SUFFIXES):
            end = tail.end()  # ``密码长度``: a name that describes a credential
        joined = _compiled("script-joined").match(text, end, end + _NAME_REACH)
        if joined is not None:
            return (lead.start() if lead else start), joined.end()  # ``пароль_бд``: joined words
        trailer = _name_run().match(text, end, end + _NAME_REACH)
        if trailer is not None and all(word in TRAILERS for word in words(trailer.group())):
            end = trailer.end()  # ``访问密钥ID`` (but ``密码abc123`` is a word and its value)
        return (lead.start() if lead else start), end
    low = max(0, start - _NAME_REACH)
    while start > low and text[start - 1] in _NAME_SET:
        start -= 1
    match = _name_run().match(text, end, end + _NAME_REACH)
    return start, match.end() if match else end


def _value_of(text: str, start: int, end: int) -> Span | None:
    name = text[start:end].lstrip("-$").rstrip(".")
    # ``user, password = "bob", "X"``: by place (columns); a type (``api_key: SecretStr = Field(...)``),
    # a pair's name in markup (``<add key="DbPassword" value=…/>``: its value is judged under it)
    if (
        not name
        or _unpacking(text, start)
        or name in DECLARED_TYPES
        or (name in PAIR_NAMES and _compiled("pair-attribute").match(text, end))
    ):
        return None
    before = text[start - 1] if start else ""
    named = is_secret_name(name) or value_decides(name) is not None
    named = named or (before != "" and before in "?&" and is_secret_parameter(name))
    named = named or _two_words(text, start, name) or _login_key(text, start, name)
    named = named or _key_beside_a_user(text, start, name, before)
    named = named or (name.lower() == "key" and _in_a_key_section(text, start))
    # (a login call, also given its arguments without brackets: ``smtp.login "bob", "x"``)
    called = text.startswith(("(", ' "', " '"), end)
    named = named or (called and words(name)[-1:] in _LOGIN_CALL_WORDS)
    named = named or (text.startswith("(", end) and _connection_call(name))
    named = named or (text.startswith("(", end) and _positional_call(name) is not None)
    named = named or (text.startswith("(", end) and _encoder_call(name))
    # (``withPassword(``: ``with`` starts a switch's name, ``--with-token``)
    named = named or (text.startswith("(", end) and _setter(name))
    if named and name.lower() in _PARENTS and (member := _secret_member(text, start, end, name)) is not None:
        return member if member != SETTLED else None  # ``chpasswd: {list: [ 'root:x' ]}``
    if named and (item := _list_item(text, start, end)) is not None:
        return item if _plausible(text, item, name) else None  # ``Sec-WebSocket-Protocol: access_token, X``
    # ``tacacs-server key 7 X`` (a network device's line); ``: PSK "x"`` (ipsec.secrets): the value
    # after the type
    secret = _device_secret(text, start, end, name) if name.lower() in DEVICE_KEYWORDS else None
    if secret is None and name in IPSEC_TYPES:
        secret = _ipsec_secret(text, start, end, name)
    if secret is not None:
        return secret if secret != SETTLED else None
    finders = (_syntax, _pair, _prose) if named else (_prose,) if _context_word(name) else ()
    for finder in finders:
        found = finder(text, start, end, name)
        if found is None:
            continue
        kind = value_decides(name) if found != SETTLED else None
        if kind == "pair" and text.startswith("(", end):
            kind = "argument"  # (``api.login('X')``: a call's argument, not a ``login=user:X`` value)
        if kind == "command":
            found = _command_line(text, found)
        elif kind == "pair" and found != SETTLED and text[: found[0]].rstrip(" \t").endswith("/"):
            kind = "argument"  # (``login: bob / X``: the password after the user, found already)
        elif kind == "pair":  # (the password of ``user = "bob:X"``, judged as a value of its own)
            found = _pair_password(text, found) or SETTLED
        elif found != SETTLED:
            found = _reference_default(text, found) or found
        judged = "" if kind in ("pair", "argument") else name
        held = found != SETTLED and not _keyword_variable(text, start, found)
        return found if held and _plausible(text, found, judged) else None
    return None


def _keyword_variable(text: str, start: int, found: Span) -> bool:
    """``connect(password=db_password)``, ``Client(api_key=api_key, timeout=3)``: a call's keyword
    argument given a variable (an identifier without digits, then ``,`` or ``)``) names a credential
    held elsewhere; ``f(password=hunter2)`` and random-looking values are values, and so is a list of
    options (``-o user=bob,password=x,uid=0``: no space after its commas)."""
    low, high, _ = found
    value = text[low:high]
    return (
        _compiled("keyword-lead").search(text, max(0, start - 16), start) is not None
        and text[low - 1 : low] == "="
        and text[high : high + 1] in (",", ")")
        and _compiled("variable").fullmatch(value) is not None
        and not looks_random(value, 16, 3.0)
    )


def _unpacking(text: str, start: int) -> bool:
    """The name at ``start`` is one of the names an unpacking assignment lists (``user, password =
    …``): its value is the one at its place (:mod:`~jobschema.secrets.columns`), not the first."""
    lead = text[max(0, start - 64) : start].rstrip(" \t")
    if not (lead.endswith(",") or "," in text[start : start + 80].split("=", 1)[0]):
        return False  # (a name listed: a comma before it, or one after it before the ``=``)
    line = text.rfind("\n", max(0, start - UNPACKING_REACH), start) + 1
    match = UNPACKING.match(text, line)
    return match is not None and match.start("names") <= start < match.end("names")


def _pair_password(text: str, found: Span) -> Span | None:
    """The password of a ``user:password`` value (``user = "bob:X"``): after the user's name; None
    when the value holds none (``user: 1000:1000``, ``user = bob``)."""
    start, end, quoted = found
    offset = pair_password(text[start:end])
    return None if offset is None else (start + offset, end, quoted)


def _command_line(text: str, found: Span) -> Span:
    """The value of a name that holds a command (``FERNET_KEY_CMD=echo X``): not quoted, the rest of
    its line (a configuration's value, not the shell's first word)."""
    start, end, quoted = found
    if start > 0 and text[start - 1] in "\"'`" and text[end : end + 1] == text[start - 1]:
        return found
    stop = len(text)
    for mark in ("\n", "\r", "\\n"):
        cut = text.find(mark, end)
        stop = cut if 0 <= cut < stop else stop
    return (start, len(text[:stop].rstrip()), quoted)


#: The parents of :data:`SECRET_MEMBERS`, and their members.
_PARENTS: dict[str, frozenset[str]] = {
    parent: frozenset(m for p, m in SECRET_MEMBERS if p == parent) for parent, _ in SECRET_MEMBERS
}


def _secret_member(text: str, start: int, end: int, name: str) -> Span | None:
    """``chpasswd:`` then its ``list`` (:data:`SECRET_MEMBERS`) a few lines on: a block (``list: |``),
    YAML items (``- root:x``), a flow or JSON list (``[ 'root:x' ]``): all of it."""
    for member in _compiled("member-ahead").finditer(text, end, min(len(text), end + 256)):
        if member["m"] not in _PARENTS[name.lower()]:
            continue
        at = member.end()
        if text.startswith("[", at):
            close = text.find("]", at, at + 8192)
            inner = _span(text, at + 1, close) if close > at else None
            if inner is not None and text[inner[0]] in "\"'" and text[inner[1] - 1] == text[inner[0]]:
                inner = _span(text, inner[0] + 1, inner[1] - 1)
            return inner or SETTLED
        if text[at : at + 1] in ("|", ">", "\n", "\r", ""):
            return _block(text, member.start("m"), at) or SETTLED
        return _value(text, at, "line") or SETTLED
    return None


def _list_item(text: str, start: int, end: int) -> Span | None:
    """``Sec-WebSocket-Protocol: access_token, X`` (a header of :data:`LIST_HEADERS`): the item after
    a credential's name in the header's list."""
    if not text.startswith(",", end) and not text.startswith(", ", end):
        return None
    lead = _compiled("list-header").search(text, max(0, start - 320), start)
    if lead is None or lead["name"].lower() not in LIST_HEADERS:
        return None
    item = _compiled("list-item").match(text, end)
    return _span(text, item.start("v"), item.end("v")) if item else None


def _ipsec_secret(text: str, start: int, end: int, name: str) -> Span | None:
    """``@moon @sun : PSK "x"``, ``carol : XAUTH "x"``, ``: PSK 0sBASE64``: a line of ``ipsec.secrets``
    (selectors, a colon, the secret's type, its value)."""
    if _compiled("ipsec-lead").search(text, max(0, start - 256), start) is None:
        return None
    value = _compiled("ipsec-value").match(text, end)
    if value is None:
        return None
    group = "v" if value["v"] is not None else "bare"
    found = _span(text, value.start(group), value.end(group))
    return found if found is not None and _plausible(text, found, name) else None


def _device_type(word: str | None) -> bool:
    """A key's type or number before its value (``7``, ``md5``, ``ascii-text``, ``42`` of ``ntp
    authentication-key 42 md5 X``)."""
    return word is not None and (word.lower() in DEVICE_TYPES or (word.isdigit() and len(word) <= 5))


def _device_secret(text: str, start: int, end: int, name: str) -> Span | None:
    """A network device's configuration line (``DEVICE_HEADS``): the value after the credential keyword
    at ``start`` and the key's type, if any (``key 7 0458…``, ``md5 X``), or :data:`SETTLED` when that
    is no value (a number, prose); None on any other line (``password=x``: another syntax's)."""
    line = text.rfind("\n", max(0, start - 256), start) + 1
    lead = _compiled("device-lead").match(text, line, end)
    head = lead["head"].lower() if lead is not None else ""
    first = lead is not None and lead.start("head") == start
    if (
        _compiled("device-space").match(text, end) is None
        or (line == 0 and start > 256)
        or head not in (DEVICE_KEYWORDS if first else DEVICE_HEADS)  # (``password --help … password X``)
    ):
        return None
    words_after = _compiled("device-words").match(text, end)
    tokens = list(_compiled("device-word").finditer(words_after.group() if words_after else ""))
    typed = 0
    while typed < 2 and typed < len(tokens) - 1 and _device_type(tokens[typed]["w"]):
        typed += 1
    untyped = first and name.lower() in DEVICE_TYPED_FIRST and typed == 0
    if not tokens or (untyped and _compiled("device-block").search(text, max(0, line - 1024), line) is None):
        return None  # (``key 1``; but ``radius server r1`` then `` key X``: a server's key)
    return _device_value(text, end, tokens[typed], name, typed > 0)


def _device_value(text: str, end: int, token: re.Match[str], name: str, typed: bool) -> Span:
    """The value a device's line gives its keyword (``token``, read from ``end``), or :data:`SETTLED`:
    short, a few digits alone (a tunnel's ``key 42``; after a type, ``key 7 0458021``, a key) or no
    credential (prose)."""
    group = "v" if token["v"] is not None else "w"
    low, high = token.start(group) + end, token.end(group) + end
    value = text[low:high]
    number = value.isdigit() and not (typed and len(value) >= 6)
    if len(value) < 4 or number or not plausible(value, name, group == "v"):
        return SETTLED
    return _span(text, low, high) or SETTLED


def _plausible(text: str, found: Span, name: str) -> bool:
    start, end, _ = found
    quoted = start > 0 and end < len(text) and text[end] == text[start - 1] and text[end] in "\"'`"
    return plausible(text[start:end], name, quoted)


def _spaced_in_a_section(text: str, start: int, at: int) -> bool:
    """The name at ``start`` stands in an INI section (``[Service]``, ``[db]`` above it) and its value
    at ``at`` holds a space before its line ends."""
    line_end = text.find("\n", at)
    if text.find(" ", at, line_end if line_end >= 0 else len(text)) < 0:
        return False
    low = max(0, start - 2048)
    if text.rfind("[", low, start) < 0:
        return False
    section = _compiled("ini-section").search(text, low, start)
    return section is not None and section["s"][:1].isalnum()


def _in_a_key_section(text: str, start: int) -> bool:
    """``key = X`` in an INI section whose name makes it a credential's (``[api]``, ``[license]``)."""
    section = _compiled("ini-section").search(text, max(0, start - 2048), start)
    return section is not None and qualified_key(section["s"], "key")


def _two_words(text: str, start: int, name: str) -> bool:
    """``api key``, ``client secret``, ``OpenAI key``: the word before a name joined with it says
    credential (judged as an env var would be); ``mot de passe``, ``parola d'ordine``: the two words
    before it joined with it say so (a credential word written in words)."""
    match = re.search(
        r"(?:([A-Za-z]{1,16})[ \t]+)?([A-Za-z]{1,16})[ \t'\u2019]$", text[max(0, start - 36) : start]
    )
    if match is None:
        return False
    if match[2] and len(match[2]) > 1 and is_secret_name(f"{match[2]}_{name}".upper()):
        return True
    return match[1] is not None and is_secret_name(f"{match[1]}_{match[2]}_{name}".lower())


def _key_beside_a_user(text: str, start: int, name: str, before: str) -> bool:
    """``{"username": "bob", "key": …}`` (``kaggle.json``): a quoted ``key`` member after a user's
    name in the same object is a login's credential (as :func:`~jobschema.secrets.places.is_secret_place`
    judges it in a parsed document)."""
    if name not in USER_KEYS or before not in ('"', "'"):
        return False
    return _compiled("user-member").search(text, max(0, start - 300), start) is not None


def _login_key(text: str, start: int, name: str) -> bool:
    """``wandb.login(key=…)``: the key given to a login call."""
    if name.lower() != "key":
        return False
    call = _compiled("login-call").search(text, max(0, start - 80), start)
    return call is not None and call["call"].lower() in LOGIN_CALLS


def _context_word(name: str) -> bool:
    found = words(name)
    if _script_name(name):
        return True
    if not found or (len(found) > 1 and found[-2] in NOT_AFTER.get(found[-1], ())):  # ``cpu_pin``
        return False
    if found[-1] in QUALIFIED_WORDS and found[-2:-1] != () and found[-2] not in QUALIFIED_WORDS[found[-1]]:
        return False  # (``word``, ``passe``: a credential only after their qualifier, ``pass_word``)
    if found[-1] in QUALIFIED_WORDS and len(found) == 1:
        return False
    return any(found[-1] in c.words for c in CONTEXTS)


def _script_name(name: str) -> bool:
    """A name ending in a credential word of another script (``密码``, ``数据库密码``)."""
    return not name.isascii() and name.lower().endswith(tuple(SCRIPT_WORDS))


# --- name-value syntaxes ----------------------------------------------------------------------------


def _syntax(text: str, start: int, end: int, name: str) -> Span | None:
    """The value after the name in a name-value syntax, or None when none follows."""
    before = text[start - 1] if start else ""
    found = _quoted_name(text, start, end, before) or _element_or_call(text, start, end, name, before)
    closed: bool | None = None
    if found is None:
        found = _pair_syntax(text, start, end, name, before)
    if found is None:
        found, end, closed = _declared_or_set_off(text, start, end, name)
    if found is not None:
        return found
    assign = _compiled("assign").match(text, end)
    if assign is not None:
        spaced = assign.group() != "=" and assign.group().strip() == "="
        at_start = _at_line_start(text, start)
        # (``password=correct horse`` in an INI section, a systemd unit's ``SetCredential=id: x``: the
        # value is the rest of the line, as INI readers take it)
        kind = "line" if at_start and (spaced or _spaced_in_a_section(text, start, assign.end())) else "bare"
        kind = "several" if kind == "bare" and names_several(name) else kind  # ``API_KEYS=k1,k2``
        value = _value(text, assign.end(), kind)
        return (_default(text, value) if value else None) or value or SETTLED
    colon = _compiled("colon").match(text, end)
    # (``"password:"`` closing a string is a prompt: its answer is prose's to find)
    prompt = colon is not None and before != "" and before in "\"'" and text.startswith(before, colon.end())
    # (``--header=X-API-Key:VALUE``: a header given to an option)
    option_header = before == "=" and _compiled("header").fullmatch(name) is not None
    placed = _at_line_start(text, start) or _inline(text, start) or option_header
    # (a name set off at its line's start: ``**Password:** x``, ``- **token**: x``)
    emphasis = closed is True or (closed is False and text.startswith("**", colon.end() if colon else end))
    placed = placed or (emphasis and _placed(text, start - (2 if before in "*_" else 1)))
    if colon is not None and not prompt and placed:
        at = colon.end()
        if closed is False and text.startswith("**", at):  # ``**Password:** x``
            after = text[at + 2 : at + 66]
            at += 2 + len(after) - len(after.lstrip(" \t"))
        return _colon_value(text, start, at, name, before) or SETTLED
    if colon is not None and before == "/" and _placed(text, _pair_lead(text, start - 1)):
        return _paired_value(text, colon.end(), name) or SETTLED
    space = _compiled("space").match(text, end)
    if space is not None and _at_line_start(text, start):  # ``requirepass X`` alone on its line
        word = _compiled("word").match(text, space.end())
        if word is not None and not _compiled("question").fullmatch(word.group().strip()):
            return _span(text, space.end(), word.end()) or SETTLED
    return None


#: A value that is a field's or a constant's name, letters alone (``["password", "email"]``, imaplib's
#: ``('AUTH', 'SELECTED')``: names, no pair).
_FIELD_NAME = re.compile(r"[A-Za-z_][A-Za-z_.-]{0,63}")


def _pair_syntax(text: str, start: int, end: int, name: str, before: str) -> Span | None:
    """A pair of a language's map or tuple syntax (``"password" to "x"``, ``("password" . "x")``,
    ``{password, "x"}``, ``["password", "x"]``, ``:password "x"``): the quoted value, when it may be
    a credential and is no field's name nor an option's; None for anything else. A comma or a dot
    pairs only the two items of a bracket (opened just before the name, closed just after the value);
    a space only after a keyword's colon (Clojure)."""
    quoted = before in ('"', "'")
    at = end + 1 if quoted and text.startswith(before, end) else end
    pair = None if quoted and at == end else _compiled("pair-syntax").match(text, at)
    if pair is None:
        return None
    if pair["comma"] and not quoted and _compiled("option-setter").search(text, max(0, start - 160), start):
        return _option_value(text, pair, name)  # ``curl_setopt($ch, CURLOPT_USERPWD, "bob:x")``
    lead = start - 1 if before in ('"', "'", ":") else start
    opener = text[lead - 1] if lead > 0 else ""
    if pair["comma"] or pair["word"] == ".":  # (a pair alone in its bracket: ``("password", "x")``,
        closer = {"{": "}", "[": "]", "(": ")"}.get(opener)  # not a tuple of names or more items)
        if closer is None or not text[pair.end() : pair.end() + 64].lstrip(" \t").startswith(closer):
            return None
    if pair["space"] is not None and not (before == ":" and (lead == 0 or opener in " \t{([")):
        return None
    group = "dq" if pair["dq"] is not None else "sq"
    value = pair[group]
    if _FIELD_NAME.fullmatch(value) or value.startswith("-") or not plausible(value, name, True):
        return SETTLED
    return _span(text, pair.start(group), pair.end(group))


def _option_value(text: str, pair: re.Match[str], name: str) -> Span | None:
    """The value a setter of options gives an option named like a credential (``CURLOPT_PASSWORD``):
    a ``user:password`` pair's password under a name saying both (``CURLOPT_USERPWD``)."""
    group = "dq" if pair["dq"] is not None else "sq"
    value, start = pair[group], pair.start(group)
    if "userpwd" in name.lower() or "userpass" in name.lower():
        offset = pair_password(value)
        return _span(text, start + offset, pair.end(group)) if offset is not None else SETTLED
    return _span(text, start, pair.end(group)) if plausible(value, name, True) else SETTLED


def _declared_or_set_off(text: str, start: int, end: int, name: str) -> tuple[Span | None, int, bool | None]:
    """The value of a declaration given a type (``val password: String = "x"``), of a Markdown
    table's row (``| API_TOKEN | `x` |``), of a pair's word then a user and a password (``login: bob
    / x``); else None, and where the name's separator may start and whether it was set off
    (:func:`_closed`)."""
    typed = _compiled("typed").match(text, end)
    if typed is not None:  # (a call's result is no literal: ``api_key: SecretStr = Field(...)``)
        call = re.match(r"[A-Za-z_][\w.]{0,64}\(", text[typed.end() : typed.end() + 66])
        alone = typed["alone"] is not None or call is not None
        return (None if alone else _value(text, typed.end(), "bare")) or SETTLED, end, None
    end, closed = _closed(text, start, end)
    line = text.rfind("\n", max(0, start - 256), start) + 1
    lead = text[line:start].strip(" \t`")
    # a Markdown table's row (also in a string: after a quote or an escaped line end): the name's
    # cell, then its value's
    if lead == "|" or lead.endswith(('"|', "'|", "\\n|")):
        cell = _compiled("cell").match(text, end + (text[end : end + 1] == "`"))
        value = cell.span("c" if cell["c"] is not None else "v") if cell is not None else None
        if value is not None and text[value[0] : value[1]].lower() in TYPE_WORDS:
            return SETTLED, end, closed  # (``| password | string |``: a table of fields and their types)
        if value is not None:
            return _span(text, *value) or SETTLED, end, closed
    parts = words(name)
    if parts and parts[-1] in PAIR_WORDS:  # ``login: bob / x``, ``credentials: bob/x``
        pair = _compiled("user-pair").match(text, end)
        if (
            pair is not None
            and "/" in text[pair.end("user") : pair.start("v")]
            and pair["user"][:1].isalpha()
            and "/" not in pair["v"]  # (``login: 2026/01/01``, a path: no user and password)
        ):
            return _span(text, pair.start("v"), pair.end("v")) or SETTLED, end, closed
    return None, end, closed


def _closed(text: str, start: int, end: int) -> tuple[int, bool | None]:
    """Where a name's separator may start, and whether a closer was passed: a name set off by
    emphasis (``**password**: x``), brackets (``[password] => x``) or a code span is closed by the
    same mark it opened with (None: no opener; False: an opener whose closer comes later, after the
    separator, as in ``**Password:** x``)."""
    closer = _compiled("closer").match(text, end)
    opener = text[max(0, start - 2) : start]
    opened = opener in ("**", "__") or opener[-1:] in ("[", "`")
    if not opened:
        return end, None
    if closer is None:
        return end, False
    wanted = {"**": "**", "__": "__", "]": "[", "`": "`"}[closer.group()]
    if not opener.endswith(wanted):
        return end, False
    if wanted == "[" and not text.startswith(" =>", closer.end()):
        return end, None  # (a subscript: ``cfg[password] = x``, ``labels[JOB_ID_KEY] = id``)
    return closer.end(), True


#: What follows a shell parameter expansion's name: its operator (``:-``, ``-``, ``:=``, ``:?``, ``+``)
#: or its end.
_SHELL_OPERATOR = re.compile(r":?[-=?+]|\}")


def _expansion_default(text: str, start: int, end: int) -> Span | None:
    """The literal default of a parameter expansion (``${DB_PASSWORD:-x}``) whose name says
    credential; nothing when its default is a reference too (``${DB_PASSWORD:-$FALLBACK}``: the
    ``-$FALLBACK`` after the name's ``:`` is no value)."""
    name, close = text[start:end], text.find("}", end, end + 1100)
    if close < 0 or not is_secret_name(name):
        return None
    found = _reference_default(text, (start - 2, close + 1, False))
    return found if found not in (None, SETTLED) and _plausible(text, found, name) else None


def _reference_default(text: str, found: Span) -> Span | None:
    """The literal a reference found as a value is given as its default (``${X:-x}``,
    ``{{ .Values.x | default "x" }}``, ``$(or $(X),x)``), or None."""
    low, high, _ = found
    if high - low < 6 or ("$" not in text[low : low + 2] and "{{" not in text[low : low + 3]):
        return None
    default = _compiled("reference-default").match(text, low)
    if default is None or default.end() > high + 3:
        return None
    group = next(g for g in ("s", "t", "m") if default[g] is not None)
    return _span(text, *default.span(group)) or SETTLED


def _default(text: str, found: Span) -> Span | None:
    """The literal given as a default after a reference (``process.env.KEY || "x"``, ``?? "x"``,
    ``or "x"``): the reference names a value held elsewhere, the default is a value."""
    low, high, _ = found
    if _compiled("variable").fullmatch(text, low, high) is None:
        return None
    if text.startswith("<secret:", high):
        return SETTLED  # (its default masked already, with what stood between: scrubbing twice is once)
    default = _compiled("default").match(text, high)
    return (_span(text, *default.span("v")) or SETTLED) if default is not None else None


def _pair_lead(text: str, slash: int) -> int:
    """Where the name before a ``/`` starts (``user/password:``, ``AK/SK:``, ``账号/密码：``)."""
    at = slash
    while at > 0 and (text[at - 1].isalnum() or text[at - 1] in "_-."):
        at -= 1
    return at


def _paired_value(text: str, at: int, name: str) -> Span | None:
    """``user/password: bob/X``: names joined by ``/``, then their values joined so: the value after
    the last ``/`` is the credential's (the name after the ``/``)."""
    word = re.match(r"[^\s/]{1,1024}/(?P<last>[^\s/]{1,4096})(?=\s|$)", text[at : at + 6000])
    if word is None or not plausible(word["last"], name):
        return None
    return _span(text, at + word.start("last"), at + word.end("last"))


#: Last words of a builder's method given a credential (``.password("x")``, ``.apiKey("x")``).
_BUILDER_WORDS = frozenset({"password", "passwd", "passphrase", "secret", "token"}) | {"apikey", "key"}
#: Last words of a call that takes a user and a password (``HTTPBasicAuth('u', 'x')``).
_CALL_WORDS = frozenset({("auth",), ("credentials",), ("credential",), ("creds",), ("authentication",)})


def _element_or_call(text: str, start: int, end: int, name: str, before: str) -> Span | None:
    """``<password>…``, ``<a:password>…`` (an XML element, also namespaced), ``HTTPBasicAuth('u', 'x')``
    (a call taking a user and a password): the value inside, or :data:`SETTLED` (the name is the
    element's or the call's, no other syntax follows it)."""
    found = _markup_value(text, start, end, name, before) if before and before in "<>:" else None
    if found is None and text.startswith("(", end):
        found = _table_call(text, end, name)
    if found is None and text.startswith((" '", ' "'), end):
        return _bare_arguments(text, end, name)
    if found is not None or not text.startswith("(", end):
        return found
    if words(name)[-1:] in _CALL_WORDS or _setter(name):
        return _arguments(text, end) or SETTLED
    if "." in name and words(name)[-1] in _BUILDER_WORDS:  # a builder's ``.password("x")``
        one = _compiled("arguments").match(text, end)
        single = one is not None and one["first"] is None and " " not in one["last"]  # (not a prompt's words)
        return (_span(text, one.start("last"), one.end("last")) if one and single else None) or SETTLED
    if _connection_call(name):  # ``getConnection(url, "sa", "x")``
        match = _compiled("connection-arguments").match(text, end)
        return _span(text, match.start("last"), match.end("last")) if match else SETTLED
    # ``smtp.login('u', 'x')``
    return _login_arguments(text, end) if words(name)[-1:] in _LOGIN_CALL_WORDS else None


def _markup_value(text: str, start: int, end: int, name: str, before: str) -> Span | None:
    """The value of an element named ``name`` (``<password>…``, ``<a:password>…``), or of a property
    list's ``<key>`` (``<key>Password</key><string>x</string>``)."""
    if before == "<":
        return _element(text, end, name) or SETTLED
    if before == ">" and text.endswith("<key>", 0, start) and text.startswith("</key>", end):
        value = _compiled("plist-value").match(text, end)  # a plist's ``<key>`` then its value's element
        return (_span(text, *value.span("v")) if value else None) or SETTLED
    if before == ":" and (prefix := _compiled("xml-prefix").search(text, max(0, start - 34), start)):
        return _element(text, end, text[prefix.start() + 1 : end]) or SETTLED
    return None


def _table_call(text: str, end: int, name: str) -> Span | None:
    """A call of the table's (its ``(`` at ``end``): a ``user:password`` literal encoded
    (``btoa("bob:x")``, ``ENCODER_CALLS``), a password given by position (``new mysqli("db", "bob",
    "x")``, ``POSITIONAL_CALLS``): the password, :data:`SETTLED` for none; None for another call."""
    if _encoder_call(name):
        literal = _compiled("encoded-literal").match(text, end)
        offset = pair_password(literal["v"]) if literal is not None else None
        found = (
            None
            if literal is None or offset is None
            else _span(text, literal.start("v") + offset, literal.end("v"))
        )
        return found or SETTLED
    place = _positional_call(name)
    return None if place is None else _positional_argument(text, end + 1, place) or SETTLED


#: A login call's last words: given a user and a password (``server.login('bob', 'x')``; not
#: ``connect('host', 'db')``).
_LOGIN_CALL_WORDS = frozenset((word,) for word in LOGIN_CALLS - {"connect", "auth"})


def _encoder_call(name: str) -> bool:
    """``btoa``, ``Buffer.from``, ``b64encode``, ``GetBytes``: a call that encodes its argument."""
    found = words(name)
    return any(found[-len(call) :] == call for call in ENCODER_CALLS)


def _positional_call(name: str) -> int | None:
    """Where a call given a user and a password by position takes the password (``POSITIONAL_CALLS``):
    the longest of its last words that names one."""
    found = words(name)
    for size in (3, 2, 1):
        if len(found) >= size and (place := POSITIONAL_CALLS.get(found[-size:])) is not None:
            return place
    return None


#: Arguments read of a call given a password by position.
_MOST_ARGUMENTS = 8


def _positional_argument(text: str, at: int, place: int) -> Span | None:
    """The quoted argument at ``place`` of the call whose arguments start at ``at`` (after its
    ``(``); None when it is no quoted string (a variable) or the arguments do not close."""
    arguments: list[tuple[int, int] | None] = []
    pattern = _compiled("positional-argument")
    while len(arguments) < _MOST_ARGUMENTS:
        match = pattern.match(text, at)
        if match is None:
            return None
        arguments.append(match.span("v") if match["v"] is not None else None)
        at = match.end()
        if match["sep"] == ")" or 0 <= place < len(arguments) - 1 + (match["sep"] == ","):
            break  # (the arguments after the password's place are not read: ``algorithm='HS256'``)
    else:
        return None
    if len(arguments) < (1 if place == 0 else 2) or not -len(arguments) <= place < len(arguments):
        return None  # (``ftp.login("anonymous")``: a user alone; a key first may stand alone: ``Fernet(X)``)
    if (span := arguments[place]) is None:
        return None
    if not plausible(text[span[0] : span[1]], "password", True):
        return None
    return _span(text, *span)


def _connection_call(name: str) -> bool:
    """``DriverManager.getConnection``, ``getPooledConnection``: a call given a user and a password."""
    found = words(name)
    return any(found[-len(call) :] == call for call in CONNECTION_CALLS)


def _login_arguments(text: str, at: int) -> Span | None:
    """A login call given two quoted strings (a user and a password): the second; given one quoted
    string that looks generated, that one (``huggingface_hub.login('hf_…')``, ``HubApi().login('…')``:
    a token; ``ftp.login('anonymous')`` is a user); a call given anything else (variables) names no
    credential here."""
    match = _compiled("arguments").match(text, at)
    if match is None:
        return None
    if match["first"] is None and not looks_random(match["last"], 16, 3.0):
        return None
    return _span(text, match.start("last"), match.end("last"))


#: The verbs of a setter (``setPassword``, a builder's ``withPassword``, ``putApiKey``).
_SETTER_VERBS = frozenset({"set", "with", "put"})


def _setter(name: str) -> bool:
    """``setPassword``, ``set_api_key``, ``SetToken``: a setter of a credential, whose (last) quoted
    argument is the credential (``ds.setPassword("x")``)."""
    found = words(name)
    verb = next((word for word in reversed(found[:-1]) if word in _SETTER_VERBS), None)
    if verb is None:
        return False
    # ``ds.setPassword``: after the last ``set`` (a builder's ``withPassword``, ``putApiKey`` too)
    last = len(found) - 1 - found[::-1].index(verb)
    return last < len(found) - 1 and is_secret_name("_".join(found[last + 1 :]))


def _quoted_name(text: str, start: int, end: int, before: str) -> Span | None:
    """A quoted name: a member of an object, a subscript (``os.environ['X'] = …``), the first
    argument of an env var call (``os.getenv('X', …)``), the ``key`` attribute naming an XML
    element, or the name of a multipart form part."""
    if before == "" or before not in "\"'`":
        return None
    return (
        _member(text, start, end, before)
        or _env_call(text, start, end, before)
        or _attribute_element(text, start, end, before)
        or _multipart_part(text, start, end, before)
    )


def _env_call(text: str, start: int, end: int, quote: str) -> Span | None:
    """``os.getenv('API_KEY', 'x')``, ``os.environ.setdefault('HF_TOKEN', 'x')``: the value an env
    var call gives (or defaults) the variable it names; and any call given a credential's name and
    then its value, both quoted (``props.put("password", "x")``, ``cfg.set('api_key', 'x')``), when
    the value may be one."""
    if not text.startswith(quote, end):
        return None
    env = _compiled("env-call").search(text, max(0, start - 48), start - 1) is not None
    if not env and _compiled("any-call").search(text, max(0, start - 8), start - 1) is None:
        return None
    comma = _compiled("next-argument").match(text, end + 1)
    if comma is None:
        return SETTLED if env else None
    quoted = _compiled("quoted").match(text, comma.end())
    if quoted is None:
        return SETTLED if env else None
    group = next(g for g in ("dq", "sq", "bq") if quoted[g] is not None)
    # (``f('sshpass', '-p', X)``: a command's words, the name a tool's, an option after it)
    if not env and (quoted[group].startswith("-") or not plausible(quoted[group], text[start:end], True)):
        return SETTLED
    return _span(text, quoted.start(group), quoted.end(group)) or SETTLED


def _arguments(text: str, at: int) -> Span | None:
    """``('bob', 'x')`` (a call's arguments or a tuple, as ``auth=`` takes them): the last of one or
    two quoted strings is the credential; anything else (a variable, a call) names none here."""
    match = _compiled("arguments").match(text, at)
    return _span(text, match.start("last"), match.end("last")) if match else None


def _multipart_part(text: str, start: int, end: int, quote: str) -> Span | None:
    """``Content-Disposition: form-data; name="password"``, a blank line, then the part's value."""
    if not text.startswith(quote, end):
        return None
    if _compiled("multipart-head").search(text, max(0, start - 300), start - 1) is None:
        return None
    body = _compiled("part-body").match(text, end + 1)
    return (_span(text, body.start("v"), body.end("v")) if body else None) or SETTLED


def _member(text: str, start: int, end: int, quote: str) -> Span | None:
    """``"NAME": VALUE`` (also ``\\"NAME\\": \\"VALUE\\"`` and ``'NAME' => VALUE``); a bare value
    only where the quoted name starts a line or an object member (else it is prose:
    ``volume "db-password" : secret …``)."""
    escaped = start >= 2 and text[start - 2] == "\\"
    closing = "\\" + quote if escaped else quote
    if not escaped and start >= 2 and text[start - 2] == "[" and text.startswith(quote + "]", end):
        closing = quote + "]"  # a subscript: ``os.environ['OPENAI_API_KEY'] = 'x'``
    if not text.startswith(closing, end):
        return None
    sep = re.compile(r"[ \t]*(?::|=>|=)[ \t]*").match(text, end + len(closing))
    if sep is None:
        return None
    at = sep.end()
    # (PHP's ``var_dump``: ``["password"]=>\n  string(14) "x"``)
    dumped = _compiled("dumped").match(text, at) if "=>" in sep.group() else None
    if dumped is not None or escaped:
        match = dumped or _compiled("escaped").match(text, at)
        group = "v" if dumped is not None else "eq"
        return (_span(text, match.start(group), match.end(group)) if match else None) or SETTLED
    number = _compiled("number").match(text, at)
    if number is not None:
        return (number.start(), number.end(), True)
    if _compiled("quoted").match(text, at) is None:
        opening = start - len(closing)
        if not (_at_line_start(text, opening) or _inline(text, opening)):
            return None
    return _value(text, at, "bare") or SETTLED


def _element(text: str, end: int, name: str) -> Span | None:
    """``<NAME attr="…">VALUE</NAME>`` (also ``<![CDATA[VALUE]]>``); an element holding other
    elements is looked into instead."""
    close = text.find(">", end, end + 512)
    if close < 0 or text[close - 1] == "/":
        return None
    stop = text.find(f"</{name}", close, close + 8192)
    if stop <= close + 1:
        return None
    if "<" not in text[close + 1 : stop]:
        return _span(text, close + 1, stop)
    content = _compiled("content").match(text, close + 1, stop)
    if content is None or content["child"] is not None or content["cdata"] is None:
        # (an element whose first child holds its value: Windows' unattend ``<Password><Value>x
        # </Value><PlainText>true</PlainText></Password>``, ``<AdministratorPassword><Value>``)
        first = _compiled("value-child").match(text, close + 1, stop)
        return _span(text, *first.span("v")) if first is not None else None
    return _span(text, content.start("cdata"), content.end("cdata"))


def _content(text: str, close: int, stop: int) -> Span | None:
    """The value an element's content holds: its text, a CDATA section, or the text of its one
    child element (``<value>x</value>``); None when it holds anything else (other elements)."""
    content = _compiled("content").match(text, close + 1, stop)
    if content is None:
        return None
    group = "cdata" if content["cdata"] is not None else "text"
    return _span(text, content.start(group), content.end(group))


def _attribute_element(text: str, start: int, end: int, quote: str) -> Span | None:
    """``<entry key="db.password">VALUE</entry>``: an element named by its ``key`` or ``name``."""
    if not text.startswith(quote, end):
        return None
    if _compiled("attribute-head").search(text, max(0, start - 300), start - 1) is None:
        return None
    tail = _compiled("tag-tail").match(text, end + 1)
    if tail is None or tail["closing"]:  # no end of the tag, or a tag with no text (``<add … />``)
        return None
    close = tail.end() - 1
    element = _compiled("element-name").match(text, max(0, text.rfind("<", 0, start)))
    stop = text.find(f"</{element[1]}", close, close + 8192) if element else -1
    if stop < 0:  # an element with no end tag (``<meta name=… content=…>``): its attributes tell
        return None
    if stop == close + 1:
        return SETTLED  # the name is markup's: no other reading (the value is not beside it)
    return _content(text, close, stop) or SETTLED


def _colon_value(text: str, start: int, at: int, name: str, before: str) -> Span | None:
    if text[at : at + 1] in ("|", ">") and re.match(r"[|>][+-]?[ \t]*(?:#.*)?\r?\n", text[at:]):
        return _block(text, start, at)
    if _compiled("header").fullmatch(name) is not None:  # a header: its value, after the scheme
        value = _header_value(text, at, before, start - 1)
        if value is None:
            return None
        scheme = _compiled("scheme").match(text, at, value[1])
        return _span(text, scheme.end() if scheme else at, value[1])
    if before != "" and before in "\"'":
        return _value(text, at, "inline")
    return _value(text, at, "line" if _at_line_start(text, start) else "inline")


def _header_value(text: str, at: int, before: str, quote_at: int) -> tuple[int, int] | None:
    """A header's value: to the end of its line, or in a quoted string to its closing quote
    (``Authorization: MAC id=\\"…\\", mac=\\"…\\"`` in a JSON string: quotes escaped more deeply
    than the string's own are part of the value), a line break of the string's level ending it."""
    if before == "=":  # ``--header=NAME:VALUE``: one word of a command line
        match = _compiled("header-word").match(text, at)
        return match.span() if match else None
    if before == "" or before not in "\"'":
        match = _compiled("header-line").match(text, at)
        return match.span() if match else None
    level = quote_at - len(text[:quote_at].rstrip("\\"))  # backslashes before the opening quote
    limit = min(len(text), at + 8192)
    stop = limit
    for found in _compiled("header-stop").finditer(text, at, limit):
        piece = found.group()
        run = len(piece) - 1
        if (
            piece in ("\r", "\n")
            or (piece[-1] == before and run == level)
            or (piece[-1] in "nr" and run == level + 1)
        ):
            stop = found.start()
            break
    return (at, stop) if stop > at else None


def _block(text: str, start: int, at: int) -> Span | None:
    """A YAML block scalar (``token: |`` and the more indented lines after it)."""
    indent = start - (text.rfind("\n", 0, start) + 1)
    first = text.find("\n", at) + 1
    position = end = first
    while position < len(text):
        newline = text.find("\n", position)
        line_end = len(text) if newline < 0 else newline
        line = text[position:line_end]
        if line.strip() and len(line) - len(line.lstrip(" ")) <= indent:
            break
        if line.strip():
            end = line_end
        position = line_end + 1
    return _span(text, first, end) if end > first else None


def _value(text: str, at: int, kind: str) -> Span | None:
    over_lines = _over_lines(text, at) or _entity_quoted(text, at)
    if over_lines is not None:
        return over_lines
    found, literal = _literal(text, at)
    if found:
        return literal
    if text[at : at + 1] in ("{", "["):
        return None
    if text[at : at + 1] == "(":  # ``auth=('bob', 'x')``: the credential among the arguments, or none
        return _arguments(text, at)
    unit = _compiled("unit").match(text, at)  # $(…) or ${…}: one value, whatever it holds
    match = unit or _compiled(kind).match(text, at)
    if match is None or (unit is None and _compiled("expression").match(text, at)):
        return None
    value_end = match.end()
    if kind in ("line", "inline") and unit is None:
        comment = re.search(r"[ \t]#", text[at:value_end])
        value_end = at + comment.start() if comment else value_end
    return _span(text, at, value_end)


#: The groups of a literal's content (:data:`_PATTERNS` ``quoted``, ``delimited``, ``decoded-literal``).
_LITERAL_GROUPS = ("dq", "sq", "bq", "rv", "cv", "lv", "ev", "v")


def _literal(text: str, at: int) -> tuple[bool, Span | None]:
    """Whether a literal stands at ``at``, and its content: quoted (also after ``$``, the shell's
    ``$'…'``, or a prefix, Python's ``b'…'``, ``r"…"``, ``u'…'``), of a language's own delimiters,
    decoded on the spot, or a template's reference given a default (the default)."""
    if text.startswith("{{", at):
        default = _compiled("reference-default").match(text, at)
        if default is None:
            return False, None
        return True, _reference_default(text, (at, default.end(), False))
    lead = text[at : at + 1]
    prefix = re.match(r"\$|[bBrRuU]{1,2}(?=[\"'])", text[at : at + 3]) if lead and lead in "$bBrRuU" else None
    found = _compiled("quoted").match(text, at + (prefix.end() if prefix else 0))
    found = found or _compiled("delimited").match(text, at) or _compiled("decoded-literal").match(text, at)
    if found is None:
        return False, None
    group = next(g for g in _LITERAL_GROUPS if g in found.re.groupindex and found[g] is not None)
    span = _span(text, found.start(group), found.end(group))
    return True, span if group in ("dq", "sq", "bq") or span is not None else SETTLED


def _entity_quoted(text: str, at: int) -> Span | None:
    """A value in quotes written as HTML entities (``= &quot;x&quot;``, markup's text): what they
    hold (read as it is, ``&quot`` is no value)."""
    entity = _compiled("entity-quote").match(text, at)
    close = text.find(entity.group(), entity.end(), entity.end() + 4096) if entity else -1
    if not entity or close <= entity.end():
        return None
    return _span(text, entity.end(), close) or SETTLED  # (masked already: no other reading)


def _over_lines(text: str, at: int) -> Span | None:
    """A value in triple quotes, a here-document's body, an ODBC value in braces or on the next,
    indented line (an INI continuation): what it holds."""
    lead = text[at : at + 1]
    if lead in ("'", '"') and text.startswith(lead * 3, at):
        found, group = _compiled("triple").match(text, at), "tv"
    elif lead == "<" and text.startswith("<<", at):
        found, group = _compiled("heredoc").match(text, at), "body"
    elif lead == "{":
        found, group = _compiled("braced").match(text, at), "bv"
    elif lead in ("\r", "\n") and text[max(0, at - 8) : at].rstrip(" \t").endswith("="):
        continued = _compiled("continued").match(text, at)  # ``password =``, its value indented below
        return _value(text, continued.start("v"), "line") if continued else None
    elif lead == "\\" and (continued := _compiled("line-continued").match(text, at)) is not None:
        return _value(text, continued.start("v"), "line")  # ``db.password=\`` (a properties file)
    else:
        return None
    odbc = found is not None and _compiled("odbc-lead").search(text, max(0, at - 80), at) is not None
    # (``password = { type = string }``: a block of members, each read on its own)
    if found is None or (group == "bv" and not odbc and _compiled("block-member").match(found[group])):
        return None
    field = group == "bv" and _compiled("format-field").fullmatch(found[group]) is not None
    if field and not odbc and not looks_random(found[group], 12, 3.0):
        return SETTLED  # ``{json.dumps(key)}``, ``{user.password}``: a format string's field, code
    return _span(text, found.start(group), found.end(group)) or SETTLED  # (empty, or masked already)


def _span(text: str, start: int, end: int) -> Span | None:
    """The value's span without surrounding space or a trailing ``,``/``;``/``\\``."""
    while start < end and text[start] in " \t\r\n":
        start += 1
    while start < end and text[end - 1] in " \t\r\n,;\\":
        end -= 1
    if start >= end or text.startswith("<secret:", start):
        return None
    return (start, end, False)


def _at_line_start(text: str, start: int) -> bool:
    line = text.rfind("\n", 0, start) + 1
    return _compiled("line-lead").fullmatch(text, line, start) is not None


def _placed(text: str, start: int) -> bool:
    return _at_line_start(text, start) or _inline(text, start)


def _inline(text: str, start: int) -> bool:
    """After ``{``, ``,``, ``(``, ``;`` or an opening quote (a YAML flow mapping, a header in quotes)."""
    position = start - 1
    while position >= 0 and text[position] in " \t":
        position -= 1
    return position >= 0 and text[position] in "{,(;\"'，、；（"


# --- pairs ----------------------------------------------------------------------------------------


def _pair(text: str, start: int, end: int, name: str) -> Span | None:
    """The name is the ``name`` (or ``key``) of a ``{name, value}`` pair in any syntax (YAML, JSON,
    TOML inline tables, Python reprs, XML attributes, text that does not parse): its ``value`` is."""
    if _compiled("pair-label").search(text, max(0, start - 40), start) is None:
        return None
    flat = None
    if text[max(0, start - 8) : start].lower().rstrip("=").endswith((".name", "].name", ".key", ".k")):
        flat = _compiled("flat-label").search(text, max(0, start - 160), start)
    if flat is not None:  # ``env[0].name=API_KEY,env[0].value=X`` (Helm's ``--set``, Spring's lists)
        value = _flat_value(text, end, flat["path"])
        return (_value(text, value, "bare") if value is not None else None) or SETTLED
    low, high = _item_bounds(text, start, end)
    if text[low : low + 5].lower() == "<meta":  # ``<meta name="csrf-token" content="…">``
        content = _compiled("meta-content").search(text, low, high)
        return (_value(text, content.end(), "bare") if content else None) or SETTLED
    for member in _compiled("pair-value").finditer(text, low, high):
        quoted = member.group()[-1:] in ('"', "'")
        at = member.end() - (1 if quoted else 0)
        kind = "line" if _at_line_start(text, member.start("name")) else "inline"
        return _value(text, at, kind) or SETTLED
    return None


def _flat_value(text: str, end: int, path: str) -> int | None:
    """Where the value of the pair whose name is at ``path`` (``env[0].``) starts: after the same
    path's ``value=`` (or ``val=``, ``v=``) within the next 512 characters."""
    at = text.find(path, end, end + 512)
    while at >= 0:
        after = at + len(path)
        word = text[after : after + 6].lower()
        for member in ("value=", "val=", "v="):
            if word.startswith(member):
                return after + len(member)
        at = text.find(path, after, end + 512)
    return None


def _item_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """The stretch around a pair's name that belongs to its item: back to ``{``, ``[``, ``<`` or the
    ``- `` that starts a YAML list item, on to ``}``, ``>`` or the next item (512 characters at most)."""
    low = max(0, start - 512)
    back = max(text.rfind(mark, low, start) for mark in ("{", "- ", "[", "<"))
    high = min(len(text), end + 512)
    ahead = [i for i in (text.find("}", end, high), text.find(">", end, high)) if i >= 0]
    item = _compiled("item").search(text, end, high)
    ahead += [item.start()] if item else []
    return (back if back >= 0 else low), min(ahead, default=high)


# --- prose ----------------------------------------------------------------------------------------


def _prose(text: str, start: int, end: int, name: str) -> Span | None:
    """A credential word in prose, unless it is itself a value (``-field=password``,
    ``grant_type=password``): ``the password is hunter2``, ``PASSWORD FOR 'u'@'%' = 'x'``,
    ``credentials admin / x``, ``using token 8f2a9c…``."""
    if (start and text[start - 1] in "=:/") or text[max(0, start - 2) : start] in (": ", "= "):
        return None
    # ``secret/data/db#pw``: a path; ``wandb.login(key=…)``: a call, its arguments are no prose
    if (text.startswith("/", end) and text[end + 1 : end + 2].isalnum()) or text.startswith("(", end):
        return None
    quote = text[start - 1] if start else ""
    if (
        quote != "" and quote in "\"'" and text.startswith(quote, end)
    ):  # a quoted name: its value comes after the quote
        end += 1
    context = _context_of(name)
    if context.plain_ok or _script_name(name):
        quoted = _compiled("quoted-ahead").match(text, end)
        if quoted is not None and _closes_string(text, start, quoted.start("q")):
            return _answer(text, quoted.start("q"), context)  # ``"[sudo] password for bob:"; send "x"``
        if quoted is not None and _passes(context, quoted["v"]):
            return _span(text, quoted.start("v"), quoted.end("v"))
    last = words(name)[-1] if words(name) else ""
    if last in PAIR_WORDS:
        pair = _compiled("user-pair").match(text, end)
        if pair is not None:
            return _span(text, pair.start("v"), pair.end("v"))
    return _after_fillers(text, start, end, context)


def _closes_string(text: str, start: int, at: int) -> bool:
    """The quote at ``at`` closes a string the name at ``start`` stands in (``"Enter password:"``):
    an odd number of the same quotes stands before the name on its line."""
    quote = text[at : at + 1]
    if quote == "" or quote not in "\"'":
        return False
    line = max(text.rfind("\n", 0, start) + 1, start - 256)
    return text.count(quote, line, start) % 2 == 1


def _answer(text: str, at: int, context: Context) -> Span | None:
    """The answer given to a prompt (``expect "password:"; send "x\\r"``): the next quoted string
    after the prompt's closing quote, without a trailing ``\\r``/``\\n``; None when none follows."""
    match = _compiled("answer").match(text, at + 1)
    if match is None:
        return None
    value = re.sub(r"(?:\\[rn])+$", "", match["v"])
    if not _passes(context, value):
        return None
    return _span(text, match.start("v"), match.start("v") + len(value))


def _after_fillers(text: str, start: int, end: int, context: Context) -> Span | None:
    position = end
    for _ in range(4):
        filler = _compiled("filler-word").match(text, position)
        if filler is None:
            break
        word = filler["w"].lower().strip("\"'")
        if position == end and _compiled("index").fullmatch(word):  # ``Unseal Key 1: x``: a numbered one
            position = filler.end()
            continue
        if word in FOR_WORDS:  # ``password for bob is x``: skip the one it is for
            nxt = _compiled("filler-word").match(text, filler.end())
            position = nxt.end() if nxt else filler.end()
            continue
        if word not in FILLERS:
            break
        position = filler.end()
    ahead = text[position : position + 8]
    closing = position + len(ahead) - len(ahead.lstrip(" \t"))
    if _closes_string(text, start, closing):  # the prompt's string closes: its answer follows
        return _answer(text, closing, context)
    token = _compiled("token").match(text, position)
    if token is None:
        return None
    group = next(g for g in ("dq", "sq", "bare") if token[g] is not None)
    value = token[group].rstrip(".")
    if (
        group == "bare"
        and _compiled("syntax-name").match(value)
        and text[token.end() : token.end() + 1] in "\"'"
    ):
        return None  # ``serializeAs="String"``: an attribute's name, syntax beside the credential word
    # (``密码为X``: a filler of a script written without spaces, joined to the value)
    lead = len(value) - len(value.lstrip(_JOINED_FILLERS)) if group == "bare" else 0
    value = value[lead:]
    if group == "bare" and (_remark(value) or any(c.isalpha() and not c.isascii() for c in value)):
        return None  # (``パスワードは12文字以上…``: words of a script written without spaces, prose)
    if not _passes(context, value):
        return None
    return _span(text, token.start(group) + lead, token.start(group) + lead + len(value))


#: Fillers that are one character of a script written without spaces (``为``, ``是``, ``は``).
_JOINED_FILLERS = "".join(
    sorted(f for f in FILLERS if len(f) == 1 and f.isalpha() and not plain_letters(f).isascii())
)


def _remark(value: str) -> bool:
    """``password (required)``, ``Password (min 8 chars)``: a remark in brackets."""
    return value.startswith("(") and not looks_random(value.strip("()"), 8, 3.0)


def _context_of(name: str) -> Context:
    if _script_name(name):
        return CONTEXTS[0]
    last = words(name)[-1] if words(name) else ""
    return next((c for c in CONTEXTS if last in c.words), CONTEXTS[-1])


def _passes(context: Context, value: str) -> bool:
    if len(value) < context.length:
        return False
    if context.plain_ok:  # (a word in any script: ``password forgotten?``, ``mot de passe oublié``)
        word = value.rstrip(".!,?")
        return not (word.isalpha() and word.islower()) and classes(value) >= 1
    return looks_random(value, context.length, context.entropy)


def iter_names(text: str) -> Iterator[str]:
    """The credential names in ``text`` (for the table's documentation and tests)."""
    for hit in _stem_gate().finditer(lowered(text)):
        start, end = _name_around(text, hit.start(), hit.end())
        name = text[start:end].lstrip("-$")
        if is_secret_name(name):
            yield name


__all__ = ["has_stem", "iter_names", "lowered", "spans"]
