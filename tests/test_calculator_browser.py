"""The calculator and serve pages in a real browser: headless Chromium driven by selenium.

Skipped when Chromium, its driver or selenium are absent (``.ci/run`` installs them).
Expected numbers are mpmath's (tests/calculator_support.py) and ``symattn sweep``'s.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any, Iterator

import pytest

from calculator_support import (four_digits, mp_mean_entropy, mp_weights, page_data,
                                spec_matrices)
from cli_support import run
from symattn.cli.app import main

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(not (CHROMIUM and DRIVER),
                                reason="headless Chromium and chromedriver are not installed")
EXAMPLE = "003-calculator-six-tokens"
SHOTS = Path(tempfile.gettempdir()) / "symattn-calculator-shots"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--window-size=1200,1000"):
        options.add_argument(flag)
    profile = tempfile.mkdtemp(prefix="symattn-chromium-")
    options.add_argument(f"--user-data-dir={profile}")
    options.binary_location = str(CHROMIUM)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(DRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def page_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("calc") / "calculator.html"
    assert main(["calculator", "--example", EXAMPLE, "-o", str(out)]) == 0
    return out


def _console_errors(driver: Any) -> list[dict[str, Any]]:
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def _requests(driver: Any) -> list[str]:
    """Every resource the page asked for after the document itself."""
    names: list[str] = driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)")
    return names


def _mean(driver: Any) -> str:
    text: str = driver.find_element(By.CSS_SELECTOR, "[data-shows=mean]").text
    return text


def test_the_page_loads_nothing_and_logs_no_error(browser: Any, page_file: Path) -> None:
    browser.get(page_file.as_uri())
    assert _requests(browser) == []
    assert _console_errors(browser) == []
    SHOTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(SHOTS / "calculator.png"))


def test_arrow_keys_show_precomputed_values_equal_to_sweep_and_mpmath(
        browser: Any, page_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    browser.get(page_file.as_uri())
    slider = browser.find_element(By.CSS_SELECTOR, "[data-control=t]")
    assert _mean(browser) == "0.3417"              # the spec's own T = 0.3
    slider.send_keys(Keys.HOME)
    slider.send_keys(*[Keys.ARROW_RIGHT] * 19)     # 0.1 -> 2.0
    assert browser.find_element(By.CSS_SELECTOR, "[data-shows=t]").text == "2"
    assert slider.get_attribute("aria-valuetext") == "T = 2"
    status, out, _ = run(capsys, "sweep", "--example", EXAMPLE, "-T", "2", "--format", "json")
    assert status == 0
    swept = json.loads(out)["sweeps"][0]["temperatures"][0]
    q, k = spec_matrices()
    weights = mp_weights(q, k, "2", 6)
    assert _mean(browser) == swept["mean_entropy"] == four_digits(mp_mean_entropy(weights))
    cell = browser.find_element(By.CSS_SELECTOR, 'td[data-i="0"][data-j="1"]')
    assert cell.text == four_digits(weights[0][1])
    entropies = [c.text for c in browser.find_elements(By.CSS_SELECTOR, "td[data-h]")]
    assert entropies == swept["entropy"]


def test_the_switches_select_other_states(browser: Any, page_file: Path) -> None:
    browser.get(page_file.as_uri())
    q, k = spec_matrices()
    browser.find_element(By.CSS_SELECTOR, "[data-control=masked]").send_keys(Keys.SPACE)
    assert _mean(browser) == four_digits(mp_mean_entropy(mp_weights(q, k, "0.3", 6, True)))
    future = browser.find_element(By.CSS_SELECTOR, 'td[data-i="0"][data-j="1"]')
    assert future.text == "0" and future.get_attribute("class") == "w-1"    # masked: hatched
    browser.find_element(By.CSS_SELECTOR, "[data-control=scaled]").send_keys(Keys.SPACE)
    assert _mean(browser) == four_digits(mp_mean_entropy(mp_weights(q, k, "0.3", None, True)))
    d_k = browser.find_element(By.CSS_SELECTOR, "[data-control=d]")
    assert "no scaling" in browser.find_element(By.CSS_SELECTOR, "[data-shows=d]").text
    browser.find_element(By.CSS_SELECTOR, "[data-control=scaled]").send_keys(Keys.SPACE)
    d_k.send_keys(Keys.HOME)                       # d_k = 1
    assert _mean(browser) == four_digits(mp_mean_entropy(mp_weights(q, k, "0.3", 1, True)))


def test_the_keyboard_reaches_every_control(browser: Any, page_file: Path) -> None:
    browser.get(page_file.as_uri())
    controls = {e.get_attribute("id") for e in
                browser.find_elements(By.CSS_SELECTOR, "[data-control]")}
    assert len(controls) == 4
    reached = set()
    body = browser.find_element(By.TAG_NAME, "body")
    body.click()
    for _ in range(10):
        browser.switch_to.active_element.send_keys(Keys.TAB)
        reached.add(browser.switch_to.active_element.get_attribute("id"))
    assert controls <= reached
    for control in browser.find_elements(By.CSS_SELECTOR, "[data-control]"):
        label = browser.find_elements(By.CSS_SELECTOR,
                                      f'label[for="{control.get_attribute("id")}"]')
        assert label and label[0].text.strip()
    assert browser.find_element(By.CSS_SELECTOR, ".mean").get_attribute("aria-live") == "polite"


def test_a_hostile_title_and_token_stay_text(browser: Any, tmp_path: Path) -> None:
    spec = tmp_path / "hostile.toml"
    spec.write_text('title = "<img src=x onerror=\\"window.hacked=1\\">"\n'
                    'tokens = ["<script>window.hacked=2</script>", "b"]\n'
                    "[inputs]\nQ = [[1, 0], [0, 1]]\nK = [[1, 0], [0, 1]]\n"
                    "V = [[1], [2]]\n", encoding="utf-8")
    out = tmp_path / "hostile.html"
    assert main(["calculator", str(spec), "-T", "1,2", "--d-k", "2", "-o", str(out)]) == 0
    browser.get(out.as_uri())
    assert browser.execute_script("return window.hacked === undefined")
    assert browser.find_element(By.TAG_NAME, "h1").text == '<img src=x onerror="window.hacked=1">'
    heads = [h.text for h in browser.find_elements(By.CSS_SELECTOR, "th[scope=col]")]
    assert "1 <script>window.hacked=2</script>" in heads
    assert _console_errors(browser) == []


@pytest.fixture()
def served() -> Iterator[str]:
    from symattn.cli.app import build_parser
    from symattn.cli.serve import make_server

    httpd = make_server(build_parser().parse_args(["serve", "--example", EXAMPLE,
                                                   "--port", "0"]))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


def _submit(browser: Any, old: Any, use: str = "form") -> None:
    """Press Recompute and wait until the answer has replaced the page."""
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    browser.find_element(By.CSS_SELECTOR, f'button[value="{use}"]').click()
    WebDriverWait(browser, 60).until(expected_conditions.staleness_of(old))
    WebDriverWait(browser, 60).until(
        lambda driver: driver.execute_script("return document.readyState") == "complete")


def test_serve_answers_an_edited_matrix_in_the_browser(browser: Any, served: str) -> None:
    browser.get(served)
    assert _console_errors(browser) == []
    browser.find_element(By.CSS_SELECTOR, "details.advanced summary").click()
    area = browser.find_element(By.ID, "spec")
    area.clear()
    area.send_keys("[inputs]\nQ = [[3, 1]]\nK = [[1, 0], [0, 1], [1, 1]]\nV = [[1], [2], [3]]\n"
                   "[options]\ntemperature = 2\n")
    _submit(browser, area, "spec")
    weights = mp_weights([["3", "1"]], [["1", "0"], ["0", "1"], ["1", "1"]], "2", 2)[0]
    cells = [c.text for c in browser.find_elements(By.CSS_SELECTOR, "td[data-i]")]
    assert cells == [four_digits(w) for w in weights]
    assert _console_errors(browser) == []
    SHOTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(SHOTS / "serve.png"))
    # the form's matrix field, edited: Q's row is now 1 2 (weights by mpmath)
    field = browser.find_element(By.ID, "m-Q")
    field.clear()
    field.send_keys("1, 2")
    _submit(browser, field)
    weights = mp_weights([["1", "2"]], [["1", "0"], ["0", "1"], ["1", "1"]], "2", 2)[0]
    cells = [c.text for c in browser.find_elements(By.CSS_SELECTOR, "td[data-i]")]
    assert cells == [four_digits(w) for w in weights]
    field = browser.find_element(By.ID, "m-Q")
    field.clear()
    field.send_keys("<b>1</b> 0")
    _submit(browser, field)
    assert browser.execute_script("return document.querySelectorAll('main b').length") == 0
    assert browser.find_element(By.ID, "m-Q").get_attribute("value") == "<b>1</b> 0"
    browser.find_element(By.CSS_SELECTOR, "details.advanced summary").click()
    area = browser.find_element(By.ID, "spec")
    area.clear()
    area.send_keys("[inputs]\nQ = [[1, 0]]\n")
    _submit(browser, area, "spec")
    alert = browser.find_element(By.CSS_SELECTOR, "[role=alert]")
    assert "cannot be used" in alert.text


_CONTROLS = "input:not([type=hidden]), textarea, select, button"


def _control_name(browser: Any, element: Any) -> str:
    """What a screen reader names a control: its label's text, a button its own text."""
    return str(browser.execute_script(
        "const e = arguments[0];"
        "if (e.tagName === 'BUTTON') return e.textContent.trim();"
        "return e.labels && e.labels.length ? e.labels[0].textContent.trim() :"
        " (e.getAttribute('aria-label') || '')", element))


