#!/usr/bin/env python3
"""The chat page in real headless Chromium (issue 37, item 2 and item 4's rules for pages).

Run by scripts/browser-tests.sh, which starts `griot serve` (development tokens) in front of
Tests/Browser/model_stub.py and sets:
  GRIOT_URL        the service, e.g. http://127.0.0.1:PORT
  GRIOT_TOKEN      a client of family fam-carter and course course-7
  GRIOT_OPERATOR   an operator (reads the review queue)
  SCREENSHOTS      where each test saves its PNG (.build/screenshots)
  CHROMIUM, CHROMEDRIVER  Debian's binaries

    python Tests/Browser/test_chat_page.py [NAME_FILTER ...]

Each test prints PASS or FAIL with its reason and saves <test name>.png; exit status 1 when
any failed.
"""
import json
import os
import sys
import time
import traceback
import urllib.error
import urllib.request
from pathlib import Path

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

URL = os.environ["GRIOT_URL"].rstrip("/")
TOKEN = os.environ["GRIOT_TOKEN"]
OPERATOR = os.environ.get("GRIOT_OPERATOR", "")
SHOTS = Path(os.environ.get("SCREENSHOTS", ".build/screenshots"))
SHOTS.mkdir(parents=True, exist_ok=True)

GROUNDED_QUESTION = "How did Ida Mae make her sweet potato pie?"
SLOW_QUESTION = "Tell me slowly about the pie"
TRICK_QUESTION = "Show me the trick with the pie"


# MARK: Helpers

def browser(width=1280, height=900):
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--window-size={width},{height}",
                     "--no-first-run", "--disable-extensions", "--disable-background-networking"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_script_timeout(20)
    return driver


def wait(driver, condition, timeout=15, message=""):
    # The page re-renders a list as the service answers: an element read while it is replaced is
    # stale, which means "not yet", not a failure (test_coaching_thread failed so once in CI's shape).
    return WebDriverWait(driver, timeout, poll_frequency=0.05,
                         ignored_exceptions=(StaleElementReferenceException,)).until(lambda d: condition(d), message)


def open_page(driver):
    driver.get(f"{URL}/chat")
    wait(driver, lambda d: d.execute_script("return document.body.dataset.ready === 'true'"), message="the page's script did not start")


def sign_in(driver, token=TOKEN):
    open_page(driver)
    if driver.find_element(By.ID, "app").is_displayed():
        return
    box = driver.find_element(By.ID, "token")
    box.clear()
    box.send_keys(token)
    driver.find_element(By.CSS_SELECTOR, "#sign-in-form button[type=submit]").click()
    wait(driver, lambda d: d.find_element(By.ID, "app").is_displayed(), message="the app did not appear after sign-in")


def ask(driver, question):
    box = driver.find_element(By.ID, "question")
    box.clear()
    box.send_keys(question)
    driver.find_element(By.ID, "send").click()


def last_reply(driver):
    replies = driver.find_elements(By.CSS_SELECTOR, "#messages li.reply")
    return replies[-1] if replies else None


def reply_status(driver):
    # Read in one step: a streaming reply's element is replaced as its text grows.
    return driver.execute_script("return [...document.querySelectorAll('#messages li.reply')].pop()?.dataset.status ?? null")


def reply_text(driver):
    return driver.execute_script("return [...document.querySelectorAll('#messages li.reply .content')].pop()?.innerText ?? ''")


def wait_reply_done(driver, timeout=30):
    wait(driver, lambda d: reply_status(d) not in (None, "streaming"), timeout, "the reply did not finish")
    # The stream's end also re-enables the Ask button.
    wait(driver, lambda d: d.find_element(By.ID, "send").is_enabled(), timeout)
    return last_reply(driver)


def call(method, path, token=TOKEN, body=None):
    request = urllib.request.Request(f"{URL}{path}", method=method, data=json.dumps(body).encode() if body is not None else None,
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"null"), dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null"), dict(error.headers)


def no_alert(driver):
    try:
        text = driver.switch_to.alert.text
        driver.switch_to.alert.dismiss()
        return f"an alert opened: {text!r}"
    except NoAlertPresentException:
        return None


def check(condition, message):
    if not condition:
        raise AssertionError(message)


