#!/bin/bash
# libs.sh -- the libraries stay at the edges of both binaries: sqlite3.h only in common/db.c
# (both stores go through it), microhttpd.h only in agent/httpd, curl.h only in
# controller/client.c, and no agent header but the API layer's (api_priv.h, wire.h) speaks
# JSON. Usage: libs.sh [SOURCE_DIR]. It first proves it catches a violation.
set -u
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}

# PATTERN (an extended regex on a line) and the only files, relative to the root, that may
# hold it; the files searched are the production C of common/, agent/ and controller/.
rules=(
	'^#include <sqlite3\.h>|common/db.c'
	'^#include <microhttpd\.h>|agent/httpd.c agent/httpd.h'
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
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/common" "$tmp/agent" "$tmp/controller"
cp "$root"/common/*.[ch] "$tmp/common/"
cp "$root"/agent/*.[ch] "$tmp/agent/"
cp "$root"/controller/*.[ch] "$tmp/controller/"
sed -i '0,/^#include "ctlstore.h"/s//#include <sqlite3.h>\n#include "ctlstore.h"/' "$tmp/controller/ctlstore.c"
sed -i '0,/^#include "store.h"/s//#include "store.h"\n#include <sqlite3.h>/' "$tmp/agent/store_priv.h"
sed -i '0,/^#include "err.h"/s//#include "err.h"\n#include <jansson.h>/' "$tmp/agent/job.h"
out=$(check "$tmp")
if ! grep -q '^controller/ctlstore.c: matches' <<<"$out" || ! grep -q '^agent/store_priv.h: matches' <<<"$out" ||
	! grep -q '^agent/job.h: an agent header with json_t' <<<"$out"; then
	echo "self-test failed: an injected violation was not caught:"
	echo "$out"
	exit 1
fi

if check "$root"; then
	echo "ok: sqlite3.h, microhttpd.h, curl.h and JSON stay in their modules in $root"
	exit 0
fi
exit 1
