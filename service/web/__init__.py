"""The HTTP layer: the Flask app, request handling, problem answers, the OpenAPI spec and the pages."""
