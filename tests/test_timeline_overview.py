"""The page's overview: above two jobs or more, each final state with the jobs that ended in it
(failed first), each a link to its section; a job with an impossible transition named again."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

from jobschema.timeline import drawn
from jobschema.timeline.html import render_html
from jobschema.timeline.read import Observation
from jobschema.timeline.render import report
from tests.test_timeline_round9 import T0, _workload

PHASES = {
    "ok": ["Pending", "Running", "Completed"],
    "broke": ["Pending", "Running", "Failed"],
    "going": ["Pending", "Running", "Running"],
    "back": ["Pending", "Running", "Completed", "Running"],  # (the lifecycle: impossible)
    "ok2": ["Pending", "Completed"],
}


def _page(names: list[str]) -> str:
    answers = []
    for j, name in enumerate(names):
        job = f"{j:08d}-bc65-4d83-9b2a-55e13ed6358c"
        for n, phase in enumerate(PHASES[name]):
            body = _workload(phase, job, name)
            answers.append(Observation(f"a#{j}-{n}", "runai", job, body, 200, T0 + 60 * n))
    return render_html(report(drawn(answers), "0"))


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found: dict[str, Any] = dict(attrs)
        if "id" in found:
            self.ids.append(found["id"])
        if tag == "a":
            self.hrefs.append(found["href"])


def _overview(page: str) -> list[str]:
    nav = re.search(r'<nav class="overview"[^>]*><ul>(.*?)</ul></nav>', page)
    assert nav is not None
    return [re.sub(r"<[^>]+>", "", item) for item in re.findall(r"<li[^>]*>(.*?)</li>", nav[1])]


def test_the_overview_names_each_final_state_failed_first_with_its_jobs() -> None:
    page = _page(["ok", "broke", "going", "back", "ok2"])
    assert _overview(page) == [
        "failed (1): broke",
        "running (2): going, back",
        "succeeded (2): ok, ok2",
        "⚠ impossible transitions (1): back",
    ]


def test_every_link_of_the_overview_leads_to_its_jobs_section() -> None:
    page = _page(["going", "ok", "broke"])
    links = _Links()
    links.feed(page)
    assert sorted(links.hrefs) == ["#job-0", "#job-1", "#job-2"]
    assert all(links.ids.count(href[1:]) == 1 for href in links.hrefs)
    sections = re.findall(r'<section class="job[^"]*" id="(job-\d+)"[^>]*><h2>runai \S+ <bdi>(\w+)', page)
    assert sections == [("job-0", "going"), ("job-1", "ok"), ("job-2", "broke")]


def test_a_page_of_one_job_has_no_overview() -> None:
    assert '<nav class="overview"' not in _page(["broke"])


def test_the_overview_orders_every_state_of_the_lifecycle() -> None:
    from jobschema.lifecycle import State
    from jobschema.timeline.html import OVERVIEW_ORDER

    assert sorted(OVERVIEW_ORDER) == sorted(state.value for state in State)
