"""``GET /docs``: the API's documentation, browsable offline.

Swagger UI renders ``/openapi.yaml``. Its files come from the
``swagger-ui-bundle-v2`` package (Swagger UI 5, which reads OpenAPI 3.1) and
are served from ``/docs/assets/``: no CDN, so the page works without the
internet. A plain Flask blueprint, left out of the OpenAPI document.
"""

from __future__ import annotations

import json

from flask import Blueprint, Response, abort, send_from_directory, url_for
from swagger_ui_bundle import swagger_ui_path

blp = Blueprint("docs", __name__)

#: The files of the bundle the page uses; nothing else is served.
ASSETS = frozenset(
    {"swagger-ui.css", "swagger-ui-bundle.js", "favicon-32x32.png", "favicon-16x16.png"}
)

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Schnapsen API</title>
  <link rel="stylesheet" href="{css}">
  <link rel="icon" type="image/png" href="{icon}" sizes="32x32">
  <style>body {{ margin: 0; background: #fafafa; }}</style>
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="{bundle}"></script>
  <script src="{init}"></script>
</body>
</html>
"""

_INIT = """window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: %s,
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout"
  });
});
"""


@blp.route("/docs")
@blp.route("/docs/")
def docs_page():
    page = _PAGE.format(
        css=url_for("docs.asset", name="swagger-ui.css"),
        icon=url_for("docs.asset", name="favicon-32x32.png"),
        bundle=url_for("docs.asset", name="swagger-ui-bundle.js"),
        init=url_for("docs.init_script"),
    )
    return Response(page, mimetype="text/html")


@blp.route("/docs/init.js")
def init_script():
    script = _INIT % json.dumps(url_for("meta.openapi_yaml"))
    return Response(script, mimetype="text/javascript")


@blp.route("/docs/assets/<name>")
def asset(name: str):
    if name not in ASSETS:
        abort(404)
    return send_from_directory(str(swagger_ui_path), name, max_age=24 * 3600)
