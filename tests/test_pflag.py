"""Command lines read by helm's rules (deployah_plan/pflag.py). The expected readings are
spf13/pflag's (flag.go parseLongArg, parseSingleShortArg; string_slice.go, string_to_string.go,
bool.go), which helm uses for every command."""
from __future__ import annotations

import pytest

from deployah_plan import flags
from deployah_plan.errors import UsageError
from deployah_plan.pflag import click_spelling, helm_spelling

UPGRADE = flags.UPGRADE


@pytest.mark.parametrize("words, reading", [
    # -f takes what follows `=`, the rest of the word, or the next word
    (["-f=vals.yaml"], ["--values=vals.yaml"]),
    (["-fvals.yaml"], ["--values=vals.yaml"]),
    (["-f", "vals.yaml"], ["--values=vals.yaml"]),
    (["--values=vals.yaml"], ["--values=vals.yaml"]),
    (["-f="], ["--values=="]),  # `-f=` alone: the rest of the word, "=" (parseSingleShortArg needs 3 letters)
    (["-n=shop"], ["--namespace=shop"]),
    # stacked switches, then one flag that takes the rest
    (["-if=vals.yaml"], ["--install", "--values=vals.yaml"]),
    (["-if", "vals.yaml"], ["--install", "--values=vals.yaml"]),
    # -f is a StringSlice: comma-separated; --set is a StringArray: one value
    (["-f", "a.yaml,b.yaml", "-f", "c.yaml"], ["--values=a.yaml", "--values=b.yaml", "--values=c.yaml"]),
    (["-f", ""], []),
    (["--set", "a=b,c=d"], ["--set=a=b,c=d"]),
    (["--set=x=-1"], ["--set=x=-1"]),
    (["--description", "--set"], ["--description=--set"]),  # a value is the next word, whatever it looks like
    # --labels is a StringToString: one `=` is one pair
    (["-l", "a=b,c=d"], ["--labels=a=b", "--labels=c=d"]),
    # a switch: no next word, but =false; the last one given counts
    (["--install=false"], []),
    (["-i", "--install=false"], []),
    (["--install=false", "--install=1"], ["--install"]),
    (["--skip-crds", "r"], ["--skip-crds", "r"]),
    # an optional value only after `=`
    (["--wait", "r"], ["--wait", "r"]),
    (["--wait=watcher"], ["--wait=watcher"]),
    (["--dry-run", "--dry-run=server"], ["--dry-run=server"]),
    # arguments anywhere; `--` ends the flags; `-` is an argument
    (["r", "-n", "x", "c"], ["r", "--namespace=x", "c"]),
    (["r", "--", "-n", "x"], ["r", "--", "-n", "x"]),
    (["-", "r"], ["-", "r"]),
    # a scalar given twice: the last
    (["--version", "1", "--version", "2"], ["--version=2"]),
    (["--history-max", "+5"], ["--history-max=5"]),
    (["-h"], ["--help"]),
    (["-ih"], ["--help"]),
])
def test_words_read_as_pflag_reads_them(words: list[str], reading: list[str]) -> None:
    assert helm_spelling(UPGRADE, words) == reading
    assert helm_spelling(UPGRADE, reading) == reading  # the spelling reads back the same


@pytest.mark.parametrize("words, why", [
    (["--nope"], "unknown flag: --nope"),
    (["-x"], "unknown shorthand flag: 'x' in -x"),
    (["-ix"], "unknown shorthand flag: 'x' in -ix"),
    (["---values=a"], "bad flag syntax"),
    (["--=a"], "bad flag syntax"),
    (["-f"], "flag needs an argument"),
    (["--values"], "flag needs an argument"),
    (["--install=maybe"], 'invalid argument "maybe" for "--install" flag'),
    (["-f", '"a,b.yaml"'], "as CSV"),  # pflag would read one file a,b.yaml; refused rather than guessed
    (["-f", "a.yaml\nb.yaml"], "as CSV"),  # pflag would read only the first line
    (["-l", "a=b,c"], "is not key=value"),  # pflag: one label a="b,c"
    (["-l", "a=b, c=d"], "is not key=value"),  # pflag: the key " c"
    (["--history-max=010"], "decimal number"),  # Go's ParseInt(s, 0, 64): octal 8
    (["--history-max=0x10"], "decimal number"),
    (["--history-max=1_0"], "decimal number"),
])
def test_a_spelling_read_otherwise_by_helm_is_refused(words: list[str], why: str) -> None:
    with pytest.raises(UsageError) as refused:
        helm_spelling(UPGRADE, words)
    assert why in str(refused.value)


def test_click_reads_an_optional_value_through_its_hidden_option() -> None:
    assert click_spelling(UPGRADE, ["--wait=watcher", "--wait", "--dry-run=server", "--", "--wait=x"]) == \
        ["--wait", "--dry-run-value=server", "--", "--wait=x"]
