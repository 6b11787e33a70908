"""What the tests share: paths, HTTP clients, servers, games, waits.

Test modules import shared names from here only, never from a conftest or from
another test module: a test module then holds its tests alone, and moving or
deleting one cannot break another (tests/test_support_imports.py keeps it so).
Fixtures stay in conftest.py files, where pytest finds them; they build on the
classes and functions here.
"""
