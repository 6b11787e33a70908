"""service/Dockerfile builds the compiled search core, checked offline (no Docker engine).

Without setup.py in the image, pip installs the engine as plain source and the
bots search about four times slower than on a development machine; without a C
compiler in the build stage mypyc's modules cannot be built at all.
"""

from __future__ import annotations

import re

from tests.support.paths import REPO

DOCKERFILE = REPO / "service" / "Dockerfile"


def _stages(text: str) -> list[str]:
    """The Dockerfile's build stages, each from its FROM line on."""
    return [
        stage for stage in re.split(r"^(?=FROM )", text, flags=re.M) if stage.startswith("FROM")
    ]


def test_the_image_copies_setup_py_before_it_installs_the_package():
    text = DOCKERFILE.read_text()
    copied = [
        item
        for source in re.findall(r"^COPY (?:--\S+ )*(\S+(?: \S+)*) \S+$", text, re.M)
        for item in source.split()
    ]
    assert "setup.py" in copied, "setup.py (the mypyc build of the search core) is not copied"
    install = re.search(r"^RUN .*pip (?:wheel|install) ", text, re.M)
    assert install, "the image installs nothing with pip"
    assert text.index("setup.py") < install.start()


def test_the_stage_that_builds_the_package_has_a_c_compiler():
    builders = [
        stage
        for stage in _stages(DOCKERFILE.read_text())
        if re.search(r"pip (?:wheel|install) \.", stage)
    ]
    assert builders, "no stage installs or builds the package"
    for stage in builders:
        assert re.search(r"apt-get install[^\n]*\b(gcc|build-essential)\b", stage), (
            "the stage that builds the package installs no C compiler"
        )
