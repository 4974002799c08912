#!/usr/bin/env python3
"""The operators' console in real headless Chromium (issue 37, item 1 and item 4's rules for pages).

Run by scripts/browser-tests.sh, which starts `griot serve` (development tokens) in front of
Tests/Browser/model_stub.py and sets, beside what test_chat_page.py reads:
  GRIOT_TOKEN      a client of family fam-carter (asks the questions; refused by the console's routes)
  GRIOT_OPERATOR   an operator (reads the console)
  GRIOT_ADMIN      an admin (searches the audit log)

    python Tests/Browser/test_console.py [NAME_FILTER ...]

Each test prints PASS or FAIL with its reason and saves console-<name>.png under SCREENSHOTS;
exit status 1 when any failed.
"""
import os
import sys
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from test_chat_page import GROUNDED_QUESTION, SHOTS, TOKEN, TRICK_QUESTION, URL, call, check, no_alert, run, wait

OPERATOR = os.environ["GRIOT_OPERATOR"]
ADMIN = os.environ.get("GRIOT_ADMIN", "")


# MARK: Helpers

def shot(driver, name):
    driver.save_screenshot(str(SHOTS / f"console-{name}.png"))


def open_console(driver, fragment=""):
    driver.get(f"{URL}/console{fragment}")
    wait(driver, lambda d: d.execute_script("return document.body.dataset.ready === 'true'"), message="the console's script did not start")


def sign_in(driver, token=OPERATOR, fragment=""):
    """Signs in with `token` (signing out first when another token is in the tab) and opens `fragment`."""
    open_console(driver)
    if driver.execute_script("return sessionStorage.getItem('griot.token')") != token:
        driver.execute_script("sessionStorage.clear()")
        open_console(driver)
        box = driver.find_element(By.ID, "token")
        box.clear()
        box.send_keys(token)
        driver.find_element(By.CSS_SELECTOR, "#sign-in-form button[type=submit]").click()
        wait(driver, lambda d: d.find_element(By.ID, "app").is_displayed(), message="the console did not appear after sign-in")
    if fragment:
        open_console(driver, fragment)
    wait(driver, lambda d: d.find_element(By.ID, "app").is_displayed(), message="the console is not shown")


def go(driver, fragment):
    driver.execute_script("location.hash = arguments[0]", fragment)
    view = fragment.lstrip("#").split("/")[0]
    wait(driver, lambda d: d.execute_script("return document.body.dataset.view") == view, 5, f"the {view} section did not open")


def chat(question, token=TOKEN):
    """Asks the Griot through the API, as a family's app would; returns the reply's body."""
    status, reply, _ = call("POST", "/api/griot/chat", token=token, body={"message": question})
    check(status == 200, f"the chat answered {status}: {reply}")
    return reply


def turn_for(question):
    """The newest stored turn that asked `question` (the operators' list)."""
    status, page, _ = call("GET", "/api/ops/turns?assistant=griot&limit=50", token=OPERATOR)
    check(status == 200, f"GET /api/ops/turns answered {status}: {page}")
    for turn in page["turns"]:
        if turn.get("question") == question:
            return turn
    raise AssertionError(f"no stored turn asked {question!r}")


def figure(driver, name):
    return driver.execute_script("return document.querySelector(arguments[0])?.textContent ?? null", f"#fig-{name} .value")


# MARK: Tests

