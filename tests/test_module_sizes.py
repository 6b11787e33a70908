"""A view is thin: it parses the request, makes one call, renders the answer. What takes
longer (the feed's waiting, the shares, the outages) lives below the views, so no view
module grows past what one reads in a sitting."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: Lines a module of ``service/web/views`` may have at most.
VIEW_MODULE_LINES = 350


def test_no_view_module_is_longer_than_350_lines():
    lengths = {
        str(path.relative_to(REPO)): len(path.read_text().splitlines())
        for path in sorted((REPO / "service" / "web" / "views").glob("*.py"))
    }
    assert {name: n for name, n in lengths.items() if n > VIEW_MODULE_LINES} == {}
