"""symattn calculator and symattn serve, without a browser: numbers, escaping, bounds.

Expected numbers come from mpmath (tests/calculator_support.py), computed from the
spec's matrices read with tomllib; the browser tests are tests/test_calculator_browser.py.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import html5lib
import mpmath
import pytest

from calculator_support import (four_digits, mp_mean_entropy, mp_weights, page_data,
                                spec_matrices)
from cli_support import assert_one_line_error, run
from symattn.cli.recompute import TimedOut, bounded, recompute
from symattn.render.web.calculator_data import script_json

EXAMPLE = "003-calculator-six-tokens"


@pytest.fixture(scope="module")
def six_token_page(tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("calc") / "page.html"
    from symattn.cli.app import main

    assert main(["calculator", "--example", EXAMPLE, "-o", str(out)]) == 0
    return out.read_text(encoding="utf-8")


def test_six_tokens_make_seed_003_statements_true_by_mpmath() -> None:
    q, k = spec_matrices()
    sharp = mp_mean_entropy(mp_weights(q, k, "0.3", 6))
    flat = mp_mean_entropy(mp_weights(q, k, "2", 6))
    assert sharp < mpmath.mpf("0.5")
    assert abs(flat - mpmath.log(6, 2)) < mpmath.mpf("0.1")


def test_the_page_holds_mpmath_numbers_at_every_temperature(six_token_page: str) -> None:
    data = page_data(six_token_page)
    q, k = spec_matrices()
    setting = data["settings"]["scaled-6-plain"]  # type: ignore[index]
    temperatures = data["temperatures"]  # type: ignore[index]
    assert temperatures[0] == "0.1" and temperatures[-1] == "3" and len(temperatures) == 30
    for t_index in (2, 9, 19, 29):      # T = 0.3, 1, 2, 3
        t = temperatures[t_index]
        weights = mp_weights(q, k, t, 6)
        state = setting["states"][t_index]
        assert state["w"] == [[four_digits(w) for w in row] for row in weights]
        assert state["mean"] == four_digits(mp_mean_entropy(weights))
    causal = mp_weights(q, k, "0.3", 4, causal=True)
    masked = data["settings"]["scaled-4-masked"]["states"][2]  # type: ignore[index]
    assert masked["mean"] == four_digits(mp_mean_entropy(causal))
    plain = data["settings"]["plain-plain"]["states"][19]  # type: ignore[index]
    assert plain["mean"] == four_digits(mp_mean_entropy(mp_weights(q, k, "2", None)))


def test_the_page_equals_symattn_sweep(six_token_page: str, capsys: pytest.CaptureFixture[str]
                                       ) -> None:
    status, out, _ = run(capsys, "sweep", "--example", EXAMPLE, "-T", "0.3,1,2",
                         "--format", "json")
    assert status == 0
    sweep = json.loads(out)["sweeps"][0]
    data = page_data(six_token_page)
    setting = data["settings"]["scaled-6-plain"]  # type: ignore[index]
    assert sweep["entropy_max"] == setting["hmax"]
    states = setting["states"]
    for row, index in zip(sweep["temperatures"], (2, 9, 19)):
        assert row["temperature"] == data["temperatures"][index]  # type: ignore[index]
        assert row["mean_entropy"] == states[index]["mean"]
        assert row["entropy"] == states[index]["h"]


def test_the_page_states_its_grid_and_size_and_parses_cleanly(six_token_page: str) -> None:
    assert "T from 0.1 to 3 (30 values)" in six_token_page
    assert "1, 2, 4, 6, 8, 16, 32, 64" in six_token_page
    kilobytes = round(len(six_token_page.encode()) / 1024)
    assert f"File size: about {kilobytes} kB" in six_token_page
    parser = html5lib.HTMLParser(strict=True)
    parser.parse(six_token_page)
    assert not parser.errors
    assert "default-src 'none'" in six_token_page     # the page may load nothing


HOSTILE = """title = "<script>alert('t')</script> & co"
tokens = ["<img src=x onerror=alert(1)>", "</table>", "\\"quoted\\""]
[inputs]
Q = [[1, 0], [0, 1], [1, 1]]
K = [[1, 0], [0, 1], [1, 1]]
V = [[1], [2], [3]]
"""


def test_a_hostile_title_and_token_names_stay_text(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "hostile.toml"
    spec.write_text(HOSTILE, encoding="utf-8")
    status, page, err = run(capsys, "calculator", str(spec), "-T", "1,2", "--d-k", "2")
    assert status == 0, err
    assert "<script>alert" not in page and "<img" not in page and "</table>\"" not in page
    assert "&lt;script&gt;alert(&#x27;t&#x27;)&lt;/script&gt; &amp; co" in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    parser = html5lib.HTMLParser(strict=True)
    parser.parse(page)
    assert not parser.errors


def test_json_in_a_script_cannot_close_it() -> None:
    text = script_json({"x": "</script><!-- & >"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"x": "</script><!-- & >"}


def test_five_languages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    words = {"en": "Temperature", "pl": "Temperatura", "cs": "Teplota", "ru": "Температура",
             "uk": "Температура"}
    for language, word in words.items():
        status, page, _ = run(capsys, "calculator", "--example", EXAMPLE, "-T", "0.3",
                              "--d-k", "6", "--language", language)
        assert status == 0 and word in page and f'lang="{language}"' in page
    assert "0,3417" in page        # a decimal comma in Ukrainian


@pytest.mark.parametrize("argv, part", [
    (["--d-k", "0"], "--d-k"),
    (["-T", "0,-1"], "--temperatures"),
    (["-T", ",".join(str(i) for i in range(1, 300))], "states"),
])
def test_bad_options_are_one_line_errors(argv: list[str], part: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "calculator", "--example", EXAMPLE, *argv)
    assert status == 2
    assert_one_line_error(err, part)


def test_several_heads_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "calculator", "--example", "003-multi-head")
    assert status == 2
    assert_one_line_error(err, "one head")


def test_a_fragment_has_no_document_around_it(capsys: pytest.CaptureFixture[str]) -> None:
    status, page, _ = run(capsys, "calculator", "--example", EXAMPLE, "-T", "1", "--d-k", "6",
                          "--fragment")
    assert status == 0
    assert page.startswith("<style>") and "<html" not in page and "<section" in page


EDITED = "[inputs]\nQ = [[2, 0]]\nK = [[1, 0], [0, 1]]\nV = [[1], [2]]\n"


def test_recompute_gives_weights_or_the_reason() -> None:
    result = recompute(EDITED, "en")
    assert not result.error and 'data-i="0" data-j="0"' in result.calculator
    expected = mp_weights([["2", "0"]], [["1", "0"], ["0", "1"]], "1", 2)[0]
    assert f'class="w8">{four_digits(expected[0])}<' in result.calculator   # shade 0.8
    assert "Step 1" in result.derivation
    broken = recompute("[inputs\n", "en")
    assert broken.error.startswith("spec: not valid TOML")
    too_big = recompute("[inputs]\nscores = [" + ",".join(["[1" + ",1" * 29 + "]"] * 30)
                        + "]\n[options]\nd_k = 4\n", "en")
    assert "900" in too_big.error and "400" in too_big.error


def test_the_served_limits_take_a_bundled_example_with_positions() -> None:
    # sinusoidal positions over vectors of 4 columns: a served page's smaller matrices
    # must not shrink the width positions may have below an example's
    from symattn.problem import examples

    result = recompute(examples.path("003-positions-sinusoidal").read_text("utf-8"), "ru")
    assert not result.error, result.error


def test_bounded_stops_slow_work() -> None:
    started = time.monotonic()
    with pytest.raises(TimedOut):
        bounded(time.sleep, (30,), 1)      # type: ignore[arg-type]
    assert time.monotonic() - started < 15


@pytest.fixture()
def server(tmp_path: Path):  # type: ignore[no-untyped-def]
    from symattn.cli.app import build_parser
    from symattn.cli.serve import make_server

    args = build_parser().parse_args(["serve", "--example", EXAMPLE, "--port", "0",
                                      "--folder", str(tmp_path)])
    httpd = make_server(args)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/", tmp_path
    httpd.shutdown()
    httpd.server_close()


_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _post(url: str, body: bytes, host: str | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url, body, headers={"Host": host} if host else {})
    try:
        with _OPENER.open(request, timeout=60) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_serve_answers_an_edited_matrix(server) -> None:  # type: ignore[no-untyped-def]
    url, folder = server
    status, page = _post(url, urllib.parse.urlencode({"spec": EDITED, "language": "cs"}).encode())
    assert status == 200
    expected = mp_weights([["2", "0"]], [["1", "0"], ["0", "1"]], "1", 2)[0]
    assert four_digits(expected[1]).replace(".", ",") in page
    parser = html5lib.HTMLParser(strict=True)
    parser.parse(page)
    assert not parser.errors
    assert sorted(p.name for p in folder.iterdir()) == ["calculator.html", "spec.toml"]
    assert (folder / "spec.toml").read_text(encoding="utf-8") == EDITED


def test_serve_refuses_a_large_body_and_a_foreign_host(server) -> None:  # type: ignore[no-untyped-def]
    url, _ = server
    status, page = _post(url, b"spec=" + b"1" * (70 * 1024))
    assert status == 413 and "64 kB" in page
    status, _ = _post(url, b"spec=x", host="evil.example:80")
    assert status == 403


def test_serve_form_fields_edit_a_matrix(server) -> None:  # type: ignore[no-untyped-def]
    url, folder = server
    fields = {"use": "form", "spec": EDITED, "language": "en", "m-Q": "0, 1", "m-K": "1 0\n0 1",
              "m-V": "1\n2", "temperature": "1/2", "mask": "none"}
    status, page = _post(url, urllib.parse.urlencode(fields).encode())
    assert status == 200, page[:2000]
    # softmax((0, 1) / sqrt 2 / (1/2)) by mpmath
    mpmath.mp.dps = 30
    scores = [mpmath.mpf(0), 2 / mpmath.sqrt(2)]
    exps = [mpmath.e ** s for s in scores]
    assert four_digits(exps[1] / sum(exps)) in page
    assert "temperature = 1/2" not in (folder / "spec.toml").read_text(encoding="utf-8")
    assert 'temperature = "1/2"' in (folder / "spec.toml").read_text(encoding="utf-8")
    hostile = dict(fields, **{"m-Q": "<script>alert(1)</script> 1"})
    status, page = _post(url, urllib.parse.urlencode(hostile).encode())
    assert status == 422
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)" in page
    assert "The field “Q”" in page and 'id="m-Q"' in page and 'aria-invalid="true"' in page
