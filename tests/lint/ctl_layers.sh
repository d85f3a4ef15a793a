#!/bin/bash
# ctl_layers.sh -- the controller's layers run one way: no file in controller/ includes a
# header of a layer above its own, and each library header stays in its one module.
# Usage: ctl_layers.sh [CONTROLLER_DIR]. It first proves it catches a violation.
set -u
dir=${1:-$(cd "$(dirname "$0")/../../controller" && pwd)}

# Rank of each module, bottom to top. A module may include its own header and those of
# strictly lower rank. ctlstore persists the sweep model and sits just above it; client is
# the HTTP edge and needs no controller module; effect (fleet effect statistics) is pure and
# knows no controller struct, so verdict can build on it; race (the adaptive strategy's
# racing) judges a sweep's points with effect, and verdict takes an adaptive sweep's best
# from it.
declare -A rank=(
	[plan]=1 [client]=1 [effect]=1 [rounds]=1
	[sweep]=2
	[ctlstore]=3 [race]=3 [sweepdoc]=3 [drift]=3
	[verdict]=4
	[strategy]=5
	[fleet]=6 [schedule]=6
	[preflight]=7 [runner]=7
	[report]=8
	[main]=9
)
# Library headers and the only modules that may include them (ctlstore reaches SQLite through
# common/db.h).
declare -A only=(
	[sqlite3.h]=""
	[curl/curl.h]="client"
	[jansson.h]="plan fleet report sweepdoc"
	[microhttpd.h]=""
)

# check DIR: print every violation; return 1 when there is one.
check() {
	local d=$1 f mod inc dep bad=0 lib
	for f in "$d"/*.c "$d"/*.h; do
		mod=$(basename "$f"); mod=${mod%.*}
		if [ -z "${rank[$mod]:-}" ]; then
			echo "$f: module '$mod' has no rank in $(basename "$0"): place it in the layers"
			bad=1
			continue
		fi
		while read -r inc; do
			dep=${inc%.h}
			[ -e "$d/$inc" ] || continue          # common/ and system headers
			[ "$dep" = "$mod" ] && continue
			if [ -z "${rank[$dep]:-}" ] || [ "${rank[$dep]}" -ge "${rank[$mod]}" ]; then
				echo "$f: includes \"$inc\" (rank ${rank[$dep]:-?}) from $mod (rank ${rank[$mod]}): a layer above or beside it"
				bad=1
			fi
		done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
		for lib in "${!only[@]}"; do
			grep -q "^#include <$lib>" "$f" || continue
			case " ${only[$lib]} " in
			*" $mod "*) ;;
			*) echo "$f: includes <$lib>, which only ${only[$lib]:-no controller module} may"; bad=1 ;;
			esac
		done
	done
	return $bad
}

# The check must catch a store that words its own lines or calls SQLite itself, and curl
# outside the client.
plant() {
	cp "$dir"/*.c "$dir"/*.h "$1"/
	sed -i '0,/^#include "ctlstore.h"/s//#include "ctlstore.h"\n#include "report.h"/' "$1/ctlstore.c"
	sed -i '0,/^#include "fleet.h"/s//#include "fleet.h"\n#include <curl\/curl.h>/' "$1/fleet.c"
	sed -i '0,/^#include "ctlstore.h"/s//#include <sqlite3.h>\n#include "ctlstore.h"/' "$1/ctlstore.c"
}
caught() {
	echo 'ctlstore.c: includes "report.h"'
	echo 'fleet.c: includes <curl/curl.h>'
	echo 'ctlstore.c: includes <sqlite3.h>'
}

source "$(dirname "$0")/lint_lib.sh"
lint_run "$dir" "every include in $dir runs down the layers"
