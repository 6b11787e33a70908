"""Static pages served by the API: the replay viewer and the play page.

Plain HTML, CSS and JavaScript from ``service/static/``: no build step, no
CDN, so they work offline and from a fresh clone.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, redirect, send_from_directory

STATIC = Path(__file__).resolve().parent.parent / "static"

blp = Blueprint("pages", __name__)


@blp.route("/")
def index():
    return redirect("/play/", code=302)


@blp.route("/play/", defaults={"name": "play.html"})
@blp.route("/replay/", defaults={"name": "replay.html"})
@blp.route("/static/<path:name>")
def page(name: str):
    return send_from_directory(STATIC, name)
