"""The HTTP layer: blueprints, request/response rendering, and problem answers."""
