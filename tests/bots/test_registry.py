"""One table holds every bot (``service.bots.registry.BOTS``): its name, how it is made,
what a client is told of it. The levels the service offers, their catalog and the
names the benchmarks know are read from it, and no other list names a bot."""

from __future__ import annotations

import ast

from service.bots import BOT_NAMES, LEVELS, get_bot
from service.bots.catalog import CATALOG
from service.bots.registry import BOTS
from service.engine.native import NATIVE_MODULES
from service.game import bot_levels
from tests.support.paths import REPO

#: The modules that once held a list of bots, each its own.
_FORMER_LISTS = (
    "service/bots/__init__.py",
    "service/bots/catalog.py",
    "service/game/bot_levels.py",
)


def test_the_levels_the_catalog_and_the_bot_names_are_read_from_the_one_table():
    offered = tuple(bot.name for bot in BOTS if bot.offered)
    assert LEVELS == bot_levels.LEVELS == offered
    assert tuple(info.name for info in CATALOG) == offered
    assert offered + tuple(bot.name for bot in BOTS if not bot.offered) == BOT_NAMES
    for bot in BOTS:
        assert get_bot(bot.name).level == bot.name


def test_no_other_module_lists_the_bots():
    names = {bot.name for bot in BOTS}
    for path in _FORMER_LISTS:
        tree = ast.parse((REPO / path).read_text())
        named = {
            node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
        }
        assert named & names == set(), path


def test_every_searching_bot_is_compiled_with_the_search_core():
    """A bot that searches runs compiled where the build compiles (``engine/native.py``):
    a searching bot left out of ``NATIVE_MODULES`` would run about four times slower."""
    for bot in BOTS:
        if bot.searches:
            module = type(get_bot(bot.name)).__module__
            assert module.removeprefix("service.").replace(".", "/") in NATIVE_MODULES, bot.name
