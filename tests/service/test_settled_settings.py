"""A worker's gunicorn settings, settled as plain attributes, read as they were; its loaded heap frozen."""

from __future__ import annotations

from gunicorn.config import Config

from service.serve.gunicorn_workers import settle_settings


def test_every_setting_reads_the_same_once_settled():
    config = Config()
    config.set("keepalive", 5)
    config.set("worker_connections", 5000)
    before = {name: getattr(config, name) for name in config.settings}
    settle_settings(config)
    after = {name: getattr(config, name) for name in config.settings}
    assert after == before
    assert vars(config)["keepalive"] == 5  # found without Config.__getattr__


def test_the_config_s_own_properties_stay_computed():
    config = Config()
    settle_settings(config)
    assert "worker_class" not in vars(config)  # a property of Config: it imports the class
    assert config.worker_class.__name__ == "SyncWorker"


def test_a_worker_freezes_what_loading_the_app_made():
    # In a child process: freezing is for the rest of the process's life.
    import subprocess
    import sys

    code = (
        "import gc\n"
        "from service.web.app import create_app\n"
        "from service.serve.gunicorn_workers import freeze_the_loaded_heap\n"
        "create_app({'SECRET_KEY': 'x' * 32})\n"
        "freeze_the_loaded_heap()\n"
        "assert gc.get_freeze_count() > 10_000, gc.get_freeze_count()\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
