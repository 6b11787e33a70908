"""Static pages served by the API: the play page, the replay viewer, the join page, an
app's games in play, a game's live board and a tournament's standings.

Plain HTML, CSS and JavaScript from ``service/web/static/``: no build step, no
CDN, so they work offline and from a fresh clone. The pages are one
HTML file, ``table.html``; its script starts the page the path names.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, redirect, send_from_directory

STATIC = Path(__file__).resolve().parent.parent / "static"

blp = Blueprint("pages", __name__)


@blp.route("/")
def index():
    return redirect("/play/", code=302)


@blp.route("/play/")
@blp.route("/replay/")
@blp.route("/join/")
@blp.route("/live/")
@blp.route("/watch/")
@blp.route("/tournament/")
def table_page():
    """The play page, the replay viewer, the join page, the games in play, the live
    board and a tournament's standings (one HTML, see above)."""
    return send_from_directory(STATIC, "table.html")


@blp.route("/static/<path:name>")
def page(name: str):
    return send_from_directory(STATIC, name)
