"""What a diff produces: changes, the comparisons of a role or history diff, and the result; and the
options that decide what counts as a change."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from jobschema.text import strings

Op = Literal["added", "removed", "changed"]


def sorted_members(value: Any) -> Any:
    """``value`` with the members of every object in it in sorted order (lists keep theirs).

    A server writes an object's members in any order, and two answers that differ only so mean the
    same: every value a diff shows (a change's ``old`` and ``new``, a worker-only field, a patch's
    operations and values) goes through here, so equivalent inputs give the same bytes in every
    format, as the text report (keys sorted when it writes a value) always did."""
    if not isinstance(value, dict | list):
        return value
    whole = _empty(value)
    todo = [(value, whole)]  # (each container and its copy, filled in order: no recursion, any depth)
    while todo:
        source, copy = todo.pop()
        keys = sorted(source) if isinstance(source, dict) else range(len(source))
        for key in keys:
            member = source[key]
            if isinstance(member, dict | list):
                inner = _empty(member)
                todo.append((member, inner))
            else:
                inner = member
            if isinstance(copy, dict):
                copy[key] = inner
            else:
                copy.append(inner)
    return whole


def _empty(container: dict[str, Any] | list[Any]) -> Any:
    """An empty container of ``container``'s kind."""
    return {} if isinstance(container, dict) else []


@dataclass(frozen=True)
class Change:
    """One difference between two documents.

    ``path`` is human readable, with list keys (``spec.environmentVariables[name=HOME].value``);
    ``left_pointer``/``right_pointer`` are RFC 6901 pointers into each side (``None`` on the side
    where the value is absent); ``old``/``new`` are the values (``None`` when absent; secrets masked
    unless asked otherwise); ``volatile`` marks server-populated state.
    """

    op: Op
    path: str
    left_pointer: str | None
    right_pointer: str | None
    old: Any = None
    new: Any = None
    volatile: bool = field(default=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.old, dict | list):
            object.__setattr__(self, "old", sorted_members(self.old))
        if isinstance(self.new, dict | list):
            object.__setattr__(self, "new", sorted_members(self.new))

    def sort_key(self) -> tuple[str, str, str]:
        """Changes are sorted by path, then by pointers (role diffs repeat a path across pods)."""
        return (self.path, self.left_pointer or "", self.right_pointer or "")

    def as_dict(self) -> dict[str, Any]:
        """The change as the JSON report writes it."""
        return {
            "op": self.op,
            "path": self.path,
            "left_pointer": self.left_pointer,
            "right_pointer": self.right_pointer,
            "old": self.old,
            "new": self.new,
        }


@dataclass(frozen=True)
class DiffOptions:
    """How values are compared and which changes are kept. ``ignore`` and ``only`` take patterns (one
    ``str`` is one pattern; any other iterable its patterns)."""

    exact: bool = False
    ignore_volatile: bool = False
    ignore: tuple[str, ...] = ()
    only: tuple[str, ...] = ()
    show_secrets: bool = False

    def __post_init__(self) -> None:
        # (one pattern given as a string is one pattern: ``ignore="/status"``, not one per character)
        object.__setattr__(self, "ignore", strings(self.ignore, "ignore"))
        object.__setattr__(self, "only", strings(self.only, "only"))


@dataclass(frozen=True)
class Pair:
    """One comparison inside a role or history diff: its two labels, pointers, and changes; ``job``
    is the job id of a history that holds several jobs (``""`` otherwise)."""

    left: str
    right: str
    changes: tuple[Change, ...]
    left_pointer: str = ""
    right_pointer: str = ""
    expected: tuple[tuple[str, int], ...] = ()
    job: str = ""


@dataclass(frozen=True)
class DiffResult:
    """The outcome of a diff: every change sorted by path, and what the mode adds.

    ``pairs`` holds the comparisons of a role or history diff (``changes`` is then their union);
    ``worker_only`` the Run:ai worker-only fields; ``warnings`` what deserves a look but is no change;
    ``passed_over`` those of the warnings that name a history's error answers (readable answers, no
    snapshot of the job: the others are input problems).
    """

    schema: str
    changes: tuple[Change, ...]
    mode: str = "snapshot"
    pairs: tuple[Pair, ...] = ()
    worker_only: dict[str, Any] | None = None
    warnings: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)
    passed_over: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.worker_only is not None:  # (its fields in the order the API lists them, each value sorted)
            shown = {key: sorted_members(value) for key, value in self.worker_only.items()}
            object.__setattr__(self, "worker_only", shown)

    @property
    def same(self) -> bool:
        """True when nothing changed."""
        return not self.changes
