#!/bin/bash
# libs.sh -- the libraries stay at the edges of both binaries: sqlite3.h only in common/db.c
# (both stores go through it), microhttpd.h only in agent/httpd (httpd.c, httpd_hold.c), curl.h
# only in controller/client.c, and no agent header but the API layer's (api_priv.h, wire.h)
# speaks JSON. Usage: libs.sh [SOURCE_DIR]. It first proves it catches a violation.
set -u
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}

# PATTERN (an extended regex on a line) and the only files, relative to the root, that may
# hold it; the files searched are the production C of common/, agent/ and controller/.
rules=(
	'^#include <sqlite3\.h>|common/db.c'
	'^#include <microhttpd\.h>|agent/httpd.c agent/httpd_hold.c agent/httpd.h'
	'^#include <curl/curl\.h>|controller/client.c'
)
# Agent headers: JSON only in the API layer's.
json_headers='agent/api_priv.h agent/wire.h'

# check DIR: print every violation; return 1 when there is one.
check() {
	local d=$1 rule pat allowed f rel bad=0
	for rule in "${rules[@]}"; do
		pat=${rule%%|*} allowed=${rule#*|}
		while read -r f; do
			rel=${f#"$d"/}
			case " $allowed " in
			*" $rel "*) ;;
			*) echo "$rel: matches '$pat', which only $allowed may"; bad=1 ;;
			esac
		done < <(grep -lE "$pat" "$d"/common/*.[ch] "$d"/agent/*.[ch] "$d"/controller/*.[ch] 2>/dev/null)
	done
	while read -r f; do
		rel=${f#"$d"/}
		case " $json_headers " in
		*" $rel "*) ;;
		*) echo "$rel: an agent header with json_t or jansson.h outside the API layer ($json_headers)"; bad=1 ;;
		esac
	done < <(grep -lE 'json_t|jansson\.h' "$d"/agent/*.h 2>/dev/null)
	return $bad
}

# The check must catch SQLite in a store and JSON in an agent header.
plant() {
	mkdir -p "$1/common" "$1/agent" "$1/controller"
	cp "$root"/common/*.[ch] "$1/common/"
	cp "$root"/agent/*.[ch] "$1/agent/"
	cp "$root"/controller/*.[ch] "$1/controller/"
	sed -i '0,/^#include "ctlstore.h"/s//#include <sqlite3.h>\n#include "ctlstore.h"/' "$1/controller/ctlstore.c"
	sed -i '0,/^#include "store.h"/s//#include "store.h"\n#include <sqlite3.h>/' "$1/agent/store_priv.h"
	sed -i '0,/^#include "err.h"/s//#include "err.h"\n#include <jansson.h>/' "$1/agent/job.h"
}
caught() {
	echo '^controller/ctlstore.c: matches'
	echo '^agent/store_priv.h: matches'
	echo '^agent/job.h: an agent header with json_t'
}

source "$(dirname "$0")/lint_lib.sh"
lint_run "$root" "sqlite3.h, microhttpd.h, curl.h and JSON stay in their modules in $root"