def test_console_sign_in(driver):
    """A wrong token is refused in the service's words; an operator's is kept in sessionStorage and opens the dashboard."""
    open_console(driver)
    driver.execute_script("sessionStorage.clear()")
    open_console(driver)
    check(driver.find_element(By.ID, "sign-in").is_displayed(), "the sign-in form is not shown to a visitor without a token")
    check(driver.switch_to.active_element.get_attribute("id") == "token", "focus is not in the token box")
    driver.find_element(By.ID, "token").send_keys("not-a-token")
    driver.find_element(By.CSS_SELECTOR, "#sign-in-form button[type=submit]").click()
    error = driver.find_element(By.ID, "sign-in-error")
    wait(driver, lambda d: error.is_displayed(), message="no error for a wrong token")
    check("not accepted" in error.text, f"the error does not say the token was refused: {error.text!r}")
    check(driver.execute_script("return sessionStorage.getItem('griot.token')") is None, "a refused token was kept")
    shot(driver, "sign-in-refused")
    driver.find_element(By.ID, "token").clear()
    sign_in(driver)
    check("bt-operator" in driver.find_element(By.ID, "who").text, "the console does not say who is signed in")
    check(driver.execute_script("return document.body.dataset.view") == "dashboard", "the dashboard is not the first section")
    check(driver.execute_script("return localStorage.length") == 0 and driver.get_cookies() == [], "the token went beyond sessionStorage")
    wait(driver, lambda d: figure(d, "turns") is not None or d.find_element(By.ID, "dashboard-error").is_displayed(), 10,
         "the dashboard shows neither figures nor an error")
    shot(driver, "sign-in")


def test_console_dashboard_live(driver):
    """The turns figure changes within 2 s of a chat, over the stream, with no reload; the range selector works."""
    sign_in(driver, fragment="#dashboard")
    wait(driver, lambda d: figure(d, "turns") is not None, 10,
         f"the dashboard did not render: {driver.find_element(By.ID, 'dashboard-error').text!r}")
    before = driver.execute_script("return document.getElementById('figures').dataset.turns")
    driver.execute_script("window.__sameDocument = true")
    chat(GROUNDED_QUESTION)
    answered = time.time()
    try:
        wait(driver, lambda d: d.execute_script("return document.getElementById('figures').dataset.turns") != before, 2.0,
             "the turns figure did not change within 2 s")
    finally:
        after = driver.execute_script("return document.getElementById('figures').dataset.turns")
        status = driver.find_element(By.ID, "dashboard-status").text
        print(f"    turns {before} → {after} {time.time() - answered:.2f} s after the chat answered; {status}")
    check(driver.execute_script("return window.__sameDocument === true"), "the page reloaded instead of updating")
    status = driver.find_element(By.ID, "dashboard-status").text
    check(status.startswith("Live"), f"the figures did not come over the stream: {status!r}")
    charts = driver.find_elements(By.CSS_SELECTOR, "#dashboard-body svg.chart")
    check(len(charts) >= 5, f"{len(charts)} charts drawn")
    check(all(c.get_attribute("role") == "img" and c.get_attribute("aria-label") for c in charts), "a chart has no accessible name")
    shot(driver, "dashboard")
    driver.find_element(By.CSS_SELECTOR, "button[data-range='15m']").click()
    wait(driver, lambda d: "range 15m" in d.find_element(By.ID, "dashboard-status").text, 5, "the 15 min range did not load")
    check(driver.find_element(By.CSS_SELECTOR, "button[data-range='15m']").get_attribute("aria-pressed") == "true", "15 min is not marked chosen")


