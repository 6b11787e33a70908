"""Headers every answer carries: no sniffing, no framing, and the pages' script policy.

The pages (``/play/``, ``/join/``, ``/replay/``, ``/docs``, the problem
pages) act for a player on one tap (the join page takes seat 1), so no other
site may show them in a frame and click through them: ``frame-ancestors
'none'`` (and ``X-Frame-Options: DENY`` for older browsers). Their scripts
are the service's own files (``script-src 'self'``, no inline script), so an
injected ``<script>`` never runs. An answer that is no page gets the
strictest policy (``default-src 'none'``): it loads nothing if opened.
``nosniff`` keeps a browser from reading JSON, YAML or a download as HTML
or script. gunicorn's own refusals send the same (``service.serve.gunicorn_workers``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

# No Flask import: gunicorn's worker class (service.serve.gunicorn_workers) reads this too.
if TYPE_CHECKING:
    from flask import Flask, Response

#: The pages: scripts, styles and images of this origin only. Swagger UI sets
#: inline styles and draws its icons as data: images; "Try it out" calls this origin.
PAGE_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
#: Anything else (JSON, problems, YAML, scripts, exports): nothing to load, no frame.
OTHER_POLICY = "default-src 'none'; frame-ancestors 'none'"

#: Answers without content (No Content, Not Modified): openapi.yaml declares them
#: ``text/plain`` and empty, never a page.
EMPTY_STATUSES = frozenset({204, 304})

#: A revalidation's answer: the browser keeps the stored page and replaces its headers
#: with this answer's, so it carries no policy of its own (a page's would turn into
#: ``default-src 'none'`` on a reload, and the page would load none of its files).
NOT_MODIFIED = 304

#: Sent with every answer, pages or not.
ALWAYS = {"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY"}


def headers_for(mimetype: str | None) -> dict[str, str]:
    """The headers an answer of this type carries."""
    policy = PAGE_POLICY if mimetype == "text/html" else OTHER_POLICY
    return {**ALWAYS, "Content-Security-Policy": policy}


_PAGE = tuple(headers_for("text/html").items())
_OTHER = tuple(headers_for(None).items())
_UNCHANGED = tuple(ALWAYS.items())


def added_headers(status: int, mimetype: str | None) -> tuple[tuple[str, str], ...]:
    """The headers an answer of ``status`` and ``mimetype`` is given, unless it has its own:
    the duty of every answer, whichever path served it (Flask's hooks,
    ``service.web.plain_routes``)."""
    if status == NOT_MODIFIED:
        return _UNCHANGED
    return _PAGE if mimetype == "text/html" else _OTHER


def install(app: Flask) -> None:
    """Add the headers to every answer of ``app``: views, problems, 404s, streams.

    A header the answer already has is kept. Its headers are read once (a
    ``setdefault`` per header read them all three times, on every answer).
    """

    @app.after_request
    def _secure(response: Response) -> Response:
        if response.status_code in EMPTY_STATUSES and response.mimetype == "text/html":
            response.mimetype = "text/plain"  # Flask's default type; the spec says text/plain
        headers = response.headers
        present = {name.lower() for name, _ in headers.items()}
        for name, value in added_headers(response.status_code, response.mimetype):
            if name.lower() not in present:
                headers.add(name, value)
        return response
