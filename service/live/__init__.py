"""Waiting clients: the watcher, the cluster listener, the game memory and waiting shares."""