def test_console_turns_filter_and_open(driver):
    """The filters of GET /api/ops/turns narrow the list; a turn opens with its question, passages, ledger and verdicts."""
    chat(GROUNDED_QUESTION)
    sign_in(driver, fragment="#turns")
    driver.find_element(By.ID, "turns-assistant").send_keys("griot")
    Select(driver.find_element(By.ID, "turns-status")).select_by_value("complete")
    driver.find_element(By.CSS_SELECTOR, "#turns-form button[type=submit]").click()
    wait(driver, lambda d: "turn" in d.find_element(By.ID, "turns-status-line").text and d.find_elements(By.CSS_SELECTOR, "#turns-list li"),
         10, f"no turns listed: {driver.find_element(By.ID, 'turns-error').text!r}")
    states = driver.execute_script("return [...document.querySelectorAll('#turns-list li .state')].map(e => e.textContent)")
    check(states and set(states) == {"complete"}, f"the status filter let through {set(states)}")
    Select(driver.find_element(By.ID, "turns-status")).select_by_value("failed")
    driver.find_element(By.CSS_SELECTOR, "#turns-form button[type=submit]").click()
    wait(driver, lambda d: d.find_element(By.ID, "turns-status-line").text == "0 turns, newest first.", 10, "failed turns are listed")
    Select(driver.find_element(By.ID, "turns-status")).select_by_value("complete")
    driver.find_element(By.CSS_SELECTOR, "#turns-form button[type=submit]").click()
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#turns-list li"), 10, "the list did not come back")
    card = [c for c in driver.find_elements(By.CSS_SELECTOR, "#turns-list li") if GROUNDED_QUESTION in c.text][0]
    turn_id = card.get_attribute("data-id")
    card.find_element(By.PARTIAL_LINK_TEXT, "Open turn").click()
    wait(driver, lambda d: d.find_elements(By.ID, "turn-answer") or d.find_element(By.ID, "turn-error").is_displayed(), 10, "the turn did not open")
    check(not driver.find_element(By.ID, "turn-error").is_displayed(), f"the turn failed to open: {driver.find_element(By.ID, 'turn-error').text!r}")
    check(driver.current_url.endswith(f"#turns/{turn_id}"), f"the address does not name the turn: {driver.current_url}")
    check(driver.find_element(By.ID, "turn-question").text == GROUNDED_QUESTION, "the question is not shown")
    check("storyteller says" in driver.find_element(By.ID, "turn-answer").text, "the answer is not shown")
    body = driver.find_element(By.ID, "turn-body").text
    for heading in ("Passages", "Token ledger", "Verdicts", "Events", "Prompt version", "Model"):
        check(heading in body, f"the turn does not show {heading}")
    check(driver.find_elements(By.CSS_SELECTOR, "#turn-body table.passages tbody tr"), "no passages with their ranks")
    shot(driver, "turn")
    driver.execute_script("document.querySelector('#turn-body table.passages').scrollIntoView()")
    shot(driver, "turn-passages")


def test_console_replay_diff(driver):
    """Replay a turn with the offline responder: the stored and replayed answers side by side, with a word diff."""
    chat(GROUNDED_QUESTION)
    turn = turn_for(GROUNDED_QUESTION)
    sign_in(driver, fragment=f"#replay/{turn['turn_id']}")
    check(driver.find_element(By.ID, "replay-id").get_attribute("value") == turn["turn_id"], "the turn id was not filled in from the address")
    Select(driver.find_element(By.ID, "replay-provider")).select_by_value("extractive")
    driver.find_element(By.ID, "replay-run").click()
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#replay-results article.replay") or d.find_element(By.ID, "replay-error").is_displayed(),
         90, "the replay did not finish")
    check(not driver.find_element(By.ID, "replay-error").is_displayed(), f"the replay failed: {driver.find_element(By.ID, 'replay-error').text!r}")
    article = driver.find_element(By.CSS_SELECTOR, "#replay-results article.replay")
    check(article.get_attribute("data-changed") == "true", "the replay's answer is the same; no diff to show")
    removed = article.find_elements(By.CSS_SELECTOR, ".side.old del")
    added = article.find_elements(By.CSS_SELECTOR, ".side.new ins")
    check(removed or added, "no word is marked removed or added")
    check(not article.find_elements(By.CSS_SELECTOR, ".side.old ins") and not article.find_elements(By.CSS_SELECTOR, ".side.new del"),
          "a side shows the other side's changes")
    old_text = article.find_element(By.CSS_SELECTOR, ".side.old .text").get_attribute("textContent")
    check("storyteller says" in old_text, "the stored answer is not on the left")
    sides = article.find_elements(By.CSS_SELECTOR, ".sides > section")
    check(len(sides) == 2 and sides[0].location["y"] == sides[1].location["y"], "the answers are not side by side at 1280 px")
    check("Citations" in article.text and "Flags" in article.text, "citations and flags are not shown per side")
    driver.execute_script("arguments[0].scrollIntoView()", article)
    shot(driver, "replay")


