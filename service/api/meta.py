"""Service endpoints: the OpenAPI document and liveness."""

from __future__ import annotations

from flask import Response, current_app
from flask_smorest import Blueprint

blp = Blueprint("meta", __name__, description="The API's description and health")


@blp.route("/openapi.yaml", methods=["GET"])
@blp.response(200, content_type="application/yaml", description="This API, OpenAPI 3.1")
def openapi_yaml():
    """The OpenAPI 3.1 document of this API (the same as the committed openapi.yaml)."""
    text = current_app.extensions["schnapsen"]["openapi_yaml"]()
    return Response(text, mimetype="application/yaml")


@blp.route("/healthz", methods=["GET"])
@blp.response(200, description="The process is up")
def healthz():
    """Liveness: answers as long as the process serves requests (no Redis call)."""
    return {"status": "ok"}
