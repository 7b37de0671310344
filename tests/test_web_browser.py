"""The HTML pages in a real browser (headless Chromium driven by selenium).

Each page loads with no network request and no console error, its MathML is
laid out (a ``<math>`` element has a size), a hostile title stays text, and a
number reached with the Tab key shows its exact form. Skipped when Chromium,
its driver or selenium are missing (``.ci/run`` installs them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.browser_support import BROWSER, DRIVER, chromium
from tests.html_support import HOSTILE_TITLE, hostile_spec

pytest.importorskip("selenium.webdriver")
pytestmark = pytest.mark.skipif(not (BROWSER and DRIVER), reason="chromium is not installed")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as driver:
        yield driver


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("pages")
    spec = hostile_spec(folder)
    commands = {
        "derive": ["derive", "--example", "000-cat-chases-mouse"],
        "check": ["check", "--example", "004-cat-eats-fish"],
        "hostile": ["derive", str(spec)],
        "sweep": ["sweep", "--example", "003-entropy-temperature"],
        "kvcache": ["kvcache", "--example", "000-cat-chases-mouse"],
    }
    made = {}
    from symattn.cli.app import main

    for name, argv in commands.items():
        target = folder / f"{name}.html"
        status = main([*argv, "-f", "html", "-o", str(target)])
        assert status in (0, 1), name
        made[name] = target
    return made


def _load(browser: Any, page: Path) -> None:
    browser.get(page.as_uri())
    browser.get_log("browser")      # start each page with an empty log


def test_pages_fetch_nothing_and_log_no_error(browser: Any, pages: dict[str, Path]) -> None:
    for name, page in pages.items():
        browser.get(page.as_uri())
        resources = browser.execute_script(
            "return performance.getEntriesByType('resource').map(e => e.name)")
        assert resources == [], name
        errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
        assert errors == [], (name, errors)


def test_mathml_is_laid_out(browser: Any, pages: dict[str, Path]) -> None:
    _load(browser, pages["derive"])
    sizes = browser.execute_script(
        "return [...document.querySelectorAll('math')].map(m => {"
        "const r = m.getBoundingClientRect(); return [r.width, r.height]; })")
    assert len(sizes) > 10
    assert all(width > 0 and height > 0 for width, height in sizes)
    # a fraction is set as one: taller than a line of its own text
    fraction = browser.execute_script(
        "const m = document.querySelector('mfrac').closest('math');"
        "return m.getBoundingClientRect().height")
    assert fraction > 25


def test_a_hostile_title_stays_text(browser: Any, pages: dict[str, Path]) -> None:
    _load(browser, pages["hostile"])
    assert browser.title == HOSTILE_TITLE
    assert browser.execute_script("return document.querySelectorAll('script, img').length") == 0
    assert browser.execute_script("return document.querySelector('h1').textContent") == \
        HOSTILE_TITLE


def test_the_keyboard_reaches_a_number_and_sees_its_exact_form(browser: Any,
                                                                pages: dict[str, Path]) -> None:
    from selenium.webdriver.common.keys import Keys

    _load(browser, pages["hostile"])
    browser.find_element("tag name", "body").send_keys(Keys.TAB)
    focused = browser.execute_script("return document.activeElement")
    assert focused.get_attribute("class") == "num"
    # the tip is the element's accessible description, and it shows on focus
    described = browser.execute_script(
        "const a = document.activeElement; const t = document.getElementById("
        "a.getAttribute('aria-describedby')); const r = t.getBoundingClientRect();"
        "return [a.contains(t), t.textContent, r.width, r.height]")
    assert described[0] and "exact" in described[1] and "certain" in described[1]
    assert described[2] > 20 and described[3] > 10


def test_the_keyboard_reaches_a_number_of_a_sweep_and_hears_its_tip(
        browser: Any, pages: dict[str, Path], tmp_path: Path) -> None:
    import mpmath
    from selenium.webdriver.common.keys import Keys

    _load(browser, pages["sweep"])
    browser.find_element("tag name", "body").send_keys(Keys.TAB)
    focused = browser.execute_script(
        "const a = document.activeElement; const t = document.getElementById("
        "a.getAttribute('aria-describedby')); const r = t.getBoundingClientRect();"
        "return [a.tagName, a.closest('table').className, a.contains(t), t.textContent,"
        " r.width, r.height]")
    assert focused[:3] == ["TD", "report", True]
    # the first number is H_max of row 1: log2 6 of the six keys (the page is in Russian)
    mpmath.mp.dps = 30
    digits = mpmath.nstr(mpmath.log(6, 2), 15).replace(".", ",")
    assert focused[3] == f"точно: log(6)/log(2)\n15 значащих цифр, все верные: {digits}"
    assert focused[4] > 20 and focused[5] > 10          # shown on focus, not only read
    # the next Tab reaches the next number of the row
    browser.switch_to.active_element.send_keys(Keys.TAB)
    assert browser.execute_script("return document.activeElement.closest('tr').rowIndex") == 1
    assert browser.save_screenshot(str(tmp_path / "sweep-focus.png"))


def test_screenshots(browser: Any, pages: dict[str, Path], tmp_path: Path) -> None:
    """Screenshots of a derive and a check page (tests/regen_gallery_html.py keeps
    them in docs/gallery)."""
    for name in ("derive", "check"):
        _load(browser, pages[name])
        target = tmp_path / f"{name}.png"
        assert browser.save_screenshot(str(target))
        assert target.stat().st_size > 10_000


def test_pages_fit_the_window(browser: Any, pages: dict[str, Path]) -> None:
    """Long verdict words and reasons wrap: nothing runs past a 1000-pixel window."""
    for name in ("derive", "check"):
        _load(browser, pages[name])
        width = browser.execute_script("return document.documentElement.scrollWidth")
        assert width <= browser.execute_script("return window.innerWidth"), name