def test_console_review_acknowledge_resolve(driver):
    """A reported reply opens a ticket; the console acknowledges and resolves it, with who and when."""
    reply = chat(GROUNDED_QUESTION)
    status, ticket, _ = call("POST", f"/api/messages/{reply['message_id']}/report", body={"reason": "inaccurate", "note": "The pie had nutmeg."})
    check(status in (200, 201), f"the report answered {status}: {ticket}")
    ticket_id = ticket["id"]
    sign_in(driver, fragment="#reviews")
    Select(driver.find_element(By.ID, "reviews-status")).select_by_value("open")
    Select(driver.find_element(By.ID, "reviews-kind")).select_by_value("user_report")
    driver.find_element(By.CSS_SELECTOR, "#reviews-form button[type=submit]").click()
    selector = f"#reviews-list li[data-id='{ticket_id}']"
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, selector), 10,
         f"the ticket is not in the open queue: {driver.find_element(By.ID, 'reviews-error').text!r}")
    card = driver.find_element(By.CSS_SELECTOR, selector)
    check("Delivery" in card.text and "attempts" in card.text, "the delivery state is not shown")
    check(card.find_element(By.CSS_SELECTOR, f"a[href='#turns/{ticket['turn_id']}']"), "no link to the ticket's turn")
    card.find_element(By.CSS_SELECTOR, "button.acknowledge").click()
    wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, selector).get_attribute("data-status") == "acknowledged", 10, "not acknowledged")
    card = driver.find_element(By.CSS_SELECTOR, selector)
    check("Acknowledged by bt-operator" in card.text, f"who acknowledged is not said: {card.text!r}")
    check(not card.find_element(By.CSS_SELECTOR, "button.acknowledge").is_enabled(), "Acknowledge is still offered")
    card.find_element(By.CSS_SELECTOR, "input[name=resolution]").send_keys("Checked the recording; the answer quotes it.")
    card.find_element(By.CSS_SELECTOR, "button.resolve").click()
    wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, selector).get_attribute("data-status") == "resolved", 10, "not resolved")
    card = driver.find_element(By.CSS_SELECTOR, selector)
    check("Resolved by bt-operator" in card.text and "Checked the recording" in card.text, f"the resolution is not shown: {card.text!r}")
    driver.execute_script("arguments[0].scrollIntoView()", card)
    shot(driver, "review")
    status, stored, _ = call("GET", f"/api/ops/reviews/{ticket_id}", token=OPERATOR)
    check(status == 200 and stored["status"] == "resolved" and stored["resolved_by"] == "bt-operator"
          and stored["acknowledged_by"] == "bt-operator", f"the service holds {stored}")


def test_console_client_gets_403(driver):
    """A client's token: every console route answers 403, and each section says what the role may not do."""
    for method, path in (("GET", "/api/ops/turns"), ("GET", "/api/ops/reviews"), ("GET", "/api/ops/dashboard?range=1h"),
                         ("GET", "/api/ops/prompts"), ("POST", "/api/ops/replay"), ("GET", "/api/audit")):
        status, body, _ = call(method, path, body={} if method == "POST" else None)
        check(status == 403, f"{method} {path} answered {status} to a client: {body}")
        check(body["error"]["code"] == "forbidden", f"{method} {path}: {body}")
    sign_in(driver, token=TOKEN, fragment="#dashboard")
    error = driver.find_element(By.ID, "dashboard-error")
    wait(driver, lambda d: error.is_displayed(), 10, "the dashboard shows no refusal")
    check("This token's role (client) may not read the live dashboard" in error.text, f"the dashboard says {error.text!r}")
    check(driver.find_element(By.ID, "dashboard-body").get_attribute("hidden") is not None, "figures are shown to a client")
    shot(driver, "forbidden")
    go(driver, "#turns")
    wait(driver, lambda d: d.find_element(By.ID, "turns-error").is_displayed(), 10, "the turns section shows no refusal")
    check("may not list turns" in driver.find_element(By.ID, "turns-error").text, driver.find_element(By.ID, "turns-error").text)
    check(not driver.find_elements(By.CSS_SELECTOR, "#turns-list li"), "turns are listed to a client")
    go(driver, "#reviews")
    wait(driver, lambda d: d.find_element(By.ID, "reviews-error").is_displayed(), 10, "the review queue shows no refusal")
    check("may not read the review queue" in driver.find_element(By.ID, "reviews-error").text, driver.find_element(By.ID, "reviews-error").text)
    shot(driver, "forbidden-reviews")


