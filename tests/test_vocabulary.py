"""One vocabulary across commands: a credential option is named after its environment variable in
``record`` and ``serve`` alike, both take ``--credentials FILE``, and a name an option had before is
still accepted for one release, hidden from ``--help``, with a note naming the new one."""

from __future__ import annotations

import re

import pytest

from jobschema.cli import serve as serve_cli
from jobschema.record.credentials import SOURCES
from jobschema.serve import Credentials
from tests.record_support import submit_job
from tests.serve_support import HISTORY_WORKLOAD, POOL, RUNAI_HISTORY

#: (command, credential, the name its option had in that command before)
RENAMED = [
    ("runai", "client_id", "--client-id"),
    ("runai", "client_secret", "--client-secret"),
    ("runai", "app_id", "--app-id"),
    ("runai", "app_secret", "--app-secret"),
    ("aihc", "access_key_id", "--access-key-id"),
    ("aihc", "secret_access_key", "--secret-access-key"),
]


def _options(help_text: str) -> set[str]:
    return set(re.findall(r"(?m)^\s+(?:-\w, )?(--[\w-]+)", help_text))


@pytest.mark.parametrize(("api", "key", "old"), RENAMED)
def test_an_old_name_is_hidden_and_the_new_one_shown(run_cli, api: str, key: str, old: str) -> None:
    options = _options(run_cli(["record", api, "--help"], code=0).stdout)
    variable, new, _, _ = SOURCES[key]
    assert new == "--" + variable.lower().replace("_", "-")  # named after its variable
    assert new in options
    assert old not in options


def test_serve_and_record_name_every_credential_alike(run_cli) -> None:
    served = _options(run_cli(["serve", "--help"], code=0).stdout)
    recorded = _options(run_cli(["record", "runai", "--help"], code=0).stdout)
    recorded |= _options(run_cli(["record", "aihc", "--help"], code=0).stdout)
    names = {flag for _, flag, _, _ in SOURCES.values()} | {"--credentials"}
    assert names <= served
    assert names <= recorded


def _record(api: str, server, job: str) -> list[str]:
    target = ["--workload", job] if api == "runai" else ["--job", job, "--resource-pool", POOL]
    return ["record", api, "--url", server.url, *target, "--count", "1", "--interval", "0"]


def _clear(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable, *_ in SOURCES.values():
        monkeypatch.delenv(variable, raising=False)


@pytest.mark.parametrize(("api", "key", "old"), RENAMED)
def test_a_value_given_by_the_old_name_goes_where_the_new_name_would(
    jobschema_server, run_cli, monkeypatch, tmp_path, api: str, key: str, old: str
) -> None:
    """Every credential is right except the one given by its old name, which is wrong: the error
    names the new option, so the value went where the new name sends it."""
    server = jobschema_server([RUNAI_HISTORY])
    job = HISTORY_WORKLOAD if api == "runai" else submit_job(server)
    _clear(monkeypatch)
    for name, value in server.credentials.as_env().items():
        monkeypatch.setenv(name, value)
    grant = ["--grant", "app_token"] if key.startswith("app_") else []
    if grant:  # the app pair is the client pair unless given: give the other half right
        other = "app_secret" if key == "app_id" else "app_id"
        source = "client_secret" if other == "app_secret" else "client_id"
        monkeypatch.setenv(SOURCES[other][0], server.credentials.as_env()[SOURCES[source][0]])
    wrong = "f" * 32 if key == "access_key_id" else "wrong-value-1"
    result = run_cli([*_record(api, server, job), *grant, old, wrong], code=2)
    new = SOURCES[key][1]
    lines = result.stderr.splitlines()
    assert lines[0] == f"note: {old} is now {new}; {old} goes away in the next release"
    assert lines[-1].startswith("Error: ") and new in lines[-1] and "rejected" in lines[-1]
    assert wrong not in result.stderr


def test_the_new_name_wins_over_the_old_one_given_too(jobschema_server, run_cli, monkeypatch) -> None:
    server = jobschema_server([RUNAI_HISTORY])
    _clear(monkeypatch)
    env = server.credentials.as_env()
    args = [*_record("runai", server, HISTORY_WORKLOAD), "--runai-client-id", env["RUNAI_CLIENT_ID"]]
    args += ["--runai-client-secret", env["RUNAI_CLIENT_SECRET"], "--client-secret", "wrong-value-2"]
    result = run_cli(args, code=0)
    assert "note: --client-secret is now --runai-client-secret" in result.stderr


def test_serve_reads_the_credentials_file_record_reads(monkeypatch, tmp_path) -> None:
    _clear(monkeypatch)
    monkeypatch.setenv("RUNAI_CLIENT_ID", "from-env")
    monkeypatch.setenv("RUNAI_CLIENT_SECRET", "secret-from-env")
    monkeypatch.setenv("BCE_SECRET_ACCESS_KEY", "sk-from-env")
    path = tmp_path / "creds.toml"
    path.write_text('[runai]\nclient_id = "from-file"\n[aihc]\naccess_key_id = "ak-from-file"\n')
    path.chmod(0o600)
    given = dict.fromkeys(("client_id", "client_secret", "app_id", "app_secret"), None)
    given |= {"access_key_id": None, "secret_access_key": None, "app_id": "app-from-option"}
    found = serve_cli._credentials(Credentials, given, path)
    assert (found.runai_client_id, found.runai_client_secret) == ("from-file", "secret-from-env")
    assert found.runai_app_id == "app-from-option"
    assert dict(found.bce_keys) == {"ak-from-file": "sk-from-env"}


def test_serve_refuses_a_credentials_file_it_cannot_use(run_cli, tmp_path) -> None:
    path = tmp_path / "creds.toml"
    path.write_text('[bce]\nkey = "x"\n')
    result = run_cli(["serve", "--credentials", str(path)], code=2)
    assert result.stderr == f"Error: {path}: bce: unknown table (known: aihc, runai)\n"


@pytest.mark.parametrize("command", [["record", "runai"], ["record", "aihc"]])
def test_ignore_takes_a_pattern_in_record_as_in_diff(run_cli, command: list[str]) -> None:
    assert "--ignore PATTERN" in run_cli([*command, "--help"], code=0).stdout
    assert "--ignore PATTERN" in run_cli(["diff", "--help"], code=0).stdout


def _every_command():
    import click

    from jobschema.cli import COMMANDS, main

    def walk(command, path):
        yield path, command
        if isinstance(command, click.Group):
            for name in command.list_commands(click.Context(command)):
                yield from walk(command.get_command(click.Context(command), name), [*path, name])

    for name in sorted(COMMANDS):
        yield from walk(main.get_command(click.Context(main), name), [name])


#: One spelling per thing, in every command that has it.
SHORT = {"--schema": "-s", "--format": "-f", "--output": "-o", "--help": "-h"}


def test_the_same_option_has_the_same_short_name_and_values_everywhere() -> None:
    import click

    odd = []
    for path, command in _every_command():
        ctx = click.Context(command, help_option_names=["-h", "--help"])
        for param in command.get_params(ctx):
            if not isinstance(param, click.Option) or param.hidden:
                continue
            for long, short in SHORT.items():
                if long in param.opts and short not in param.opts:
                    odd.append(f"{' '.join(path)} {long} without {short}")
            if "--color" in param.opts and list(param.type.choices) != ["auto", "always", "never"]:
                odd.append(f"{' '.join(path)} --color {param.type.choices}")
            if "--ignore" in param.opts and param.metavar != "PATTERN":
                odd.append(f"{' '.join(path)} --ignore {param.metavar}")
    assert odd == []
