"""Hostile model text through the whole annotation round trip: a real `tau2 run` whose models answer with
markup meant to run in a browser, exported with `tau2 export potato`, served by the real Potato server on
127.0.0.1 and every item's page loaded in headless Chromium.

Each payload, if the browser ever treated it as markup or code, would push its number onto
`top.tau2pwn` or put an element whose id starts with `tau2pwn` into the page. For every item the test
checks that nothing of the kind happened, that no alert is open, that the page loaded whole (the questions
and the Next button are there) and that every exported string shows literally. Payloads ride in every
kind of string the export holds: task ids, the customer's and the agent's messages, tool names (a call of
an unknown tool), tool arguments (names and values), tool results (an error quoting the argument) and the
task specification.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fixtures.browser import chromium
from fixtures.potato_server import free_port, potato_server
from reliability.conftest import ReliabilityScale
from typer.testing import CliRunner

from tau2.cli import app
from tau2.domains.mock.tasks import PLUG_IN, UNPLUG, mock_task
from tau2.tasks import Suite, Task, UserInstructions
from tau2.testing import ChatRequest, Reply, ScriptedOpenAIServer

PAGE_WAIT_S = 30
CURRENT_ITEM = (
    "return document.readyState === 'complete'"
    " && (document.getElementById('instance_id') || {}).value || null"
)
"""The id of the item the loaded annotation page shows (null while loading or past the last item)."""


@dataclass(frozen=True)
class Payload:
    """One kind of hostile text; `@RUN@` becomes code that records the payload's number when it runs and
    `@ID@` an element id that shows the payload was taken as markup."""

    kind: str
    template: str

    def text(self, number: int) -> str:
        run = f"(top.tau2pwn=top.tau2pwn||[]).push({number})"
        return self.template.replace("@RUN@", run).replace("@ID@", f"tau2pwn{number}")


PAYLOADS = [
    Payload("script element", "<script>@RUN@</script>"),
    Payload("script block breakout", "</script><script>@RUN@</script>"),
    Payload("script block breakout, upper case", "</SCRIPT ><img id=@ID@ src=x onerror=@RUN@>"),
    Payload("comment opener in a script block", "<!--<script>@RUN@</script>-->"),
    Payload("image error handler", "<img id=@ID@ src=x onerror=@RUN@>"),
    Payload("double-quoted attribute breakout", '"><img id=@ID@ src=x onerror=@RUN@>'),
    Payload("single-quoted attribute breakout", "'><img id=@ID@ src=x onerror=@RUN@>"),
    Payload("double-quoted event handler", '" id=@ID@ autofocus onfocus=@RUN@ x="'),
    Payload("single-quoted event handler", "' id=@ID@ autofocus onfocus=@RUN@ x='"),
    Payload("unquoted event handler", " id=@ID@ autofocus onfocus=@RUN@ "),
    Payload("SVG load handler", "<svg id=@ID@ onload=@RUN@>"),
    Payload("script inside SVG", "<svg><script id=@ID@>@RUN@</script></svg>"),
    Payload("javascript: link", '<a id=@ID@ href="javascript:@RUN@">open</a>'),
    Payload("iframe srcdoc", '<iframe id=@ID@ srcdoc="&lt;script&gt;@RUN@&lt;/script&gt;"></iframe>'),
    Payload("template element", "<template id=@ID@><img src=x onerror=@RUN@></template>"),
    Payload("details toggle handler", "<details id=@ID@ open ontoggle=@RUN@>"),
    Payload("object data URL", '<object id=@ID@ data="javascript:@RUN@"></object>'),
    Payload("math mutation", "<math><mtext><table><mglyph><style><img id=@ID@ src=x onerror=@RUN@>"),
    Payload("entity-encoded markup", "&lt;img id=@ID@ src=x onerror=@RUN@&gt;"),
    Payload("numeric character references", "&#60;img id=@ID@ src=x onerror=@RUN@&#62;"),
    Payload("JavaScript string breakout", "';@RUN@;//\";@RUN@;//`${@RUN@}`"),
    Payload("template expressions", "{{7*191}} {{constructor.constructor('@RUN@')()}} {% raw %}"),
    Payload("line and paragraph separators", "\u2028\u2029\u0085<script>@RUN@</script>\u2028end"),
    Payload("other line breaks", "\x0b\x0c\x1c\x1d\x1e\r<script>@RUN@</script>"),
]
"""The hostile kinds, each with a number that is its index."""

FIELDS = ("domain", "task_spec", "conversation")
"""The item's fields the page shows (the final outcome only with `--show-outcome`)."""