# MARK: Tests

def test_sign_in(driver):
    """A wrong token is refused in the service's words; the right one is kept in sessionStorage only."""
    open_page(driver)
    driver.execute_script("sessionStorage.clear()")
    open_page(driver)
    check(driver.find_element(By.ID, "sign-in").is_displayed(), "the sign-in form is not shown to a visitor without a token")
    check(driver.find_element(By.ID, "ai-banner").is_displayed(), "the 'AI may be inaccurate' banner is not shown")
    box = driver.find_element(By.ID, "token")
    box.send_keys("not-a-token")
    driver.find_element(By.CSS_SELECTOR, "#sign-in-form button[type=submit]").click()
    error = driver.find_element(By.ID, "sign-in-error")
    wait(driver, lambda d: error.is_displayed(), message="no error for a wrong token")
    check("not accepted" in error.text, f"the error does not say the token was refused: {error.text!r}")
    check(driver.execute_script("return sessionStorage.getItem('griot.token')") is None, "a refused token was kept")
    driver.save_screenshot(str(SHOTS / "test_sign_in-refused.png"))
    box.clear()
    sign_in(driver)
    driver.save_screenshot(str(SHOTS / "test_sign_in.png"))
    who = driver.find_element(By.ID, "who").text
    check("bt-ruth" in who, f"the page does not say who is signed in: {who!r}")
    check(driver.execute_script("return sessionStorage.getItem('griot.token')") == TOKEN, "the token is not in sessionStorage")
    check(driver.execute_script("return localStorage.length") == 0, "something was written to localStorage")
    check(driver.get_cookies() == [], f"cookies were set: {driver.get_cookies()}")


def test_streams_an_answer(driver):
    """The answer appears piece by piece, then carries the AI badge with the model, its citation and its sources."""
    sign_in(driver)
    driver.find_element(By.ID, "new-session").click()
    # Count the reply's text as it grows, from inside the page.
    driver.execute_script("""
        window.__lengths = [];
        window.__textWhileStreaming = false;
        new MutationObserver(() => {
            const reply = [...document.querySelectorAll('#messages li.reply')].pop();
            if (!reply) return;
            const length = reply.querySelector('.content').textContent.length;
            window.__lengths.push(length);
            if (length > 0 && reply.dataset.status === 'streaming') window.__textWhileStreaming = true;
        }).observe(document.getElementById('messages'), {subtree: true, childList: true, characterData: true});
    """)
    ask(driver, GROUNDED_QUESTION)
    wait(driver, lambda d: reply_status(d) == "streaming", 10, "the reply was never shown while streaming")
    check(driver.find_element(By.ID, "messages").get_attribute("aria-busy") == "true", "the live region is not busy while streaming")
    reply = wait_reply_done(driver)
    check(reply.get_attribute("data-status") == "complete", f"the reply ended {reply.get_attribute('data-status')}")
    lengths = sorted(set(driver.execute_script("return window.__lengths")))
    # The Griot's PII and moderation stages release text a sentence at a time: two sentences, two steps.
    check(len([n for n in lengths if n > 0]) >= 2, f"the text did not grow in steps (lengths seen: {lengths})")
    check(driver.execute_script("return window.__textWhileStreaming"), "no text was shown before the answer ended")
    badge = reply.find_element(By.CSS_SELECTOR, ".badge").text
    check(badge == "AI-generated · stub-model-1", f"the badge says {badge!r}")
    check(len(reply.find_elements(By.CSS_SELECTOR, ".citations li")) == 1, "the citation is not listed")
    check(len(reply.find_elements(By.CSS_SELECTOR, "button.cite")) == 1, "the [1] marker is not a button")
    check(driver.find_element(By.ID, "messages").get_attribute("aria-busy") == "false", "the live region stays busy")
    check("complete" in driver.find_element(By.ID, "status").text, "the status line does not say the answer is complete")
    check(reply.find_element(By.CSS_SELECTOR, ".content").text.startswith("In \u201c") or "storyteller says" in reply.text,
          f"unexpected reply text {reply.text[:120]!r}")
    sessions = driver.find_elements(By.CSS_SELECTOR, "#sessions li")
    check(len(sessions) >= 1, "the new conversation is not in the list")


