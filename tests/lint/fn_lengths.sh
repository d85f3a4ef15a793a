#!/bin/bash
# fn_lengths.sh -- no C function of agent/, controller/ or common/ is longer than FN_MAX lines
# (its body, brace to brace, as scripts/fn-lengths.sh counts it with universal-ctags). Usage:
# fn_lengths.sh [SOURCE_DIR]. It first proves it catches a planted function one line too long.
set -u
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
FN_MAX=100
source "$(dirname "$0")/lint_lib.sh"

# check DIR: the functions of DIR's three folders over FN_MAX lines, one per line.
check() {
	local out
	out=$(cd "$1" && "$root/scripts/fn-lengths.sh" "$FN_MAX" agent controller common) || return 1
	[ -z "$out" ] && return 0
	sed "s/^/longer than $FN_MAX lines: /" <<<"$out"
	return 1
}

# plant DIR: the three folders with one file: a function of FN_MAX + 1 lines and one of FN_MAX.
plant() {
	mkdir -p "$1/agent" "$1/controller" "$1/common"
	{
		printf 'int planted_long(int x)\n{\n'
		for i in $(seq $((FN_MAX - 2))); do printf '\tx += %d;\n' "$i"; done
		printf '\treturn x;\n}\n\nint planted_fits(int x)\n{\n'
		for i in $(seq $((FN_MAX - 3))); do printf '\tx += %d;\n' "$i"; done
		printf '\treturn x;\n}\n'
	} >"$1/agent/planted.c"
}

caught() {
	echo "^longer than $FN_MAX lines: $((FN_MAX + 1)) planted_long agent/planted.c:1 1$"
}

# A function of exactly FN_MAX lines passes.
tmp_fits=$(mktemp -d)
plant "$tmp_fits"
fits=$(check "$tmp_fits")
rm -rf "$tmp_fits"
if grep -q planted_fits <<<"$fits"; then
	echo "self-test failed: a function of exactly $FN_MAX lines was reported: $fits"
	exit 1
fi
lint_run "$root" "no function of agent/, controller/ or common/ is longer than $FN_MAX lines"
