"""The test suite.

Compiled modules are cached even where the environment says not to
(``PYTHONDONTWRITEBYTECODE``), here, before ``tests/conftest.py`` imports the service,
and in every process the tests start (gunicorn, RQ workers, pytest itself): each would
otherwise compile the service from source again, as each pytest worker would rewrite
every test module's asserts again (tests/test_bytecode_caches.py). The caches are
gitignored.
"""

import os
import sys

sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
