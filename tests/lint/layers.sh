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

# deps DIR OUT: for every file of the three folders of DIR, what the compiler reads for it
# (system headers too, with -M), in OUT/BIN.d, rules "FILE: DEP ..." (make syntax), two
# compilers at a time. Each file is compiled as its binary's code (its folder and common/ on
# the include path).
deps() {
	local d=$1 out=$2 bin
	for bin in agent controller common; do
		mkdir -p "$out/$bin"
		find "$d/$bin" -name '*.[ch]' -print0 |
			xargs -0 -r -P2 -n1 sh -c '"$1" -M -MG -MT "$5" -MF "$2/$(printf %s "$5" | tr / _).d" -I"$3" -I"$4/common" -x c "$5" 2>/dev/null' \
				sh "$CC" "$out/$bin" "$d/$bin" "$d"
		find "$out/$bin" -name '*.d' -exec cat {} + >"$out/$bin.d"
	done
}

# check DIR: print every violation; return 1 when there is one.
check() {
	local d rule ranks bad=0 out
	d=$(realpath "$1")
	out=$(mktemp -d)
	deps "$d" "$out"
	# The rules, the ranks and the libraries' places, to one awk that walks every edge.
	ranks=$(for f in "${!agent_rank[@]}"; do echo "agent $f ${agent_rank[$f]}"; done
		for f in "${!controller_rank[@]}"; do echo "controller $f ${controller_rank[$f]}"; done)
	for rule in "${libs[@]}"; do echo "$rule"; done >"$out/libs"
	echo "$ranks" >"$out/ranks"
	awk -v q="'" -v root="$d" -v self="$(basename "$0")" -v ranks="$out/ranks" -v libs="$out/libs" '
	# norm PATH: PATH without "." and ".." steps (realpath -m, no symlinks in the tree).
	function norm(p,    n, a, i, k, o) {
		n = split(p, a, "/"); k = 0
		for (i = 1; i <= n; i++) {
			if (a[i] == "" || a[i] == ".") continue
			if (a[i] == "..") { if (k > 0) k--; continue }
			st[++k] = a[i]
		}
		o = ""
		for (i = 1; i <= k; i++) o = o "/" st[i]
		return o
	}
	function folder(bin, rel,    r) {
		r = substr(rel, length(bin) + 2)
		return index(r, "/") ? substr(r, 1, index(r, "/") - 1) : "."
	}
	function allowed(rel, places,    n, a, i) {
		n = split(places, a, " ")
		for (i = 1; i <= n; i++) {
			if (a[i] ~ /\/$/) { if (substr(rel, 1, length(a[i])) == a[i]) return 1 }
			else if (rel == a[i]) return 1
		}
		return 0
	}
	BEGIN {
		while ((getline l < ranks) > 0) { split(l, a, " "); rank[a[1] SUBSEP a[2]] = a[3] }
		nl = 0
		while ((getline l < libs) > 0) { nl++; lib[nl] = substr(l, 1, index(l, "|") - 1); place[nl] = substr(l, index(l, "|") + 1) }
		bad = 0
	}
	# One rule: the target (the file), then its dependencies over continued lines.
	{
		line = $0; cont = sub(/\\$/, "", line)
		if (!inrule) {
			f = substr(line, 1, index(line, ":") - 1); line = substr(line, index(line, ":") + 1)
			rel = substr(f, length(root) + 2); bin = substr(rel, 1, index(rel, "/") - 1)
			fold = folder(bin, rel); r = rank[bin SUBSEP fold]
			norank = bin != "common" && r == ""
			if (norank) { print rel ": folder " q "" fold "" q " has no rank in " self ": place it in the layers"; bad = 1 }
			delete seen; inrule = 1
		}
		n = split(line, dep, /[ \t]+/)
		for (i = 1; i <= n; i++) if (dep[i] != "") seen[substr(dep[i], 1, 1) == "/" ? norm(dep[i]) : dep[i]] = 1
		if (cont) next
		inrule = 0
		if (norank) next
		for (p in seen) {
			for (k = 1; k <= nl; k++)
				if (substr(p, length(p) - length(lib[k])) == "/" lib[k] && !allowed(rel, place[k]) && !libhit[rel, k]++) {
					print rel ": reaches <" lib[k] ">, which only " place[k] " may"; bad = 1
				}
			if (substr(p, 1, length(root) + 1) != root "/") continue # outside the tree
			drel = substr(p, length(root) + 2)
			if (drel !~ /^(agent|controller)\//) continue # common/
			if (substr(drel, 1, length(bin) + 1) != bin "/") {
				print rel ": reaches " drel ": one binary" q "s code in the other" q "s (or in common/)"; bad = 1; continue
			}
			if (bin == "common") continue
			df = folder(bin, drel)
			if (df == fold) continue
			dr = rank[bin SUBSEP df]
			if (dr == "" || dr + 0 >= r + 0) {
				print rel ": includes " drel " (layer " df ", rank " (dr == "" ? "?" : dr) ") from layer " fold " (rank " r "): a layer above or beside it"; bad = 1
			}
		}
	}
	END { exit bad }' "$out/agent.d" "$out/controller.d" "$out/common.d" || bad=1
	rm -rf "$out"
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
