"""The terminal client: an HTTP client of the service; it imports no server code."""
