#!/usr/bin/env python3
"""Writes gpuroof's man page and shell completions from its own --help text.

usage: gen_manpage_and_completions.py GPUROOF OUT_DIR

OUT_DIR/gpuroof.1 (roff), OUT_DIR/gpuroof.bash (bash completion), OUT_DIR/_gpuroof (zsh). The
help text is the one source: a new option appears in all three at the next build. Standard
library only.
"""
import re
import subprocess
import sys
from pathlib import Path


def run_help(binary, *args):
    return subprocess.run([binary, *args, "--help"], check=True, capture_output=True,
                          text=True).stdout


def commands_of(main_help):
    """The subcommand names listed under 'SUBCOMMANDS:' (CLI11's layout)."""
    names, inside = [], False
    for line in main_help.splitlines():
        if line.strip().upper().startswith("SUBCOMMANDS"):
            inside = True
            continue
        if inside:
            match = re.match(r"^\s{2}(\w[\w-]*)\s", line)
            if match:
                names.append(match.group(1))
            elif line.strip() == "":
                continue
            else:
                break
    return names


def options_of(help_text):
    """The --long options a help text lists (its option lines, not its examples)."""
    options = set()
    for line in help_text.splitlines():
        match = re.match(r"^\s+(?:-\w,)?(--[a-z][a-z0-9-]*)", line)
        if match:
            options.add(match.group(1))
    return sorted(options)


def roff_escape(text):
    return text.replace("\\", "\\\\").replace("-", "\\-").replace("'", "\\(aq")


def man_page(main_help, helps):
    out = [".TH GPUROOF 1", ".SH NAME", "gpuroof \\- which GPU engine binds your pipeline",
           ".SH SYNOPSIS", ".B gpuroof", "\\fICOMMAND\\fR [\\fIOPTIONS\\fR] \\fITRACE\\fR...",
           ".SH DESCRIPTION", ".nf"]
    out += [roff_escape(line) for line in main_help.splitlines()]
    out.append(".fi")
    for name, text in helps.items():
        out += [".SH " + roff_escape(name.upper()), ".nf"]
        out += [roff_escape(line) for line in text.splitlines()]
        out.append(".fi")
    out += [".SH SEE ALSO", "The documentation installed in share/doc/gpuroof: cli.md, "
            "metrics.md, formats.md."]
    return "\n".join(out) + "\n"


def bash_completion(helps):
    cases = []
    for name, text in helps.items():
        cases.append(f"    {name}) opts=\"{' '.join(options_of(text))}\" ;;")
    return f"""# bash completion for gpuroof (generated from its --help text)
_gpuroof() {{
  local cur="${{COMP_WORDS[COMP_CWORD]}}" command="${{COMP_WORDS[1]}}" opts=""
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "{' '.join(helps)} --help --version" -- "$cur"))
    return
  fi
  case "$command" in
{chr(10).join(cases)}
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$opts --help" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}}
complete -o filenames -F _gpuroof gpuroof
"""


def zsh_completion(helps):
    cases = []
    for name, text in helps.items():
        options = " ".join(f"'{option}[]'" for option in options_of(text))
        cases.append(f"    {name}) _arguments {options} '*:trace:_files' ;;")
    return f"""#compdef gpuroof
# zsh completion for gpuroof (generated from its --help text)
_gpuroof() {{
  if (( CURRENT == 2 )); then
    compadd {' '.join(helps)}
    return
  fi
  local command=$words[2]
  shift words; (( CURRENT-- ))
  case $command in
{chr(10).join(cases)}
  esac
}}
_gpuroof "$@"
"""


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    binary, out_dir = sys.argv[1], Path(sys.argv[2])
    out_dir.mkdir(parents=True, exist_ok=True)
    main_help = run_help(binary)
    commands = commands_of(main_help)
    if not commands:
        sys.exit("gen_manpage_and_completions: no subcommands found in gpuroof --help")
    helps = {name: run_help(binary, name) for name in commands}
    (out_dir / "gpuroof.1").write_text(man_page(main_help, helps))
    (out_dir / "gpuroof.bash").write_text(bash_completion(helps))
    (out_dir / "_gpuroof").write_text(zsh_completion(helps))


if __name__ == "__main__":
    main()
