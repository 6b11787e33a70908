"""Queue names, enqueueing and dispatch of the workers' jobs (no worker code)."""