def test_console_model_html_runs_nothing(driver):
    """A stored answer holding <script>, onerror and a javascript: link shows as text in the turn's page and runs nothing."""
    chat(TRICK_QUESTION)
    turn = turn_for(TRICK_QUESTION)
    sign_in(driver)
    driver.execute_script("delete window.__griotXSS")
    go(driver, f"#turns/{turn['turn_id']}")
    wait(driver, lambda d: d.find_elements(By.ID, "turn-answer") or d.find_element(By.ID, "turn-error").is_displayed(), 10, "the turn did not open")
    check(not driver.find_element(By.ID, "turn-error").is_displayed(), f"the turn failed to open: {driver.find_element(By.ID, 'turn-error').text!r}")
    time.sleep(0.5)
    answer = driver.find_element(By.ID, "turn-answer").text
    check("trick" in answer, f"the answer is not shown: {answer[:200]!r}")
    body = driver.find_element(By.ID, "turn-body")
    check(not body.find_elements(By.CSS_SELECTOR, "script, img, iframe, object, embed"), "model HTML became elements")
    check(not driver.find_elements(By.CSS_SELECTOR, "a[href^='javascript:' i]"), "a javascript: link became a link")
    check(no_alert(driver) is None, "an alert opened")
    check(driver.execute_script("return typeof window.__griotXSS") == "undefined", f"script ran: {driver.execute_script('return window.__griotXSS')!r}")
    page_text = driver.find_element(By.ID, "turn-body").text
    shown = [marker for marker in ("<script>", "onerror", "javascript:") if marker in page_text]
    print(f"    shown as text in the turn's page: {shown or 'none (the service removed them before storing)'}")
    shot(driver, "xss")


def test_console_prompts_and_promote(driver):
    """Versions with labels and hashes, promotion attempts, and Promote: its success or refusal said on the page."""
    sign_in(driver, fragment="#prompts")
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#prompts-list article[data-assistant]") or d.find_element(By.ID, "prompts-error").is_displayed(),
         10, "the prompts did not load")
    check(not driver.find_element(By.ID, "prompts-error").is_displayed(), f"the prompts failed: {driver.find_element(By.ID, 'prompts-error').text!r}")
    griot = driver.find_element(By.CSS_SELECTOR, "#prompts-list article[data-assistant='griot']")
    check("sha256:" in griot.text or "Hash" in griot.text, "no hashes shown")
    griot.find_element(By.CSS_SELECTOR, "form.promote button[type=submit]").click()
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-outcome]"), 120, "Promote said nothing")
    outcome = driver.find_element(By.CSS_SELECTOR, "[data-outcome]")
    print(f"    promote: {outcome.get_attribute('data-outcome')}: {outcome.text[:160]}")
    check(outcome.text.startswith(("Promoted", "Refused")), outcome.text)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", outcome)
    shot(driver, "prompts")


def test_console_audit(driver):
    """An operator is told the audit log is for admins; an admin searches it."""
    sign_in(driver, fragment="#audit")
    driver.find_element(By.CSS_SELECTOR, "#audit-form button[type=submit]").click()
    error = driver.find_element(By.ID, "audit-error")
    wait(driver, lambda d: error.is_displayed(), 10, "an operator's search was not refused")
    check("This token's role (operator) may not read the audit log" in error.text, error.text)
    if not ADMIN:
        return
    sign_in(driver, token=ADMIN, fragment="#audit")
    driver.find_element(By.ID, "audit-action").send_keys("review.acknowledge,review.resolve,turn.replay")
    driver.find_element(By.CSS_SELECTOR, "#audit-form button[type=submit]").click()
    wait(driver, lambda d: "entries" in d.find_element(By.ID, "audit-status").text or d.find_element(By.ID, "audit-error").is_displayed(), 10, "no answer")
    error = driver.find_element(By.ID, "audit-error")
    check(not error.is_displayed(), f"the admin's search failed: {error.text!r}")
    check(driver.find_elements(By.CSS_SELECTOR, "#audit-results table.audit tbody tr"), "no entries listed")
    print(f"    {driver.find_element(By.ID, 'audit-status').text}")
    shot(driver, "audit")


