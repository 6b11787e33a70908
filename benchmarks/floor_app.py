"""The floors an API request of this architecture stands on, as a Flask app of their own.

``GET /bare`` answers a small JSON body and does nothing else: what Flask and
gunicorn cost. ``GET /script`` does one Redis script call first (EVALSHA of a
script that returns its argument): the least an action that reaches the log can
cost. ``benchmarks/floors.py`` serves it with the API's own gunicorn command.
"""

from __future__ import annotations

import os

import redis
from flask import Flask, jsonify

#: The trivial script: one round trip, and nothing done in Redis.
TRIVIAL = "return ARGV[1]"


def create() -> Flask:
    app = Flask(__name__)
    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    trivial = client.register_script(TRIVIAL)

    @app.get("/bare")
    def bare():
        return jsonify(floor="bare")

    @app.get("/script")
    def script():
        return jsonify(floor="script", answer=int(trivial(args=[1])))

    return app
