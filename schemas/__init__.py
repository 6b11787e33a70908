"""marshmallow 4 schemas of every request, response and event of the HTTP API."""
