#!/usr/bin/env bash
# Writes railsim's bash completion from its --help: the commands `railsim --help` lists, and for
# each the options its `--help` lists; file names elsewhere.
# Usage: bash_completion.sh RAILSIM OUT_FILE
set -euo pipefail
railsim=$1
out=$2
commands=$("$railsim" --help | sed -n '/^commands:/,/^$/p' | sed -n 's/^  \([a-z0-9-]*\)  .*$/\1/p')
{
  echo "# bash completion for railsim, written by tools/bash_completion.sh from railsim's --help."
  echo "_railsim() {"
  echo "  local cur=\${COMP_WORDS[COMP_CWORD]} options"
  echo "  if [ \"\$COMP_CWORD\" -eq 1 ]; then"
  echo "    mapfile -t COMPREPLY < <(compgen -W \"--help --version $(echo $commands)\" -- \"\$cur\")"
  echo "    return"
  echo "  fi"
  echo "  case \${COMP_WORDS[1]} in"
  for command in $commands; do
    # Option lines start with two spaces and a dash: "  -b [ --minbytes ] arg", "  --system arg".
    options=$("$railsim" "$command" --help | grep -E '^  -' | grep -oE -- '(^  -[a-zA-Z]|--[a-z][a-z0-9-]*)' |
      tr -d ' ' | sort -u | tr '\n' ' ')
    echo "    $command) options=\"${options% }\" ;;"
  done
  echo "    *) options=\"\" ;;"
  echo "  esac"
  echo "  if [[ \$cur == -* ]]; then"
  echo "    mapfile -t COMPREPLY < <(compgen -W \"\$options\" -- \"\$cur\")"
  echo "  else"
  echo "    mapfile -t COMPREPLY < <(compgen -f -- \"\$cur\")"
  echo "  fi"
  echo "}"
  echo "complete -o filenames -F _railsim railsim"
} > "$out.tmp"
mv "$out.tmp" "$out"
