"""The type stubs match the extension module, and typed code using the package checks clean."""

from __future__ import annotations

import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[3]
CONFIG = REPO / "crates" / "webcanon-py" / "pyproject.toml"


def test_stubs_match_the_module():
    out = subprocess.run([sys.executable, "-m", "mypy.stubtest", "--mypy-config-file", str(CONFIG),
                          "webcanon._webcanon"], capture_output=True, text=True, cwd=REPO / "target")
    assert out.returncode == 0, out.stdout + out.stderr


def test_typed_users_check_clean():
    example = REPO / "examples" / "ray_robots_filter.py"
    out = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(CONFIG), "--no-incremental",
                          str(pathlib.Path(__file__).with_name("typed_usage.py")), str(example)],
                         capture_output=True, text=True, cwd=REPO / "target")
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_package_checks_clean():
    # The package's own wrappers pass on what the stub types, as strictly as
    # its users' code is checked.
    out = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(CONFIG), "--no-incremental",
                          "-p", "webcanon"], capture_output=True, text=True, cwd=REPO / "target")
    assert out.returncode == 0, out.stdout + out.stderr
