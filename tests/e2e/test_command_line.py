"""A plan does not import click (deployah_plan/command_line.py reads its command line). The
direct reading against click's: tests/test_command_line.py."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


from conftest import ROOT, clean_env


@pytest.mark.e2e
def test_a_plan_does_not_import_click(tmp_path: Path) -> None:
    probe = ("import runpy, sys\n"
             "sys.argv = ['helm-plan', 'diff', '/dev/null', '/dev/null', '-o', 'json']\n"
             "import atexit, os\n"
             "_exit = os._exit\n"
             "def leave(code):\n"
             "    sys.stderr.write('click loaded: %s\\n' % ('click' in sys.modules))\n"
             "    _exit(code)\n"
             "os._exit = leave\n"
             "runpy.run_module('deployah_plan', run_name='__main__')\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=clean_env(), cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stderr.endswith("click loaded: False\n"), done.stderr
    helped = subprocess.run([sys.executable, "-c", probe.replace("'-o', 'json'", "'--help'")], capture_output=True,
                            text=True, env=clean_env(), cwd=ROOT)
    assert helped.stderr.endswith("click loaded: True\n"), helped.stderr  # the probe sees click when it is used
    assert os.path.exists(ROOT / "deployah_plan" / "command_line.py")
