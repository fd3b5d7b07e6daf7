"""The start-up tricks (deployah_plan/startup.py) in a plan of its own Python: PyYAML's
patterns, which `deferred` leaves uncompiled while it is imported, are never compiled by a plan.
The unit tests of the module: tests/test_startup.py."""
from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import ROOT, clean_env


@pytest.mark.e2e
def test_a_plan_compiles_none_of_pyyaml_s_patterns() -> None:
    """PyYAML's reader, resolver and constructor patterns are not used to read YAML with libyaml:
    a plan (here `helm plan diff` of two manifests, in a Python of its own) compiles none of them,
    and PyYAML's own loader still reads with them as before."""
    probe = """
import os, re, sys, tempfile
import re._compiler as compiler
compiled = []
compile_now = compiler.compile
compiler.compile = lambda p, flags=0: (compiled.append(p), compile_now(p, flags))[1]
folder = tempfile.mkdtemp()
for name, image in (("a.yaml", "web:1"), ("b.yaml", "web:2")):
    with open(os.path.join(folder, name), "w") as out:
        out.write("apiVersion: v1\\nkind: Pod\\nmetadata:\\n  name: web\\nspec:\\n  containers:\\n"
                  "  - name: web\\n    image: " + image + "\\n")
from deployah_plan.entry import command
from deployah_plan.sources.early import HelmCalls
code = command(["diff", os.path.join(folder, "a.yaml"), os.path.join(folder, "b.yaml"), "-o", "json"], HelmCalls())
import yaml
theirs = {yaml.reader.Reader.NON_PRINTABLE.pattern, yaml.constructor.SafeConstructor.timestamp_regexp.pattern}
theirs |= {p.pattern for resolvers in yaml.resolver.Resolver.yaml_implicit_resolvers.values() for _, p in resolvers}
print(code, len(theirs), len(theirs & set(compiled)), file=sys.stderr)
assert yaml.safe_load("a: 2001-12-14\\nb: yes\\nc: 0x1F\\nd: 1.5e+3\\ne: ~") == {
    "a": __import__("datetime").date(2001, 12, 14), "b": True, "c": 31, "d": 1500.0, "e": None}
try:
    yaml.safe_load("a: \\x07")
except yaml.reader.ReaderError:
    print("refused", file=sys.stderr)
"""
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=clean_env(), cwd=ROOT)
    assert done.returncode == 0, done.stderr
    code, theirs, compiled = done.stderr.split("\n")[0].split()
    assert code == "0" and int(theirs) >= 10 and compiled == "0", done.stderr
    assert done.stderr.split("\n")[1] == "refused"
