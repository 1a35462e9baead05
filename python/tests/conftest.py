"""The package's tests: ``KAIROS_BIN``, the ``kairos`` program some tests run, may be given
relative to the directory pytest starts in (``KAIROS_BIN=target/release/kairos``, as
docs/python.md says); it is made absolute here, since those tests run it from temporary
folders."""

import os
import shutil


def resolve_kairos_bin(value: str, start: str) -> str:
    """`value` as the path of a program: a bare name is looked up on PATH, a relative path is
    taken from `start`."""
    if os.sep not in value and (os.altsep is None or os.altsep not in value):
        return shutil.which(value) or value
    return os.path.abspath(os.path.join(start, os.path.expanduser(value)))


def pytest_configure(config):
    value = os.environ.get("KAIROS_BIN")
    if value:
        os.environ["KAIROS_BIN"] = resolve_kairos_bin(value, str(config.invocation_params.dir))