def hostile(group: list[int]) -> str:
    """The payloads of a group, side by side."""
    return " ".join(PAYLOADS[number].text(number) for number in group)


LINE_BREAKS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
"""What no task id may hold (control characters, line and paragraph separators): a task file holding one
is refused, so ids carry the payloads without them."""


def hostile_task(index: int, text: str) -> Task:
    """A mock task whose id and ticket carry `text` (the id without line breaks and other control
    characters); the customer is told its group number."""
    task = mock_task(
        f"task-{index} {LINE_BREAKS.sub(' ', text)}",
        [UNPLUG],
        [PLUG_IN.model_copy(update={"action_id": "plug_in_0"})],
    )
    instructions = UserInstructions(reason_for_call=f"group {index}", task_instructions="Say it.")
    scenario = task.user_scenario.model_copy(update={"instructions": instructions})
    return task.model_copy(update={"user_scenario": scenario, "ticket": f"Ticket {text}"})


def responder(texts: list[str]) -> Any:
    """Both seats' models: the customer says its group's text and hangs up; the agent looks the text up as a
    customer (with the text as an argument name too), calls a tool named after it, and says it."""

    def respond(request: ChatRequest) -> Reply:
        group = next(
            int(found.group(1))
            for message in request.messages
            if (found := re.search(r"group (\d+)", str(message.get("content") or "")))
        )
        text = texts[group]
        step = sum(message["role"] == "assistant" for message in request.messages)
        if "look_at_lamp" in request.tool_names:
            script = [Reply.text(f"group {group}: {text}"), Reply.text(f"Thanks. {text}")]
            return script[step] if step < len(script) else Reply.tool_call("end_call")
        script = [
            Reply.tool_call("get_account", {"customer": text, text: 1}),
            Reply.tool_call("get_account", {"customer": text}),
            Reply.tool_call(f"x{text}", {text: text}),
            Reply.text(f"Agent: {text}"),
        ]
        return script[step - 1] if step - 1 < len(script) else Reply.text("Goodbye.")

    return respond


def hostile_run(tmp_path: Path, groups: list[list[int]]) -> Path:
    """A real run of one simulation per group, both seats on the scripted model server."""
    texts = [hostile(group) for group in groups]
    suite = tmp_path / "suite.json"
    Suite(name="hostile", domain="mock", tasks=[hostile_task(i, t) for i, t in enumerate(texts)]).save(suite)
    out = tmp_path / "run"
    with ScriptedOpenAIServer(responder(texts)) as server:
        arguments = ["run", "--suite", str(suite), "--out", str(out), "-q"]
        for seat in ("agent", "user"):
            arguments += [f"--{seat}-model", "openai/m", f"--{seat}-api-base", server.base_url]
            arguments += [f"--{seat}-arg", "api_key=k"]
        result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 0, result.output
    return out


LOOKALIKES = str.maketrans({"\uff06": "&", "\uff1c": "<", "\uff1e": ">"})
"""The export writes `&`, `<` and `>` as their full-width look-alikes (docs/annotation.md)."""


def restored(text: str) -> str:
    """Exported text with the look-alikes turned back into what the model wrote."""
    return text.translate(LOOKALIKES)


def shown(text: str) -> str:
    """Text as compared on the page: runs of whitespace (line breaks of every kind included) as one space."""
    return " ".join(text.split())


