"""The HTTP side of ``symattn serve``: one page, a form posted back to it, bounds kept.

Requests are answered only when they name this server (``Host: 127.0.0.1:PORT`` or
``localhost:PORT``), so another site cannot reach it through a rebound name. A
body over ``MAX_BODY`` bytes, a matrix over the entries allowed or work over the
seconds allowed gets a clear message on the page (status 413 or 422), never a
traceback.
"""

from __future__ import annotations

__all__ = ["Settings", "server", "MAX_BODY"]

from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

from symattn import messages
from symattn.cli.recompute import TimedOut, bounded, recompute, recompute_form
from symattn.cli.serve_form import MATRIX_FIELDS, form_fields
from symattn.errors import SymattnError
from symattn.problem.spec import read_mapping
from symattn.render.prose import plain
from symattn.render.web.serve_page import FormFields, Result, render_serve_page


MAX_BODY = 64 * 1024          # bytes of one submitted form
MAX_FIELDS = 20               # the form's fields: matrices, options, spec, language, button


def _fields(form: dict[str, list[str]]) -> FormFields:
    """The submitted form's fields (a matrix field is ``m-NAME``)."""
    def one(name: str) -> str:
        return form.get(name, [""])[0]

    matrices = tuple((name, one(f"m-{name}")) for name in MATRIX_FIELDS if f"m-{name}" in form)
    return FormFields(matrices, one("tokens"), one("d_k"), one("scale"), one("temperature"),
                      one("digits"), one("mask"))


def _fields_of(spec_text: str) -> FormFields:
    """The form's fields as ``spec_text`` fills them (none when it is not TOML: the
    page then says why, and the spec's text is there to mend)."""
    try:
        return form_fields(read_mapping(spec_text, "spec", "toml"))
    except SymattnError:
        return FormFields()


@dataclass(frozen=True)
class Settings:
    """What the server was started with."""

    spec_text: str
    language: str
    max_entries: int
    seconds: int
    folder: str | None


class _Handler(BaseHTTPRequestHandler):
    server_version = "symattn"
    settings: Settings     # set on the subclass ``server`` makes

    def log_message(self, format: str, *args: object) -> None:   # noqa: A002 - stdlib's name
        return                     # quiet: the terminal shows the URL, not every request

    def _host_ok(self) -> bool:
        port = self.server.server_address[1]  # type: ignore[index]  # an (host, port) pair
        return self.headers.get("Host", "") in (f"127.0.0.1:{port}", f"localhost:{port}")

    def _send(self, status: int, page: str) -> None:
        data = page.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)

    def _refuse(self, status: int) -> None:
        self.send_error(status)

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        if not self._host_ok():
            return self._refuse(403)
        if self.path != "/":
            return self._refuse(404)
        s = self.settings
        self._answer(s.spec_text, s.language)

    def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
        if not self._host_ok():
            return self._refuse(403)
        if self.path != "/":
            return self._refuse(404)
        language = self.settings.language
        length = self.headers.get("Content-Length", "")
        if not length.isdigit() or int(length) > MAX_BODY:
            catalog = messages.load(language)
            message = plain(catalog.fill("calculator.serve_too_large",
                                         limit=str(MAX_BODY // 1024)))
            self.close_connection = True
            return self._send(413, render_serve_page("", FormFields(), language,
                                                     Result(error=message)))
        try:
            form = parse_qs(self.rfile.read(int(length)).decode("utf-8", "replace"),
                            max_num_fields=MAX_FIELDS)
        except ValueError:          # more fields than any form of this page has
            return self._refuse(400)
        spec_text = form.get("spec", [""])[0]
        chosen = form.get("language", [language])[0]
        chosen = chosen if chosen in messages.LANGUAGES else language
        if form.get("use", ["spec"])[0] == "spec":    # a post of the spec text alone
            return self._answer(spec_text, chosen)
        self._answer(spec_text, chosen, _fields(form))

    def _answer(self, spec_text: str, language: str, fields: FormFields | None = None
                ) -> None:
        """The page for ``spec_text`` (with ``fields`` put in, when the form gave them)."""
        s = self.settings
        shown = fields if fields is not None else _fields_of(spec_text)
        try:
            result = bounded(recompute, (spec_text, language, s.max_entries, s.folder),
                             s.seconds) if fields is None else \
                bounded(recompute_form, (fields, spec_text, language, s.max_entries,
                                         s.folder), s.seconds)
        except RuntimeError:       # the worker died without an answer: not the user's fault
            return self._refuse(500)
        except TimedOut:
            message = plain(messages.load(language).fill("calculator.serve_too_slow",
                                                         seconds=str(s.seconds)))
            result = Result(error=message)
        if fields is not None and not result.error:     # the spec now written from the form
            shown = _fields_of(result.spec_text)
        self._send(422 if result.error else 200,
                   render_serve_page(spec_text, shown, language, result))


def server(port: int, settings: Settings) -> ThreadingHTTPServer:
    """A server on 127.0.0.1:``port`` (0: any free port) answering with ``settings``."""
    handler = type("Handler", (_Handler,), {"settings": settings})
    return ThreadingHTTPServer(("127.0.0.1", port), handler)
