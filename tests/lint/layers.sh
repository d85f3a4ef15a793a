#!/bin/bash
# layers.sh -- the include graph of both binaries, read from the compiler: each binary's folders
# are its layers and run one way (a file includes its own folder's headers and those of lower
# folders only), no binary reaches into the other, common/ reaches into neither, and each
# library stays at its edge. Usage: layers.sh [SOURCE_DIR]. It first proves it catches a
# violation, however the include is spelt.
set -u
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
CC=${CC:-cc}

# The layers of each binary, bottom to top (docs/internals.md). A folder may include its own
# headers and those of folders of a strictly lower rank: folders of one rank stand beside each
# other and include none of each other's. The files at a binary's top (main.c) stand above
# every folder.
declare -A agent_rank=(
	[http]=1 [device]=1 [engines]=1
	[job]=2 [profile]=2
	[wire]=3
	[store]=4
	[queue]=5
	[state]=6
	[api]=7
	[.]=8
)
declare -A controller_rank=(
	[stats]=1
	[plan]=2
	[model]=3 [fleet]=3
	[judge]=4 [store]=4 [doc]=4
	[run]=5
	[render]=6
	[cmd]=7
	[.]=8
)

# Library headers, as the compiler finds them (whatever includes them, however deep), and the
# only places, relative to the root, that may reach them: a folder/ or a file.
libs=(
	'sqlite3.h|common/db.c'
	'microhttpd.h|agent/http/'
	'curl/curl.h|controller/fleet/client.c'
	'jansson.h|common/jread.h common/jread.c agent/wire/ agent/api/ agent/http/http.c agent/http/httpd.c agent/store/store.c agent/store/store_job.c agent/store/store_profile.c agent/engines/fio.c agent/queue/job_run.c controller/plan/ controller/fleet/ controller/doc/ controller/render/site.c'
)

# deps FILE INCLUDE_DIR: every file the compiler reads for FILE (system headers with -M), one
# a line, as absolute paths.
deps() {
	"$CC" -M -MG -I"$2" -I"$3/common" -x c "$1" 2>/dev/null |
		sed -e 's/^[^:]*://' -e 's/\\$//' | tr ' ' '\n' | sed '/^$/d' | xargs -r realpath -m --
}

# folder_of BINARY_DIR PATH: the layer folder of PATH within BINARY_DIR ("." for its top).
folder_of() {
	local rel=${2#"$1"/}
	case $rel in
	*/*) echo "${rel%%/*}" ;;
	*) echo . ;;
	esac
}

# allowed REL RULE_PLACES: REL is one of the places (a folder/ or a file).
allowed() {
	local rel=$1 p
	for p in $2; do
		case $p in
		*/) [[ $rel == "$p"* ]] && return 0 ;;
		*) [ "$rel" = "$p" ] && return 0 ;;
		esac
	done
	return 1
}