def test_stop_mid_stream(driver):
    """Stop ends the stream at once; the service stores what was written, marked stopped."""
    sign_in(driver)
    driver.find_element(By.ID, "new-session").click()
    ask(driver, SLOW_QUESTION)
    wait(driver, lambda d: len(reply_text(d).split()) >= 8, 15, "the slow reply did not start")
    check(driver.find_element(By.ID, "stop").is_enabled(), "Stop is not enabled while the answer streams")
    driver.find_element(By.ID, "stop").click()
    wait(driver, lambda d: reply_status(d) == "stopped", 5, "the reply is not marked stopped")
    shown = reply_text(driver)
    time.sleep(1.0)
    check(reply_text(driver) == shown, "text kept arriving after Stop")
    check("word600" not in shown, "the whole answer arrived before Stop")
    check("Stopped" in driver.find_element(By.ID, "status").text, "the status line does not say it stopped")
    driver.save_screenshot(str(SHOTS / "test_stop_mid_stream.png"))
    # The service stops a Griot turn whose client hung up after its resume grace (10 s).
    current = driver.find_elements(By.CSS_SELECTOR, "#sessions li button[aria-current]")
    check(current, "the stopped conversation is not marked current in the list")
    session_id = current[0].find_element(By.XPATH, "..").get_attribute("data-session")
    deadline = time.time() + 30
    stored = None
    while time.time() < deadline:
        status, detail, _ = call("GET", f"/api/griot/sessions/{session_id}")
        stored = [m for m in (detail or {}).get("messages", []) if m["role"] == "assistant"]
        if stored and stored[-1]["status"] == "stopped":
            break
        time.sleep(0.5)
    check(stored and stored[-1]["status"] == "stopped", f"the service did not store the reply as stopped: {stored and stored[-1]['status']}")
    check(stored[-1]["content"].startswith(shown.strip()[:40]), "the stored reply is not the one shown")
    check("word600" not in stored[-1]["content"], "the stored reply is the whole answer")
    # The Griot has no stop route: the service stops a turn whose client hung up only after its
    # resume grace, so the stored text runs on past what the page showed. Measured, not hidden.
    print(f"    words shown at Stop: {len(shown.split())}; words stored: {len(stored[-1]['content'].split())}")


def test_open_citation(driver):
    """A citation opens its story at the quoted passage, with the moment the recording plays it."""
    sign_in(driver)
    driver.find_element(By.ID, "new-session").click()
    ask(driver, GROUNDED_QUESTION)
    reply = wait_reply_done(driver)
    # What the stream sent for this citation, read back from the page's own list.
    source = reply.find_element(By.CSS_SELECTOR, ".citations li")
    story_id = source.get_attribute("data-story")
    quote = source.find_element(By.CSS_SELECTOR, "q").text
    reply.find_element(By.CSS_SELECTOR, "button.cite").click()
    dialog = driver.find_element(By.ID, "story")
    wait(driver, lambda d: dialog.is_displayed(), 5, "the story did not open")
    check(dialog.get_attribute("data-story") == story_id == "carter-sweet-potato-pie", f"the wrong story opened: {dialog.get_attribute('data-story')}")
    seconds = float(dialog.get_attribute("data-start-seconds"))
    check(seconds == 298, f"the passage's start time is {seconds}, not 298 s")
    check("4:58" in driver.find_element(By.ID, "story-time").text, f"the time shown is {driver.find_element(By.ID, 'story-time').text!r}")
    check(driver.find_element(By.CSS_SELECTOR, "#story-quote mark").text == quote, "the quoted passage is not the one highlighted")
    check("Ida Mae" in driver.find_element(By.ID, "story-title").text, "the story's title is not shown")
    check("t=298" in driver.current_url and "story=carter-sweet-potato-pie" in driver.current_url, f"the address does not name the passage: {driver.current_url}")
    check(driver.switch_to.active_element.get_attribute("id") == "story-close", "focus did not move into the story")
    driver.save_screenshot(str(SHOTS / "test_open_citation.png"))
    driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait(driver, lambda d: not dialog.is_displayed(), 5, "Escape did not close the story")