def test_console_keyboard_and_narrow(driver):
    """Tab reaches the sections as links with a visible outline; at 320 px nothing scrolls sideways."""
    sign_in(driver, fragment="#dashboard")
    driver.find_element(By.TAG_NAME, "body").click()
    seen = []
    for _ in range(12):
        webdriver.ActionChains(driver).send_keys(Keys.TAB).perform()
        active = driver.switch_to.active_element
        seen.append(active.get_attribute("id") or active.tag_name)
        if active.get_attribute("id") == "nav-reviews":
            break
    check("nav-reviews" in seen, f"Tab did not reach the Review queue link: {seen}")
    outline = driver.execute_script("const s = getComputedStyle(document.activeElement); return [s.outlineStyle, s.outlineWidth]")
    check(outline[0] != "none" and outline[1] != "0px", f"the focused link has no outline: {outline}")
    webdriver.ActionChains(driver).send_keys(Keys.ENTER).perform()
    wait(driver, lambda d: d.execute_script("return document.body.dataset.view") == "reviews", 5, "Enter on the link did not open the queue")
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 320, "height": 720, "deviceScaleFactor": 1, "mobile": True})
    try:
        overflow = "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        for fragment in ("#dashboard", "#turns", "#reviews", "#replay", "#prompts"):
            go(driver, fragment)
            time.sleep(1.0)
            width, client = driver.execute_script(overflow)
            check(client == 320, f"the viewport is {client} px wide")
            check(width <= client, f"{fragment} scrolls sideways at 320 px: {width} > {client}")
            if fragment in ("#dashboard", "#reviews"):
                driver.execute_script("window.scrollTo(0, 0)")
                shot(driver, f"narrow-{fragment[1:]}")
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_console_page_policy(driver):
    """The console carries the strict policy, its HTML holds no inline script, style or handler, and it breaks no rule."""
    import re
    for path in ("/console", "/assets/console.js", "/assets/console.css", "/assets/svgchart.js", "/assets/worddiff.js"):
        with urllib.request.urlopen(f"{URL}{path}", timeout=10) as response:
            policy = response.headers["Content-Security-Policy"]
            check("script-src 'self'" in policy and "'unsafe-inline'" not in policy and "default-src 'none'" in policy, f"{path}: {policy}")
            text = response.read().decode()
        if path == "/console":
            check(not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", text), "an inline <script>")
            check(" style=" not in text and "<style" not in text, "an inline style")
            check(not re.search(r"<[^>]*\son\w+=", text), "an inline event handler")
    driver.get_log("browser")
    sign_in(driver, fragment="#dashboard")
    time.sleep(1.5)
    for fragment in ("#turns", "#reviews", "#prompts"):
        go(driver, fragment)
        time.sleep(0.5)
    violations = [entry for entry in driver.get_log("browser") if "Content Security Policy" in entry.get("message", "")]
    check(not violations, f"the console broke its own policy: {violations[:3]}")


TESTS = [test_console_sign_in, test_console_dashboard_live, test_console_turns_filter_and_open, test_console_replay_diff,
         test_console_review_acknowledge_resolve, test_console_client_gets_403, test_console_model_html_runs_nothing,
         test_console_prompts_and_promote, test_console_audit, test_console_keyboard_and_narrow, test_console_page_policy]


def main(filters):
    def fallback(test, started):
        # The ones the test took, else the page as it ended.
        if any(p.stat().st_mtime >= started for p in SHOTS.glob("console-*.png")):
            return None
        return SHOTS / f"console-{test.__name__.removeprefix('test_console_')}.png"
    return run(TESTS, filters, fallback)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
