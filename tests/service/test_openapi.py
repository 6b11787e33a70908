"""openapi.yaml is generated from the code, committed, valid, and served."""

from openapi_spec_validator import validate

from service.web.openapi import OPENAPI_FILE, generate
from tests.support.openapi_document import load_yaml


def test_committed_openapi_matches_the_code():
    assert OPENAPI_FILE.read_text() == generate(), (
        "openapi.yaml drifted from the code: run `python -m service.web.openapi` and commit it"
    )


def test_openapi_is_a_valid_3_1_document():
    document = load_yaml(OPENAPI_FILE.read_text())
    assert document["openapi"] == "3.1.0"
    validate(document)


def test_openapi_documents_every_contract_path():
    paths = load_yaml(OPENAPI_FILE.read_text())["paths"]
    for path, method in [
        ("/v1/games", "post"),
        ("/v1/games/{game_id}", "get"),
        ("/v1/games/{game_id}/join", "post"),
        ("/v1/games/{game_id}/actions", "post"),
        ("/v1/games/{game_id}/events", "get"),
        ("/v1/games/{game_id}/replay", "get"),
    ]:
        assert method in paths[path], f"{method.upper()} {path} is not documented"


def test_get_openapi_yaml_serves_the_committed_document(client):
    response = client.get("/openapi.yaml")
    assert response.status_code == 200
    assert response.mimetype == "application/yaml"
    assert response.get_data(as_text=True) == OPENAPI_FILE.read_text()