def test_model_html_runs_nothing(driver):
    """A reply holding <script>, an onerror attribute and a javascript: link is shown as text and runs nothing."""
    sign_in(driver)
    driver.find_element(By.ID, "new-session").click()
    driver.execute_script("delete window.__griotXSS")
    ask(driver, TRICK_QUESTION)
    reply = wait_reply_done(driver)
    time.sleep(0.5)  # an injected handler would have fired by now
    check(no_alert(driver) is None, no_alert(driver) or "")
    check(driver.execute_script("return typeof window.__griotXSS") == "undefined",
          f"page script ran: window.__griotXSS = {driver.execute_script('return window.__griotXSS')!r}")
    messages = driver.find_element(By.ID, "messages")
    check(messages.find_elements(By.TAG_NAME, "script") == [], "a <script> element was inserted")
    check(messages.find_elements(By.TAG_NAME, "img") == [], "an <img> element was inserted")
    check(driver.execute_script("return document.querySelectorAll('[onerror], [onclick], [onload]').length") == 0,
          "an element carries an inline event handler attribute")
    check(driver.execute_script("return [...document.links].filter(a => !/^https?:/.test(a.href)).length") == 0,
          "a link with a scheme other than http(s) is in the page")
    text = reply.find_element(By.CSS_SELECTOR, ".content").text
    check("<script>window.__griotXSS" in text, f"the <script> text is not shown as text: {text[:200]!r}")
    check("onerror=" in text, "the onerror attribute is not shown as text")
    unsafe = reply.find_elements(By.CSS_SELECTOR, ".md-unsafe-link")
    check(len(unsafe) == 1 and unsafe[0].text == "Open the archive", f"the javascript: link's words are not kept as plain text: {text[-220:]!r}")
    safe = reply.find_elements(By.CSS_SELECTOR, ".content a")
    check(len(safe) == 1 and safe[0].get_attribute("href") == "https://example.org/archive", "the https link is not a link")
    check(reply.find_elements(By.CSS_SELECTOR, ".content strong")[0].text == "nothing else", "Markdown emphasis is not rendered")
    # Clicking where the javascript: link would have been does nothing either.
    unsafe[0].click()
    time.sleep(0.3)
    check(no_alert(driver) is None and driver.execute_script("return typeof window.__griotXSS") == "undefined", "clicking the link ran script")
    # The groundedness stage flagged this reply: the page says so on it.
    flag = reply.find_elements(By.CSS_SELECTOR, "[data-flag=low_groundedness]")
    check(flag and flag[0].text.strip() == "AI may be inaccurate.", f"the low-groundedness flag is not shown on the reply once: {flag and flag[0].text!r}")
    driver.save_screenshot(str(SHOTS / "test_model_html_runs_nothing.png"))


def test_crisis_reply(driver):
    """A message about self-harm gets the crisis reply, shown as an alert with its resources, never a model's answer."""
    sign_in(driver)
    driver.find_element(By.ID, "new-session").click()
    ask(driver, "I want to kill myself tonight")
    reply = wait_reply_done(driver)
    check("crisis" in (reply.get_attribute("class") or ""), "the reply is not marked as the crisis reply")
    check(reply.get_attribute("role") == "alert", "the crisis reply is not an alert")
    check("988" in reply.text, f"the crisis resources are not shown: {reply.text[:200]!r}")
    links = [a.get_attribute("href") for a in reply.find_elements(By.CSS_SELECTOR, ".crisis-links a")]
    check(links == ["https://988lifeline.org/", "https://findahelpline.com/"], f"the helpline links: {links}")
    badge = reply.find_element(By.CSS_SELECTOR, ".badge").text
    check(badge == "Prepared reply, not AI-generated", f"the crisis template is badged {badge!r}")
    driver.save_screenshot(str(SHOTS / "test_crisis_reply.png"))


