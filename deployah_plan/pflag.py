"""Command lines read as helm reads them, so that a plan and the deploy it is checked against
never disagree about what a flag says.

helm parses its flags with spf13/pflag (flag.go: parseArgs, parseLongArg, parseShortArg), and
click, which reads the plugin's own command line, reads several spellings differently: `-f=a.yaml`
is the file `a.yaml` to pflag and `=a.yaml` to click; `-f a.yaml,b.yaml` is two files to pflag.
So every command built from the flag table (flags.py) reads its argv here first, by pflag's
rules, and click is handed one spelling of the same reading (`click_spelling`):

- `--flag=VALUE`, `--flag VALUE`; `-fVALUE`, `-f=VALUE`, `-f VALUE`; short switches stacked
  (`-if x`: `-i`, then `-f x`); `--` ends the flags; a lone `-` and an empty word are arguments;
- a switch takes no word after it, but `--flag=false` (strconv.ParseBool's spellings); a flag
  with an optional value (pflag's NoOptDefVal, `bare` in the table) takes its value only after
  `=`; of a flag given twice the last counts, unless it repeats;
- a repeatable value is one word (pflag's StringArray: `--set a=1,b=2`), or comma-separated
  (StringSlice: `-f`, read as CSV; StringToString: `--labels k=v,k=v`), as `Flag.split` says;
- a spelling whose reading would need more of pflag than that (a quoted or multi-line CSV value,
  a number helm reads as octal or hex, a flag neither the table nor helm's help knows) is
  refused with one line, rather than read in a way helm may not.

`helm_spelling` is the same reading spelt for helm (`--long=VALUE`, one switch `--long`): the
inputs record keeps it, and reading it again gives the same reading.
"""
from __future__ import annotations

from deployah_plan.startup import lazy
from deployah_plan.errors import UsageError
from deployah_plan.flags import Flag, Split

TYPE_CHECKING = False  # typing is not imported before the first helm call (sources/early.py)
if TYPE_CHECKING:
    from typing import NamedTuple, Sequence, Union
else:
    from deployah_plan.startup import NamedTuple

_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})  # Go's strconv.ParseBool
_FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})
_DECIMAL = lazy(r"[+-]?(0|[1-9][0-9]*)")
_HINT = "write it as --flag=VALUE, or see --help"


class Given(NamedTuple):
    """One occurrence of a flag, with the value pflag's Set receives (a switch's: true or false)."""

    flag: Flag
    value: str


if TYPE_CHECKING:
    Word = Union[str, Given]  # an argument, or a flag


def read(table: Sequence[Flag], args: Sequence[str]) -> list[Word]:
    """The arguments and flags of `args` in order, by pflag's rules; `--help` as an argument
    "--help" (cobra answers -h and --help with the help); what follows `--` as "--" and arguments."""
    longs = {name[2:]: flag for flag in table for name in flag.names}
    shorts = {flag.short[1]: flag for flag in table if flag.short}
    words: list[Word] = []
    i = 0
    while i < len(args):
        token = args[i]
        i += 1
        if len(token) < 2 or token[0] != "-":
            words.append(token)
        elif token == "--":
            words += ["--", *args[i:]]
            break
        elif token[1] == "-":
            name, eq, value = token[2:].partition("=")
            if not name or name[0] == "-":
                raise UsageError(f"bad flag syntax: {token}", _HINT)
            flag = longs.get(name)
            if flag is None:
                if name == "help":
                    return ["--help"]
                raise UsageError(f"unknown flag: --{name}", "see --help for the flags helm plan reads")
            if not eq:
                if _optional(flag):
                    value = _optional(flag)
                elif i < len(args):
                    value, i = args[i], i + 1
                else:
                    raise UsageError(f"flag needs an argument: {token}", _HINT)
            words.append(Given(flag, value))
        else:
            shorthands = token[1:]
            while shorthands:
                letter, rest = shorthands[0], shorthands[1:]
                flag = shorts.get(letter)
                if flag is None:
                    if letter == "h":
                        return ["--help"]
                    raise UsageError(f"unknown shorthand flag: {letter!r} in {token}", "see --help for the flags "
                                     "helm plan reads")
                if len(shorthands) > 2 and shorthands[1] == "=":
                    value, rest = shorthands[2:], ""
                elif _optional(flag):
                    value = _optional(flag)
                elif rest:
                    value, rest = rest, ""
                elif i < len(args):
                    value, i = args[i], i + 1
                else:
                    raise UsageError(f"flag needs an argument: {letter!r} in {token}", _HINT)
                words.append(Given(flag, value))
                shorthands = rest
    return words