# check DIR: print every violation; return 1 when there is one.
check() {
	local d bin f rel folder dep drel dfolder r dr bad=0 rule lib places list
	d=$(realpath "$1")
	for bin in agent controller common; do
		while read -r f; do
			rel=${f#"$d"/}
			folder=$(folder_of "$d/$bin" "$f")
			if [ "$bin" != common ]; then
				declare -n ranks="${bin}_rank"
				r=${ranks[$folder]:-}
				if [ -z "$r" ]; then
					echo "$rel: folder '$folder' has no rank in $(basename "$0"): place it in the layers"
					bad=1
					continue
				fi
			fi
			list=$(deps "$f" "$d/$bin" "$d")
			while read -r dep; do
				drel=${dep#"$d"/}
				[ "$drel" = "$dep" ] && continue # outside the tree: system or generated
				case $drel in
				"$bin"/*) ;;
				agent/* | controller/*)
					echo "$rel: reaches $drel: one binary's code in the other's (or in common/)"
					bad=1
					continue ;;
				*) continue ;; # common/
				esac
				[ "$bin" = common ] && continue
				dfolder=$(folder_of "$d/$bin" "$dep")
				[ "$dfolder" = "$folder" ] && continue
				dr=${ranks[$dfolder]:-}
				if [ -z "$dr" ] || [ "$dr" -ge "$r" ]; then
					echo "$rel: includes $drel (layer $dfolder, rank ${dr:-?}) from layer $folder (rank $r): a layer above or beside it"
					bad=1
				fi
			done <<<"$list"
			for rule in "${libs[@]}"; do
				lib=${rule%%|*} places=${rule#*|}
				if grep -q "/$lib\$" <<<"$list" && ! allowed "$rel" "$places"; then
					echo "$rel: reaches <$lib>, which only $places may"
					bad=1
				fi
			done
		done < <(find "$d/$bin" -name '*.[ch]' | sort)
	done
	# No agent header but the API layer's and the codec's speaks JSON, even by name.
	while read -r f; do
		rel=${f#"$d"/}
		case $rel in
		agent/wire/wire.h | agent/api/api_priv.h) ;;
		*) echo "$rel: an agent header that speaks JSON (json_t) outside agent/wire/wire.h and agent/api/api_priv.h"; bad=1 ;;
		esac
	done < <(grep -rlE 'json_t' --include='*.h' "$d/agent" 2>/dev/null)
	return $bad
}

# The check must catch an upward include however it is spelt (a space after '#', a path
# through '..', a header included by a header), one beside it, a binary reaching into the
# other, a folder of no layer, and a library outside its edge.
plant() {
	cp -r "$root/common" "$root/agent" "$root/controller" "$1/"
	sed -i '0,/^#include "store\/ctlstore.h"/s//#include "store\/ctlstore.h"\n#  include "render\/report.h"/' "$1/controller/store/ctlstore.c"
	sed -i '0,/^#include "model\/words.h"/s//#include "model\/words.h"\n#include "..\/judge\/verdict.h"/' "$1/controller/model/words.c"
	sed -i '0,/^#include "plan\/plan.h"/s//#include "plan\/plan.h"\n#include "fleet\/fleet.h"/' "$1/controller/model/rollout.h"
	sed -i '0,/^#include "job\/jobrec.h"/s//#include "job\/jobrec.h"\n#include "store\/store.h"/' "$1/agent/wire/wire.h"
	sed -i '0,/^#include "queue\/job.h"/s//#include "queue\/job.h"\n# include "state\/agent.h"/' "$1/agent/queue/job.c"
	sed -i '0,/^#include "device\/tune.h"/s//#include "device\/tune.h"\n#include "..\/..\/controller\/plan\/config.h"/' "$1/agent/device/tune.c"
	mkdir -p "$1/agent/newthing"
	echo '#include "queue/job.h"' >"$1/agent/newthing/newthing.c"
	sed -i '0,/^#include "fleet\/fleet.h"/s//#include "fleet\/fleet.h"\n#include <curl\/curl.h>/' "$1/controller/fleet/fleet.c"
	sed -i '0,/^#include "store\/store.h"/s//#include "store\/store.h"\n#include <sqlite3.h>/' "$1/agent/store/store_priv.h"
	sed -i '0,/^struct jobq;/s//struct jobq;\nstruct json_t *job_json(void);/' "$1/agent/queue/job.h"
}
caught() {
	echo '^controller/store/ctlstore.c: includes controller/render/report.h'
	echo '^controller/model/words.c: includes controller/judge/verdict.h'
	echo '^controller/model/rollout.h: includes controller/fleet/fleet.h .*: a layer above or beside it'
	echo '^agent/wire/wire.h: includes agent/store/store.h'
	echo '^agent/queue/job.c: includes agent/state/agent.h'
	echo '^agent/device/tune.c: reaches controller/plan/config.h'
	echo "^agent/newthing/newthing.c: folder 'newthing' has no rank"
	echo '^controller/fleet/fleet.c: reaches <curl/curl.h>'
	echo '^agent/store/store.c: reaches <sqlite3.h>'
	echo '^agent/queue/job.h: an agent header that speaks JSON'
}

source "$(dirname "$0")/lint_lib.sh"
lint_run "$root" "the folders of agent/ and controller/ run one way, and each library stays at its edge"