def test_the_keyboard_reaches_every_control_of_serve(browser: Any, served: str) -> None:
    browser.get(served)
    controls = browser.find_elements(By.CSS_SELECTOR, _CONTROLS)
    assert len(controls) >= 12          # the matrices, the options, the spec, the sliders
    for control in controls:
        assert _control_name(browser, control), control.get_attribute("outerHTML")[:120]
    reached: list[Any] = []
    browser.find_element(By.TAG_NAME, "body").click()
    for _ in range(2000):               # every number of the page is a stop too
        browser.switch_to.active_element.send_keys(Keys.TAB)
        active = browser.switch_to.active_element
        if active.tag_name == "summary" and active.get_attribute("data-opened") is None:
            # the advanced part is folded: Enter opens it, as a keyboard user does
            browser.execute_script("arguments[0].setAttribute('data-opened', '')", active)
            active.send_keys(Keys.ENTER)
        if active in reached[:1]:
            break
        if active.tag_name in ("input", "textarea", "select", "button"):
            reached.append(active)
    # every control, each once, in the order the page shows them
    assert reached == controls


def test_page_data_is_what_the_table_starts_with(browser: Any, page_file: Path) -> None:
    # the static table (what a reader without JavaScript sees) is the spec's own state
    data = page_data(page_file.read_text(encoding="utf-8"))
    state = data["settings"]["scaled-6-plain"]["states"][2]  # type: ignore[index]
    browser.get(page_file.as_uri())
    cells = [c.text for c in browser.find_elements(By.CSS_SELECTOR, 'td[data-i="0"]')]
    assert cells == state["w"][0]