def _optional(flag: Flag) -> str:
    """The value a flag takes when given alone (pflag's NoOptDefVal), or "" if it needs one."""
    return "true" if not flag.takes_value else flag.bare


def _switch(flag: Flag, value: str) -> bool:
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise UsageError(f'invalid argument "{value}" for "{flag.long}" flag: must be true or false', _HINT)


def items(flag: Flag, value: str) -> list[str]:
    """The values one occurrence gives, as pflag's Set splits it."""
    if flag.split is Split.NONE:
        return [value]
    if '"' in value or "\n" in value or "\r" in value:
        raise UsageError(f"{flag.long} {value!r}: helm reads a quoted or multi-line value of {flag.long} as CSV, "
                         "which helm plan does not", f"give one value per {flag.long}, without quotes")
    if flag.split is Split.CSV:
        return value.split(",") if value else []
    pairs = [value] if value.count("=") == 1 else value.split(",")  # pflag: one `=` is one pair, commas and all
    for pair in pairs:
        key, eq, rest = pair.partition("=")
        if not eq or "," in rest or key != key.strip() or not key:
            raise UsageError(f"{flag.long} {value!r}: {pair!r} is not key=value as helm reads it",
                             f"write {flag.long} key=value[,key=value], without spaces or commas in a value")
    return pairs


def _number(flag: Flag, value: str) -> str:
    if flag.type is int:
        if not _DECIMAL.fullmatch(value):
            raise UsageError(f"{flag.long}={value}: helm reads a number with a leading 0, 0x or _ other than as "
                             "written", f"write {flag.long} as a decimal number")
        return str(int(value))
    return value


def helm_spelling(table: Sequence[Flag], args: Sequence[str]) -> list[str]:
    """`args` spelt one way with the same reading: arguments where they were, each flag as
    `--long=VALUE` (a repeatable one once per value, any other once, where it was last given),
    a switch that is on as `--long`, a flag with an optional value given alone as `--long`."""
    words = read(table, args)
    last = {id(w.flag): n for n, w in enumerate(words) if isinstance(w, Given)}
    out: list[str] = []
    for n, word in enumerate(words):
        if not isinstance(word, Given):
            if word == "--":
                return out + [str(w) for w in words[n:]]
            out.append(word)
            continue
        flag = word.flag
        if not flag.takes_value:
            if _switch(flag, word.value) and last[id(flag)] == n:
                out.append(flag.long)
        elif flag.repeatable:
            out += [f"{flag.long}={item}" for item in items(flag, word.value)]
        elif last[id(flag)] == n:
            value = _number(flag, word.value)
            out.append(flag.long if flag.bare and value == flag.bare else f"{flag.long}={value}")
    return out


def click_spelling(table: Sequence[Flag], args: Sequence[str]) -> list[str]:
    """`helm_spelling`, with `--flag=VALUE` of a flag whose value is optional given to the
    hidden option that reads it (click has no optional values: see flags.click_options)."""
    optional = {flag.long: flag for flag in table if flag.bare}
    spelt = helm_spelling(table, args)
    out: list[str] = []
    for n, token in enumerate(spelt):
        if token == "--":
            return out + spelt[n:]
        name, eq, value = token.partition("=")
        out.append(f"{optional[name].long}-value={value}" if eq and name in optional else token)
    return out


__all__ = ["Given", "click_spelling", "helm_spelling", "items", "read"]
