"""The game as the service runs it: commands (load, decide, append), tokens, dealing, problems without HTTP."""
