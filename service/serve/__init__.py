"""The run command and what it starts: supervisor, gunicorn workers, worker command lines, admin."""