def test_keyboard_only_ask(driver):
    """From a fresh load, the keyboard alone reaches the question box, asks, and every stop on the way shows its focus."""
    sign_in(driver)
    open_page(driver)
    seen = []
    for _ in range(40):
        webdriver.ActionChains(driver).send_keys(Keys.TAB).perform()
        active = driver.switch_to.active_element
        name = active.get_attribute("id") or active.tag_name + "." + (active.get_attribute("class") or "")
        if active.tag_name == "body":
            continue  # the document itself, between the browser's own stops and the page's
        outline = driver.execute_script("const s = getComputedStyle(arguments[0]); return [s.outlineStyle, parseFloat(s.outlineWidth)]", active)
        seen.append(name)
        check(outline[0] != "none" and outline[1] >= 2, f"{name} has no visible focus outline ({outline})")
        if active.get_attribute("id") == "question":
            break
    check("skip" in seen[0], f"the first stop is not the skip link: {seen[0]}")
    check(seen[-1] == "question", f"Tab never reached the question box: {seen}")
    # The skip link does it in one step.
    open_page(driver)
    driver.execute_script("document.activeElement.blur()")
    for _ in range(3):
        webdriver.ActionChains(driver).send_keys(Keys.TAB).perform()
        if driver.switch_to.active_element.tag_name != "body":
            break
    check("skip" in (driver.switch_to.active_element.get_attribute("class") or ""), "Tab does not start at the skip link")
    webdriver.ActionChains(driver).send_keys(Keys.ENTER).perform()
    wait(driver, lambda d: d.switch_to.active_element.get_attribute("id") == "question", 3, "the skip link does not move focus to the question")
    webdriver.ActionChains(driver).send_keys(GROUNDED_QUESTION).send_keys(Keys.ENTER).perform()
    reply = wait_reply_done(driver)
    check(reply.get_attribute("data-status") == "complete", "the keyboard-asked reply did not complete")
    check(driver.switch_to.active_element.get_attribute("id") == "question", "focus left the question box after the answer")
    # Tab on from the box: Ask, then Stop is skipped (disabled), so focus reaches the sources list by Shift+Tab.
    webdriver.ActionChains(driver).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()
    driver.save_screenshot(str(SHOTS / "test_keyboard_only_ask.png"))
    print(f"    tab stops to the question box: {len(seen)} ({', '.join(seen)})")


def test_narrow_screen_no_horizontal_scroll(driver):
    """At 320 CSS pixels the sign-in page, a conversation and an open story fit the width."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 320, "height": 720, "deviceScaleFactor": 1, "mobile": True})
    try:
        overflow = "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        open_page(driver)
        driver.execute_script("sessionStorage.clear()")
        open_page(driver)
        width, client = driver.execute_script(overflow)
        check(client == 320, f"the viewport is {client} px wide, not 320")
        check(width <= client, f"the sign-in page scrolls sideways: {width} > {client}")
        sign_in(driver)
        driver.find_element(By.ID, "new-session").click()
        ask(driver, GROUNDED_QUESTION)
        wait_reply_done(driver)
        ask(driver, TRICK_QUESTION)
        wait_reply_done(driver)
        width, client = driver.execute_script(overflow)
        check(width <= client, f"the conversation scrolls sideways: {width} > {client}")
        driver.execute_script("window.scrollTo(0, 0)")
        driver.save_screenshot(str(SHOTS / "test_narrow_screen_no_horizontal_scroll.png"))
        driver.find_elements(By.CSS_SELECTOR, "#messages button.cite")[0].click()
        width, client = driver.execute_script(overflow)
        check(width <= client, f"the open story scrolls sideways: {width} > {client}")
        driver.save_screenshot(str(SHOTS / "test_narrow_screen_no_horizontal_scroll-story.png"))
        driver.find_element(By.ID, "story-close").click()
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_markdown_renderer(driver):
    """markdown.js, in the page: lists, code, emphasis, headings and links, and only http(s) links are links."""
    sign_in(driver)
    result = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        import('/assets/markdown.js').then(({ renderMarkdown, safeHref }) => {
            const box = document.createElement('div');
            box.append(renderMarkdown([
                '## Heading', '', 'Para *em* and **strong** and `x<y>` [go](https://example.org/a?b=1) [bad](JaVaScRiPt:alert(1)) [d](data:text/html,x)',
                '', '- one', '- two', '  - nested', '', '1. first', '2. second', '', '```js', '<b>not bold</b>', '```', '', '> quoted <i>text</i>',
                '', 'line <img src=x onerror=alert(1)> end https://example.com/x.',
            ].join('\\n')));
            done({
                tags: [...box.querySelectorAll('*')].map(e => e.tagName.toLowerCase()),
                links: [...box.querySelectorAll('a')].map(a => a.href),
                code: box.querySelector('pre code').textContent,
                text: box.textContent,
                safe: [safeHref('https://x.org'), safeHref('java\\tscript:alert(1)'), safeHref('vbscript:x'), safeHref('/relative')],
            });
        }).catch(e => done({ error: String(e) }));
    """)
    check("error" not in result, f"markdown.js did not load: {result.get('error')}")
    tags = result["tags"]
    for tag in ("h4", "p", "em", "strong", "code", "ul", "ol", "li", "pre", "blockquote", "a"):
        check(tag in tags, f"no <{tag}> rendered: {tags}")
    check(not {"img", "script", "b", "i"} & set(tags), f"model HTML became elements: {tags}")
    check(result["links"] == ["https://example.org/a?b=1", "https://example.com/x"], f"links: {result['links']}")
    check(result["code"] == "<b>not bold</b>", f"code: {result['code']!r}")
    check("<img src=x onerror=alert(1)>" in result["text"], "the <img> text is not kept as text")
    check(result["safe"] == ["https://x.org/", None, None, None], f"safeHref: {result['safe']}")
    check(no_alert(driver) is None, "an alert opened")


