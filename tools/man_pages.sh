#!/usr/bin/env bash
# Writes railsim's man pages from its --help (help2man): railsim.1 and railsim-COMMAND.1 for each
# command `railsim --help` lists, each named and described as that list describes it.
# Usage: man_pages.sh RAILSIM OUT_DIR
set -euo pipefail
railsim=$1
out=$2
mkdir -p "$out"
version_option=--version
help2man --no-info --section 1 --version-option="$version_option" \
  --name "a discrete-event simulator of GPU-cluster fabrics and collectives" \
  -o "$out/railsim.1" "$railsim"
# "  collective     a collective over a size sweep, ..." under "commands:".
"$railsim" --help | sed -n '/^commands:/,/^$/p' | sed -n 's/^  \([a-z0-9-]*\)  *\(.*\)$/\1\t\2/p' |
  while IFS=$'\t' read -r command summary; do
    page="$out/railsim-$command.1"
    help2man --no-info --section 1 --version-option="$version_option" \
      --help-option="$command --help" --name "$summary" -o "$page.tmp" "$railsim"
    # help2man names the page after the program: it is the command's.
    upper=$(printf '%s' "railsim-$command" | tr '[:lower:]' '[:upper:]')
    sed -e "s/^\.TH RAILSIM /.TH $upper /" -e "s/^railsim \\\\- /railsim-$command \\\\- /" \
      "$page.tmp" > "$page"
    rm -f "$page.tmp"
  done
