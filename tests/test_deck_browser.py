"""The Deck in a real browser: Debian's Chromium driven by Playwright (no browser download).

Each view is loaded on the demo world, checked with axe-core for accessibility violations
and saved as a screenshot (into $VYRE_DECK_SHOTS when set: `make screenshots` writes the
README's pictures that way). Editing and Find are driven by keyboard alone.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import WORLD
from tests.deck_support import copy_home

playwright = pytest.importorskip("playwright.sync_api")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
NOW = json.loads((WORLD / "world.json").read_text())["now"]
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    # one renderer at a time where Chromium can reuse one: each test's context otherwise
    # starts two (70 in the module, ~0.1 s of CPU each), and no test runs two pages at once
    "--renderer-process-limit=1",
]

if not os.path.exists(CHROMIUM):  # `make test` installs it; a bare checkout says how
    pytest.fail(
        "Chromium is missing: run `make browser` (Debian: apt-get install chromium)", pytrace=False
    )


@pytest.fixture(scope="module")
def served(world_template, tmp_path_factory):
    from vyre.api import Memory
    from vyre.deck.server import DeckServer
    from vyre.deck.views import Backend

    mp = pytest.MonkeyPatch()
    mp.setenv("VYRE_NOW", NOW)
    root = tmp_path_factory.mktemp("deck-browser")
    home = copy_home(world_template, root / "home")
    mp.setenv("VYRE_HOME", str(home))
    memory = Memory(home)
    deck = DeckServer(home, Backend(memory)).start()
    yield deck, memory
    deck.stop()
    memory.close()
    mp.undo()


@pytest.fixture(autouse=True)
def world_clock(monkeypatch, served):
    monkeypatch.setenv("VYRE_NOW", NOW)  # the world's own clock for every read
    monkeypatch.setenv("VYRE_HOME", str(served[0].gate.home))


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield b
        b.close()


def _watched(context):
    """A new page of `context` whose console errors and uncaught exceptions are kept."""
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    return page


@pytest.fixture(scope="module")
def signed_in(browser, served):
    """The cookies of one sign-in, through the sign-in page: each test's context starts with
    them (a sign-in per test loaded /login and /memory again, ~1 s of Chromium each)."""
    deck, _ = served
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = _watched(context)
    page.goto(deck.sign_in_url())
    page.wait_for_url("**/memory")
    assert page.errors == []
    state = context.storage_state()
    context.close()
    return state


@pytest.fixture
def page(browser, signed_in):
    """A page in a context of its own, signed in (no page loaded yet)."""
    context = browser.new_context(viewport={"width": 1200, "height": 900}, storage_state=signed_in)
    yield _watched(context)
    context.close()


def shot(page, name: str) -> None:
    """The README's picture of this view, when `make screenshots` asks for them (a picture
    checks nothing, and each costs Chromium a render and a PNG)."""
    folder = os.environ.get("VYRE_DECK_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"deck-{name}.png"))


def no_violations(page) -> None:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    assert results.violations_count == 0, results.generate_report()


VIEWS = {
    "memory": "/memory?scope=harlow",
    "everything": "/memory?scope=*",
    "find": "/find?scope=harlow",
    "now": "/now",
    "lessons": "/memory?tab=lessons",
}


@pytest.mark.parametrize("name", list(VIEWS))
def test_each_view_loads_clean(page, served, name):
    deck, _ = served
    page.goto(deck.base + VIEWS[name])
    assert page.locator("h1").first.is_visible()
    no_violations(page)
    shot(page, name)
    assert page.errors == []


def test_a_source_opens_its_turn(page, served):
    deck, _ = served
    page.goto(deck.base + "/memory?scope=harlow")
    link = page.locator(".provenance a").first
    href = link.get_attribute("href")
    link.click()
    page.wait_for_url("**/turn/**")
    here = page.locator("li[aria-current='true']")
    assert here.count() == 1
    seq = href.split("?seq=")[1]
    assert here.get_attribute("id") == f"t{int(seq.split('#')[0])}"
    assert page.locator("details summary").first.is_visible()  # tool output is collapsed
    no_violations(page)
    shot(page, "turn")


def test_correct_and_undo_by_keyboard_alone(page, served):
    deck, memory = served
    page.goto(deck.base + "/memory?scope=harlow")
    button = page.get_by_role("button", name="Correct: Dana Reyes is the office manager")
    button.focus()
    page.keyboard.press("Enter")
    field = page.get_by_role("textbox", name="The right value")
    assert field.evaluate("el => el === document.activeElement")
    before = len(memory.corrections())
    page.keyboard.press("Escape")  # Esc cancels: nothing is sent
    assert len(memory.corrections()) == before
    button.focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Control+a")
    page.keyboard.type("practice manager")
    page.keyboard.press("Control+Enter")
    page.get_by_text("Corrected.").wait_for()
    titles = {
        f.object
        for f in memory.facts("harlow")
        if f.subject == "Dana Reyes" and f.rel == "has_title" and f.status != "closed"
    }
    assert titles == {"practice manager"}
    undo = page.get_by_role("button", name="Undo")
    undo.focus()
    page.keyboard.press("Enter")
    page.get_by_text("Undone.").wait_for()
    titles = {
        f.object
        for f in memory.facts("harlow")
        if f.subject == "Dana Reyes" and f.rel == "has_title" and f.status != "closed"
    }
    assert titles == {"office manager"}
    assert page.errors == []


def test_find_by_keyboard(page, served):
    deck, memory = served
    page.goto(deck.base + "/find?scope=harlow")
    box = page.get_by_role("searchbox")
    box.focus()
    page.keyboard.type("intranet launch checklist")
    page.keyboard.press("Enter")
    hits = page.locator("#hits li a")
    hits.first.wait_for()
    sessions = {
        s.session for s in (h for h in memory.recall("intranet launch checklist", project="harlow"))
    }
    for link in hits.all():  # every hit is a turn of this room, linked to its seq
        session = link.get_attribute("href").split("/turn/")[1].split("?")[0]
        assert session in sessions
    hits.first.focus()
    page.keyboard.press("Enter")
    page.wait_for_url("**/turn/**")
    assert page.locator("li[aria-current='true']").count() == 1
    assert page.errors == []


def test_nothing_is_refetched_while_the_tab_is_hidden(page, served):
    deck, _ = served
    page.goto(deck.base + "/memory?scope=harlow")
    assert page.evaluate("window.deckVersionChecks()") is True
    page.evaluate(
        "Object.defineProperty(document, 'hidden', {value: true, configurable: true});"
        "document.dispatchEvent(new Event('visibilitychange'))"
    )
    assert page.evaluate("window.deckVersionChecks()") is False
    page.evaluate(
        "Object.defineProperty(document, 'hidden', {value: false, configurable: true});"
        "document.dispatchEvent(new Event('visibilitychange'))"
    )
    assert page.evaluate("window.deckVersionChecks()") is True


def _raw(deck, method: str, path: str, headers: dict) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", deck.port, timeout=5)
    conn.request(method, path, headers=headers)
    status = conn.getresponse().status
    conn.close()
    return status


def test_the_live_server_refuses_host_origin_and_no_cookie(page, served):
    deck, memory = served
    cookie = "; ".join(f"{c['name']}={c['value']}" for c in page.context.cookies())
    ok = {"Host": f"localhost:{deck.port}", "Cookie": cookie}
    assert _raw(deck, "GET", "/memory", ok) == 200
    assert _raw(deck, "GET", "/memory", {**ok, "Host": "attacker.example"}) == 421
    assert _raw(deck, "GET", "/memory", {"Host": f"localhost:{deck.port}"}) == 401
    fact = next(f for f in memory.facts("harlow") if f.rel == "works_at")
    before = len(memory.corrections())
    post = {**ok, "Origin": "http://attacker.example", "Content-Type": "application/json"}
    assert _raw(deck, "POST", f"/api/facts/{fact.id}/pin", post) == 403
    assert _raw(deck, "POST", f"/api/facts/{fact.id}/pin", {**ok, "Content-Type": "x"}) == 403
    assert len(memory.corrections()) == before


def test_passkey_registration_needs_the_terminal_code(page, served):
    deck, _ = served
    _authenticator(page)
    page.goto(deck.base + "/passkey")
    assert page.get_by_role("button", name="Register a passkey").count() == 0
    page.goto(deck.base + "/passkey?code=made-up")
    page.get_by_role("button", name="Register a passkey").click()
    page.get_by_text("Not registered").wait_for()
    assert deck.passkeys.registered() == 0
    code = deck.passkeys.registration_code()
    page.goto(deck.base + f"/passkey?code={code}")
    page.get_by_role("button", name="Register a passkey").click()
    page.get_by_text("Passkey registered").wait_for()
    assert deck.passkeys.registered() == 1
    shot(page, "passkey")
    page.goto(deck.base + f"/passkey?code={code}")  # a code works once
    page.get_by_role("button", name="Register a passkey").click()
    page.get_by_text("Not registered").wait_for()
    assert deck.passkeys.registered() == 1


def test_ask_a_question_and_follow_its_source_to_the_turn(page, served):
    deck, memory = served
    page.goto(deck.base + "/find?scope=harlow")
    box = page.get_by_role("searchbox")
    box.focus()
    page.keyboard.type("who is the office manager at Harlow Legal?")  # asked 700 ms after
    card = page.get_by_role("region", name="Answer")
    card.locator(".answer").wait_for()
    assert "Dana" in card.locator(".answer").inner_text()
    meta = card.locator(".meta").first.inner_text()
    assert "confidence" in meta and "Wrong?" in meta
    no_violations(page)
    shot(page, "find-answer")
    chip = card.locator("a.chip").first
    href = chip.get_attribute("href")
    chip.click()
    page.wait_for_url("**/turn/**")
    seq = int(href.split("?seq=")[1].split("#")[0])
    here = page.locator("li[aria-current='true']")
    assert here.get_attribute("id") == f"t{seq}"
    session = href.split("/turn/")[1].split("?")[0]
    assert memory.ledger.turn(session, seq) is not None
    assert page.errors == []


def test_another_clients_folder_is_not_sure(page, served):
    deck, _ = served
    page.goto(deck.base + "/find?scope=summit-roofing")
    page.get_by_role("searchbox").fill("who is the office manager at Harlow Legal?")
    page.keyboard.press("Enter")
    card = page.get_by_role("region", name="Answer")
    card.get_by_text("Not sure yet.").wait_for()
    assert "Dana" not in card.inner_text()
    assert card.get_by_text("Wrong?").count() == 0  # a "not sure" card offers the field
    assert card.get_by_placeholder("Know it? Tell me").is_visible()
    shot(page, "find-not-sure")


def test_wrong_then_undo_on_the_answer_card_by_keyboard(page, served):
    deck, memory = served
    page.goto(deck.base + "/find?scope=harlow")
    box = page.get_by_role("searchbox")
    box.fill("who is the office manager at Harlow Legal?")
    page.keyboard.press("Enter")
    card = page.get_by_role("region", name="Answer")
    wrong = card.get_by_role("button", name="Wrong?")
    wrong.wait_for()
    wrong.focus()
    page.keyboard.press("Enter")
    field = card.get_by_role("textbox", name="The right answer")
    assert field.evaluate("el => el === document.activeElement")
    before = len(memory.answer_corrections()["answers"])
    page.keyboard.press("Escape")  # collapses, nothing sent
    assert card.get_by_role("textbox", name="The right answer").count() == 0
    assert len(memory.answer_corrections()["answers"]) == before
    wrong.focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Control+a")
    page.keyboard.type("Priya Shah")
    page.keyboard.press("Enter")
    card.get_by_text("you corrected this").wait_for()
    assert card.locator(".answer").inner_text() == "Priya Shah"
    again = memory.ask("who is the office manager at Harlow Legal?", project="harlow")
    assert again.via == "corrected" and again.answer == "Priya Shah"
    undo = card.get_by_role("button", name="Undo")
    undo.focus()
    page.keyboard.press("Enter")
    card.get_by_role("button", name="Wrong?").wait_for()
    assert memory.answer_corrections()["answers"][-1]["undone"]
    back = memory.ask("who is the office manager at Harlow Legal?", project="harlow")
    assert back.via != "corrected" and "Dana" in back.answer
    assert page.errors == []


def test_a_program_inside_claude_code_cannot_change_memory_through_the_deck(page, served):
    """The model can read the token (it runs as the user), but its requests are refused."""
    deck, memory = served
    fact = next(f for f in memory.facts("harlow") if f.rel == "works_at")
    cookie = "; ".join(f"{c['name']}={c['value']}" for c in page.context.cookies())
    script = (
        "import http.client, sys\n"
        f"c = http.client.HTTPConnection('127.0.0.1', {deck.port}, timeout=5)\n"
        f"c.request('POST', '/api/facts/{fact.id}/pin', body='{{}}', headers={{"
        f"'Host': 'localhost:{deck.port}', 'Origin': '{deck.base}', 'Cookie': '{cookie}', "
        "'Content-Type': 'application/json'})\n"
        "print(c.getresponse().status)\n"
    )
    before = len(memory.corrections())
    inside = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={**os.environ, "CLAUDECODE": "1"},
        timeout=30,
    )
    assert inside.stdout.strip() == "403", inside.stderr
    assert len(memory.corrections()) == before
    outside = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "CLAUDECODE"},
        timeout=30,
    )
    assert outside.stdout.strip() == "200", outside.stderr
    row = memory.corrections()[-1]
    memory.uncorrect(row.id, caller="local")


def _authenticator(page, *, verified: bool = True) -> None:
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": verified,
            }
        },
    )


def test_lessons_need_the_passkey_to_accept_relax_and_retire(browser, served):
    deck, memory = served
    learn = memory.learn
    proposed = learn.propose("never push to main", session="s-deck", cwd="/home/sam/work/harlow")
    assert proposed is not None and proposed.status == "proposed"
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.goto(deck.sign_in_url())
    page.wait_for_url("**/memory")
    _authenticator(page)
    page.goto(deck.base + f"/passkey?code={deck.passkeys.registration_code()}")
    page.get_by_role("button", name="Register a passkey").click()
    page.get_by_text("Passkey registered").wait_for()

    page.goto(deck.base + "/memory?tab=lessons")
    no_violations(page)
    row = page.locator("tr", has_text="never push to main")
    row.get_by_role("button", name="Accept").click()
    row.get_by_text("Kept:").wait_for()
    assert learn.get(proposed.id).status == "active"
    page.goto(deck.base + "/memory?tab=lessons")
    shot(page, "lessons")
    row = page.locator("tr", has_text="never push to main")
    level = learn.get(proposed.id).level
    row.get_by_role("button", name="Relax").click()
    row.get_by_text("Relaxed").wait_for()
    assert learn.get(proposed.id).level != level
    page.goto(deck.base + "/memory?tab=lessons")
    page.locator("tr", has_text="never push to main").get_by_role("button", name="Retire").click()
    page.get_by_text("Retired lesson").wait_for()
    assert learn.get(proposed.id).status == "retired"
    context.close()


def test_a_click_without_the_passkey_changes_no_lesson(browser, served):
    deck, memory = served
    learn = memory.learn
    lesson = learn.propose("don't use sed -i", session="s-deck2", cwd="/home/sam/work/harlow")
    context = browser.new_context()
    page = context.new_page()
    page.goto(deck.sign_in_url())
    page.wait_for_url("**/memory")
    # a signed-in page that posts the action with no assertion, as a script would
    status = page.evaluate(
        """async (id) => (await fetch('/api/lessons/' + id + '/accept', {method: 'POST',
        headers: {'content-type': 'application/json'}, body: '{}'})).status""",
        lesson.id,
    )
    assert status == 400
    # an authenticator that cannot verify the user is refused too
    _authenticator(page, verified=False)
    page.goto(deck.base + "/memory?tab=lessons")
    row = page.locator("tr", has_text="sed -i")
    if row.get_by_role("button", name="Accept").count():
        row.get_by_role("button", name="Accept").click()
        row.get_by_text("Not done").wait_for()
    assert learn.get(lesson.id).status == "proposed"
    context.close()