def test_report_a_reply(driver):
    """Report this reply opens a ticket in the review queue."""
    sign_in(driver)
    driver.find_element(By.ID, "new-session").click()
    ask(driver, GROUNDED_QUESTION)
    reply = wait_reply_done(driver)
    message_id = reply.get_attribute("data-id")
    reply.find_element(By.XPATH, ".//button[normalize-space()='Report this reply']").click()
    form = reply.find_element(By.CSS_SELECTOR, "form.report")
    check(driver.switch_to.active_element.tag_name == "select", "focus did not move to the reason")
    form.find_element(By.CSS_SELECTOR, "select option[value=inaccurate]").click()
    form.find_element(By.CSS_SELECTOR, "textarea").send_keys("The pie had nutmeg, not this.")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait(driver, lambda d: "A person will review" in last_reply(d).text, 10, "no confirmation after reporting")
    driver.save_screenshot(str(SHOTS / "test_report_a_reply.png"))
    if OPERATOR:
        status, queue, _ = call("GET", "/api/ops/reviews?limit=50", token=OPERATOR)
        check(status == 200, f"the review queue answered {status}")
        tickets = queue.get("tickets", queue.get("reviews", [])) if isinstance(queue, dict) else queue
        check(any(message_id in json.dumps(ticket) for ticket in tickets), f"no ticket names message {message_id}")


def test_coaching_thread(driver):
    """A course's thread: send, see the coach's reply, edit and delete one's own message."""
    sign_in(driver)
    driver.find_element(By.ID, "mode-coach").click()
    driver.find_element(By.XPATH, "//ul[@id='courses']//button[normalize-space()='Course course-7']").click()
    wait(driver, lambda d: "course-7" in d.find_element(By.ID, "conversation-title").text, 10, "the course's thread did not open")
    ask(driver, "This week I want to practise saying no.")
    reply = wait_reply_done(driver)
    check(reply.get_attribute("data-status") == "complete", f"the coach's reply ended {reply.get_attribute('data-status')}")
    check("Coach" in reply.find_element(By.CSS_SELECTOR, ".author").text, "the reply is not the coach's")
    mine = wait(driver, lambda d: [n for n in d.find_elements(By.CSS_SELECTOR, "#messages li.mine") if n.find_elements(By.CSS_SELECTOR, ".tools")],
                10, "my message has no Edit and Delete")[-1]
    mine.find_element(By.XPATH, ".//button[normalize-space()='Edit']").click()
    box = driver.switch_to.active_element
    box.clear()
    box.send_keys("This week I want to practise saying no kindly.")
    mine.find_element(By.XPATH, ".//button[normalize-space()='Save']").click()
    wait(driver, lambda d: any("saying no kindly" in n.text and "Edited" in n.text for n in d.find_elements(By.CSS_SELECTOR, "#messages li.mine")),
         10, "the edit was not saved")
    driver.save_screenshot(str(SHOTS / "test_coaching_thread.png"))
    edited = [n for n in driver.find_elements(By.CSS_SELECTOR, "#messages li.mine") if "kindly" in n.text][-1]
    edited_id = edited.get_attribute("data-id")
    edited.find_element(By.XPATH, ".//button[normalize-space()='Delete']").click()
    driver.switch_to.alert.accept()
    wait(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, f"#messages li[data-id='{edited_id}']"), 10, "the message was not removed")
    # Reloading the thread shows it gone (the scrollback comes from the service).
    driver.find_element(By.XPATH, "//ul[@id='courses']//button[normalize-space()='Course course-7']").click()
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#messages li.reply"), 10, "the thread did not reload")
    check(not driver.find_elements(By.CSS_SELECTOR, f"#messages li[data-id='{edited_id}']"), "the deleted message came back")


