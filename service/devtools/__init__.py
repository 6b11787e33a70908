"""Embedded Redis and Redis Cluster for the run command and the tests."""
