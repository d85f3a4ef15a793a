#!/bin/bash
# options.sh -- every command's options, as its --help lists them (printed from the option
# tables that parse them: controller/cmd/cmd.c and the entries in controller/cmd/, and
# agent/main.c), are exactly the options its man page names: fleettune-ctl's COMMANDS entry of
# each command and its OPTIONS section, fleettune-agent's SYNOPSIS and OPTIONS. Each command
# also refuses, with its usage and exit status 64, an option another command takes. Usage:
# options.sh SOURCE_DIR BUILD_DIR. It first proves it catches a man page that differs.
set -u
src=${1:?usage: options.sh SOURCE_DIR BUILD_DIR}
build=${2:?usage: options.sh SOURCE_DIR BUILD_DIR}
ctl=$build/controller/fleettune-ctl
agent=$build/agent/fleettune-agent
for b in "$ctl" "$agent"; do
	# A missing build fails: a wrong build directory must not pass.
	[ -x "$b" ] || { echo "options.sh: $b is not built (wrong build directory?)"; exit 1; }
done
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}

# help_opts: the long options of a --help text on stdin ("  -f, --format FORMAT ..."), sorted.
help_opts() { sed -n 's/^  \(-[a-zA-Z], \)\{0,1\}--\([a-z][a-z0-9-]*\).*/\2/p' | sort -u; }
# man_opts: the options a man page text on stdin names ("\-\-nodes\-from"), sorted.
man_opts() { grep -oE '\\-\\-[a-z][a-z0-9]*(\\-[a-z0-9]+)*' | sed 's/\\-/-/g; s/^--//' | sort -u; }
# man_section NAME FILE: the lines of section .SH NAME.
man_section() { awk -v s=".SH $1" '/^\.SH /{on=($0==s); next} on' "$2"; }
# man_heads: the lines after each .TP of a section on stdin (an item's heading).
man_heads() { awk 'h{print; h=0} /^\.TP/{h=1}'; }
# same WHAT A B: report where the sorted lists A and B differ.
same() {
	local what=$1 a=$2 b=$3 d
	d=$(diff <(echo "$a") <(echo "$b") | sed -n 's/^< /only in --help: --/p; s/^> /only in the man page: --/p')
	[ -z "$d" ] && return 0
	echo "$what:"
	echo "$d" | sed 's/^/  /'
	return 1
}

# The commands and each one's --help, read once.
commands=$("$ctl" help | awk '/^commands:/{on=1; next} on && /^  [a-z]/{print $1}')
declare -A helps
for c in $commands; do
	helps[$c]=$("$ctl" "$c" --help) || { echo "fleettune-ctl $c --help failed"; exit 1; }
done
all_helps=$(for c in $commands; do echo "${helps[$c]}"; done)

# check DIR: the man pages in DIR against the binaries; print what differs, return 1 if any.
check() {
	local man=$1/fleettune-ctl.1 aman=$1/fleettune-agent.8 bad=0 c h m all="" heads
	heads=$(man_section COMMANDS "$man" | man_heads)
	for c in $commands; do
		h=$(help_opts <<<"${helps[$c]}" | grep -vx help)
		# The COMMANDS entry of c: its headings (rollout has two), whatever their macro.
		m=$(awk -v c="$c" '{w=$2; gsub(/"/, "", w)} w==c' <<<"$heads" | man_opts)
		[ -z "$(awk -v c="$c" '{w=$2; gsub(/"/, "", w)} w==c' <<<"$heads")" ] &&
			{ echo "fleettune-ctl.1: no COMMANDS entry for $c"; bad=1; }
		same "fleettune-ctl $c: --help and fleettune-ctl.1's COMMANDS entry" "$h" "$m" || bad=1
		all+="$h"$'\n'
	done
	h=$( (echo "$all"; echo help) | grep . | sort -u)
	m=$(man_section OPTIONS "$man" | man_heads | man_opts)
	same "fleettune-ctl: the commands' options and fleettune-ctl.1's OPTIONS" "$h" "$m" || bad=1
	h=$("$agent" --help | help_opts)
	m=$(man_section OPTIONS "$aman" | man_heads | man_opts)
	same "fleettune-agent: --help and fleettune-agent.8's OPTIONS" "$h" "$m" || bad=1
	m=$(man_section SYNOPSIS "$aman" | man_opts)
	same "fleettune-agent: --help (but --help, --version) and fleettune-agent.8's SYNOPSIS" \
		"$(grep -vx 'help\|version' <<<"$h")" "$m" || bad=1
	return $bad
}

# The check must catch an option a command's entry lacks, one OPTIONS has that no command
# takes, and an agent option missing from its OPTIONS.
plant() {
	cp "$src"/docs/fleettune-ctl.1 "$src"/docs/fleettune-agent.8 "$1"/
	sed -i '/^\.B history /s/\\-\\-limit/\\-\\-lim/' "$1"/fleettune-ctl.1
	sed -i 's/^\.SH ENVIRONMENT$/.TP\n.B \\-\\-frobnicate\nNothing.\n&/' "$1"/fleettune-ctl.1
	sed -i '/^\.B \\-\\-hide\\-serial$/d' "$1"/fleettune-agent.8
}
caught() {
	echo 'only in --help: --limit'
	echo 'only in the man page: --frobnicate'
	echo 'only in --help: --hide-serial'
}

# Each command refuses another command's option (the first in --help order it lacks) with
# its usage and 64; opt_parse's own refusal of every such option is tests/unit/test_opt.c's.
refusals() {
	local c h other o arg bad=0 err rc
	other=$(help_opts <<<"$all_helps")
	for c in $commands; do
		h=$(help_opts <<<"${helps[$c]}")
		o=$(comm -23 <(echo "$other") <(echo "$h") | head -1)
		[ -n "$o" ] || continue
		arg=$(sed -n "s/^  \(-[a-z], \)\{0,1\}--$o \([^ ]*\).*/\2/p" <<<"$all_helps" | head -1)
		err=$("$ctl" "$c" "--$o" ${arg:+x} 2>&1 >/dev/null)
		rc=$?
		if [ $rc != 64 ] || ! grep -q "$c does not take --$o" <<<"$err" ||
			! grep -q "^usage: fleettune-ctl $c" <<<"$err"; then
			echo "fleettune-ctl $c --$o: exit $rc, not 64 with '$c does not take --$o' and its usage"
			bad=1
		fi
	done
	return $bad
}

refusals || exit 1
source "$(dirname "$0")/lint_lib.sh"
lint_run "$src/docs" "each command's --help and its man page list the same options"