def strings(value: Any) -> Iterator[str]:
    """Every string in an exported field."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


@dataclass
class PageCheck:
    """What the browser saw over all the items."""

    pages: int = 0
    strings: int = 0


def check_page(driver: Any, item: dict[str, Any], title: str, seen: PageCheck) -> None:
    """The page of one item: nothing ran, nothing was taken as markup, the page is whole, the item's strings
    show literally."""
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    try:
        alert = driver.switch_to.alert.text
    except NoAlertPresentException:
        alert = None
    assert alert is None, f"{item['id']!r}: an alert opened: {alert!r}"
    ran = driver.execute_script("return top.tau2pwn || null")
    markup = driver.execute_script(
        "return Array.from(document.querySelectorAll('[id^=tau2pwn]')).map(e => e.outerHTML)"
    )
    assert ran is None, f"{item['id']!r}: payloads ran: {[PAYLOADS[n].kind for n in ran]}"
    assert markup == [], f"{item['id']!r}: taken as markup: {markup}"
    assert driver.title == title
    assert len(driver.find_elements(By.CSS_SELECTOR, "input[name=task_success]")) == 3, "the page is whole"
    assert driver.find_elements(By.ID, "next-btn"), "the page is whole"
    body = shown(driver.execute_script("return document.body.innerText"))
    for field in FIELDS:
        for text in strings(item[field]):
            seen.strings += 1
            assert shown(text) in body, f"{item['id']!r}: {field} not shown literally: {text[:200]!r}"


def annotate_every_item(driver: Any, url: str, items: dict[str, dict[str, Any]], title: str) -> PageCheck:
    """Log in, check each item's page, answer it and go on to the next, until every item was seen."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    seen = PageCheck()
    driver.get(url)
    driver.find_element(By.CSS_SELECTOR, "input[name=email]").send_keys("alice")
    driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    visited: list[str] = []
    for _ in items:
        current = WebDriverWait(driver, PAGE_WAIT_S).until(lambda d: d.execute_script(CURRENT_ITEM))
        assert current in items and current not in visited, f"unexpected item {current!r}"
        visited.append(current)
        check_page(driver, items[current], title, seen)
        seen.pages += 1
        answer = driver.find_element(By.CSS_SELECTOR, "input[name=task_success][value=Failure]")
        driver.execute_script("arguments[0].click()", answer)
        driver.execute_script("arguments[0].click()", driver.find_element(By.ID, "next-btn"))
        WebDriverWait(driver, PAGE_WAIT_S).until(
            lambda d, left=current: d.execute_script(CURRENT_ITEM) != left
        )
    assert sorted(visited) == sorted(items), "every item is served"
    return seen


def test_hostile_model_text_runs_nothing_in_the_annotators_browser(
    tmp_path: Path, reliability_scale: ReliabilityScale
) -> None:
    count = reliability_scale.pick(4, len(PAYLOADS))
    groups = [list(range(start, len(PAYLOADS), count)) for start in range(count)]
    run = hostile_run(tmp_path, groups)
    project = tmp_path / "project"
    port = free_port()
    result = CliRunner().invoke(app, ["export", "potato", str(run), "-o", str(project), "--port", str(port)])
    assert result.exit_code == 0, result.output
    lines = (project / "data" / "simulations.jsonl").read_text(encoding="utf-8").splitlines()
    items = {item["id"]: item for item in map(json.loads, lines)}
    assert len(items) == count, "one line per simulation, for readers that split on every line break"
    for index, group in enumerate(groups):
        item = next(item for item in items.values() if item["id"].startswith(f"task-{index} "))
        exported = "\n".join(strings([item[field] for field in FIELDS]))
        for number in group:
            assert PAYLOADS[number].text(number) in restored(exported), "every payload is exported"
    title = json.loads((project / "config.yaml").read_text(encoding="utf-8"))["annotation_task_name"]
    with (
        potato_server(project, port, tmp_path / "potato.log") as url,
        chromium(tmp_path / "profile") as driver,
    ):
        seen = annotate_every_item(driver, url, items, title)
    print(
        f"RELIABILITY: potato round trip: {len(PAYLOADS)} hostile kinds in {count} simulations, "
        f"{seen.strings} exported strings on {seen.pages} pages of the real Potato server in Chromium: "
        "none ran or became markup, every one shown literally, every item served"
    )
