"""Operating the service: settings, logs, metrics, readiness, process handling and the composition root."""
