import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture(scope="session")
def bnscope_cli():
    """The built bnscope-cli: $BNSCOPE_CLI, else the release build in this checkout."""
    path = os.environ.get("BNSCOPE_CLI") or os.path.join(REPO, "build", "release", "app", "cli",
                                                         "bnscope-cli")
    if not os.access(path, os.X_OK):
        pytest.fail(f"bnscope-cli not found at {path}; build it or set BNSCOPE_CLI")
    return path


@pytest.fixture(scope="session")
def run_cli(bnscope_cli):
    def run(*args):
        return subprocess.run([bnscope_cli, *map(str, args)], capture_output=True, text=True)

    return run


@pytest.fixture(scope="session")
def lending_library(bnscope_cli):
    """The workers' output-lending library built beside bnscope-cli ($BNSCOPE_WORKER_LENDING
    names another)."""
    path = os.environ.get("BNSCOPE_WORKER_LENDING") or os.path.join(
        os.path.dirname(bnscope_cli), "..", "..", "python", "libbnscope_output_lending.so")
    if not os.access(path, os.R_OK):
        pytest.fail(f"the output-lending library is not at {path}; build bnscope or set "
                    "BNSCOPE_WORKER_LENDING")
    return os.path.abspath(path)
