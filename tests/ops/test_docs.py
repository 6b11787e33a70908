"""GET /docs: Swagger UI from a Python package, every asset served locally (no CDN)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from swagger_ui_bundle import swagger_ui_path

from tests.support.openapi_document import load_yaml


class References(HTMLParser):
    """Every src and href of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("src", "href") and value is not None:
                self.urls.append((tag, value))


def page_references(client) -> list[tuple[str, str]]:
    response = client.get("/docs")
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    text = response.get_data(as_text=True)
    assert "http" not in text.lower(), "the docs page names another host"
    parser = References()
    parser.feed(text)
    return parser.urls


def test_docs_is_an_html_page_of_local_references_only(client):
    urls = page_references(client)
    assert urls
    for _tag, url in urls:
        assert url.startswith("/") and not url.startswith("//"), url
    scripts = [url for tag, url in urls if tag == "script"]
    styles = [url for tag, url in urls if tag == "link" and url.endswith(".css")]
    assert any(url.endswith("swagger-ui-bundle.js") for url in scripts)
    assert styles


def test_every_referenced_asset_is_served(client):
    types = {".js": "text/javascript", ".css": "text/css", ".png": "image/png"}
    for _tag, url in page_references(client):
        response = client.get(url)
        assert response.status_code == 200, url
        assert response.mimetype == types[url[url.rindex(".") :]], (url, response.mimetype)
        assert len(response.get_data()) > 100 or url.endswith("init.js"), url
        response.close()


def test_the_page_renders_the_served_openapi_document(client):
    script = client.get("/docs/init.js").get_data(as_text=True)
    assert '"/openapi.yaml"' in script
    assert "http" not in script  # no validator badge, no remote spec
    assert "validatorUrl: null" in script
    assert client.get("/openapi.yaml").status_code == 200


def test_the_bundled_swagger_ui_reads_openapi_3_1():
    # Swagger UI 4 cannot render an OpenAPI 3.1 document; version 5 can.
    version = re.search(r"swagger-ui-(\d+)\.", str(swagger_ui_path))
    assert version and int(version.group(1)) >= 5, swagger_ui_path


def test_only_the_pages_assets_are_served(client):
    assert client.get("/docs/assets/index.html").status_code == 404
    assert client.get("/docs/assets/..%2F__init__.py").status_code == 404
    assert client.get("/docs/assets/swagger-ui.js.map").status_code == 404


def test_docs_are_not_part_of_the_api_description(client):
    text = client.get("/openapi.yaml").get_data(as_text=True)
    assert "/docs" not in text
    assert "/readyz:" in text and "/metrics:" in text


def test_try_it_out_calls_the_server_that_serves_the_docs(client):

    document = load_yaml(client.get("/openapi.yaml").get_data(as_text=True))
    assert document["servers"][0]["url"] == "/"
