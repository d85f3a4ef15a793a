#!/bin/bash
# ctl_owners.sh -- one owner per decision and per format in the controller: verdicts are
# computed only where analysis.c says, the sweep document is written only by sweepdoc.c and
# read only by sweepdoc_read.c, and the runner reads no clock it was not given. Usage:
# ctl_owners.sh [CONTROLLER_DIR]. It first proves it catches a violation.
set -u
dir=${1:-$(cd "$(dirname "$0")/../../controller" && pwd)}

# PATTERN (an extended regex on a line) @ the only files of the controller that may hold it
# (the definitions' own files included), or @! the files that may not.
rules=(
	'verdict_(sweep|sweeps_compare|point_update)\([^)]@judge/analysis.c judge/verdict.c judge/verdict.h'
	'"fleettune-sweep"@doc/sweepdoc.c doc/sweepdoc_read.c'
	'time_(now|mono)_s\(\)@!run/runner.c'
)

# check DIR: print every violation; return 1 when there is one.
check() {
	local d=$1 rule pat allowed f rel bad=0
	for rule in "${rules[@]}"; do
		pat=${rule%%@*} allowed=${rule#*@}
		while read -r f; do
			rel=${f#"$d"/}
			case "$allowed" in
			!*)
				case " ${allowed#!} " in
				*" $rel "*) echo "$rel: matches '$pat', which ${allowed#!} may not"; bad=1 ;;
				esac ;;
			*)
				case " $allowed " in
				*" $rel "*) ;;
				*) echo "$rel: matches '$pat', which only $allowed may"; bad=1 ;;
				esac ;;
			esac
		done < <(grep -rlE "$pat" --include='*.[ch]' "$d" 2>/dev/null)
	done
	return $bad
}

# The check must catch the strategy judging for itself, the report writing the document, and
# the runner reading the wall clock.
plant() {
	cp -r "$dir"/. "$1"/
	echo 'static void judge(struct sweep *s) { verdict_sweep(s); }' >>"$1/run/strategy.c"
	echo 'static const char *doc = "fleettune-sweep";' >>"$1/render/report.c"
	echo 'static double now(void) { return time_now_s(); }' >>"$1/run/runner.c"
}
caught() {
	echo '^run/strategy.c: matches'
	echo '^render/report.c: matches'
	echo '^run/runner.c: matches'
}

source "$(dirname "$0")/lint_lib.sh"
lint_run "$dir" "verdicts, the sweep document and the runner's clock each have one owner in $dir"
