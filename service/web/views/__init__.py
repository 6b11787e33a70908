"""The blueprints: one module per group of endpoints, registered by ``service.web.app``."""