def test_page_policy(driver):
    """The page and its assets carry the strict policy; the HTML holds no inline script or style."""
    for path in ("/chat", "/assets/chat.js", "/assets/chat.css"):
        with urllib.request.urlopen(f"{URL}{path}", timeout=10) as response:
            policy = response.headers["Content-Security-Policy"]
            check("script-src 'self'" in policy and "'unsafe-inline'" not in policy and "default-src 'none'" in policy,
                  f"{path}: {policy}")
            check(response.headers["Cache-Control"] == "no-cache" and response.headers["ETag"], f"{path}: caching headers missing")
            text = response.read().decode()
        if path == "/chat":
            import re
            check(not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", text), "an inline <script>")
            check(" style=" not in text and "<style" not in text, "an inline style")
            check(not re.search(r"\son\w+=", text), "an inline event handler")
    for path in ("/assets/nope.js", "/assets/../Package.swift", "/assets/%2e%2e/openapi.yaml"):
        try:
            urllib.request.urlopen(f"{URL}{path}", timeout=10)
            raise AssertionError(f"{path} was served")
        except urllib.error.HTTPError as error:
            check(error.code == 404, f"{path}: {error.code}")
    status, _, headers = call("GET", "/api/griot/sessions")
    check(headers.get("Content-Security-Policy") == "default-src 'none'; frame-ancestors 'none'", "the JSON routes' policy changed")
    # And the browser reports no policy violation while the page runs.
    sign_in(driver)
    violations = [entry for entry in driver.get_log("browser") if "Content Security Policy" in entry.get("message", "")]
    check(not violations, f"the page broke its own policy: {violations[:3]}")


TESTS = [test_sign_in, test_streams_an_answer, test_stop_mid_stream, test_open_citation, test_model_html_runs_nothing,
         test_crisis_reply, test_keyboard_only_ask, test_narrow_screen_no_horizontal_scroll, test_markdown_renderer, test_report_a_reply,
         test_coaching_thread, test_page_policy]


def run(tests, filters, fallback_shot):
    """Runs the tests whose names hold one of `filters` (all without filters) in one browser, and
    reports each. `fallback_shot(test, started)` names the file for the page as a test left it
    when the test saved no screenshot of its own (None when it did), so every test leaves one."""
    selected = [test for test in tests if not filters or any(f in test.__name__ for f in filters)]
    if not selected:
        return 0
    driver = browser()
    failed = 0
    try:
        for test in selected:
            started = time.time()
            try:
                test(driver)
                print(f"PASS {test.__name__} ({time.time() - started:.1f} s)", flush=True)
            except Exception as error:  # noqa: BLE001 - a test's failure of any kind is reported
                failed += 1
                reason = str(error) or type(error).__name__
                print(f"FAIL {test.__name__}: {reason}", flush=True)
                if not isinstance(error, (AssertionError, TimeoutException)):
                    traceback.print_exc()
                try:
                    driver.switch_to.alert.dismiss()
                except NoAlertPresentException:
                    pass
            finally:
                try:
                    path = fallback_shot(test, started)
                    if path is not None:
                        driver.save_screenshot(str(path))
                except Exception:  # noqa: BLE001 - a screenshot is a help, not the test
                    pass
    finally:
        driver.quit()
    print(f"{len(selected) - failed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


def main(filters):
    def fallback(test, started):
        # The one the test took at its point, else the page as it ended.
        shot = SHOTS / f"{test.__name__}.png"
        return shot if not shot.exists() or shot.stat().st_mtime < started else None
    return run(TESTS, filters, fallback)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
