#!/bin/bash
# docs_links.sh -- the markdown manual holds together: every relative link in README.md,
# docs/*.md and bench/README.md names a file or directory that exists and, with a #anchor, a
# heading of that markdown file (GitHub's anchors: lower case, punctuation dropped, blanks as
# '-', a repeated heading numbered); README.md is at most README_MAX lines. Links inside code
# (fenced blocks, `spans`) are not links. Usage: docs_links.sh [SOURCE_DIR]. It first proves
# it catches a missing file, a missing heading in another file and in the same file, and a
# README that grew too long, on a copy.
set -u
export LC_ALL=C.UTF-8
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
README_MAX=250

# docs DIR: the markdown files checked, relative to DIR.
docs() {
	(cd "$1" && for f in README.md docs/*.md bench/README.md; do [ -f "$f" ] && echo "$f"; done)
}

# links FILE: "LINE TARGET" for every inline link [text](target) and reference definition
# [label]: target outside code. A code span may run over lines within a paragraph.
links() {
	awk '
	function scan(s,    i, c, out) {
		out = ""
		for (i = 1; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (c == "`") { code = !code; out = out " "; continue }
			out = out (code ? " " : c)
		}
		return out
	}
	/^[ \t]*(```|~~~)/ { fence = !fence; code = 0; next }
	fence { next }
	/^[ \t]*$/ { code = 0; next }
	{
		line = scan($0)
		if (match(line, /^ *\[[^]]+\]:[ \t]+[^ \t]+/)) {
			t = line
			sub(/^ *\[[^]]+\]:[ \t]+/, "", t)
			sub(/[ \t].*$/, "", t)
			print NR " " t
			next
		}
		while (match(line, /\]\([^)]*\)/)) {
			t = substr(line, RSTART + 2, RLENGTH - 3)
			sub(/^[ \t]+/, "", t)
			sub(/[ \t].*$/, "", t)
			gsub(/^<|>$/, "", t)
			print NR " " t
			line = substr(line, RSTART + RLENGTH)
		}
	}' "$1"
}

# anchors FILE: the anchor of every heading of FILE, one a line.
anchors() {
	awk '
	/^[ \t]*(```|~~~)/ { fence = !fence; next }
	fence { next }
	/^##*[ \t]/ { h = $0; sub(/^#+[ \t]+/, "", h); sub(/[ \t]+#+[ \t]*$/, "", h); print h }' "$1" |
		sed -E 's/\[([^]]*)\]\([^)]*\)/\1/g; s/.*/\L&/; s/[^[:alnum:] _-]//g; s/ /-/g' |
		awk '{ n = seen[$0]++; print n ? $0 "-" n : $0 }'
}

# normpath PATH: PATH relative to the root it is under, without "." and ".." steps (realpath -m
# --relative-to, with no fork: the manual links no symlink), in $REPLY.
normpath() {
	local part out=() IFS=/
	for part in $1; do
		case $part in
		'' | .) ;;
		..)
			if [ ${#out[@]} -gt 0 ] && [ "${out[-1]}" != .. ]; then
				unset 'out[-1]'
			else
				out+=(..)
			fi
			;;
		*) out+=("$part") ;;
		esac
	done
	REPLY="${out[*]}"
	[ -n "$REPLY" ] || REPLY=.
}

# check DIR: print every violation; return 1 when there is one. A file's anchors are read once.
check() {
	local d=$1 f dir n t path anchor target bad=0
	local -A heads=()
	n=$( (wc -l <"$d/README.md") 2>/dev/null || echo 0)
	if [ "$n" -gt "$README_MAX" ]; then
		echo "README.md: $n lines, more than $README_MAX: move the detail into docs/"
		bad=1
	fi
	while read -r f; do
		dir=$(dirname "$f")
		while read -r n t; do
			case $t in
			'' | [a-zA-Z]*:* | //*) continue ;; # absolute: http:, https:, mailto:
			esac
			path=${t%%#*}
			anchor=
			[ "$path" != "$t" ] && anchor=${t#*#}
			if [ -z "$path" ]; then
				target=$f
			else
				target=$dir/$path
			fi
			normpath "$target"
			target=$REPLY
			if [ ! -e "$d/$target" ]; then
				echo "$f:$n: $t: no such file ($target)"
				bad=1
				continue
			fi
			[ -n "$anchor" ] || continue
			case $target in
			*.md) ;;
			*)
				echo "$f:$n: $t: an anchor into $target, which has no markdown headings"
				bad=1
				continue
				;;
			esac
			[ -n "${heads[$target]+set}" ] || heads[$target]=$'\n'$(anchors "$d/$target")$'\n'
			if [[ ${heads[$target]} != *$'\n'"$anchor"$'\n'* ]]; then
				echo "$f:$n: $t: no heading of $target has the anchor #$anchor"
				bad=1
			fi
		done < <(links "$d/$f")
	done < <(docs "$d")
	return $bad
}

# The copy: the checked files, every file and directory they link to (empty), then a missing
# file, a missing heading elsewhere and here, and a README over the limit. A link inside a
# code block is planted too: it must not be reported (the check of the real tree would fail
# on the same shape).
plant() {
	local f t dir path target
	while read -r f; do
		mkdir -p "$1/$(dirname "$f")"
		cp "$root/$f" "$1/$f"
		dir=$(dirname "$f")
		while read -r _ t; do
			path=${t%%#*}
			case $t in '' | [a-zA-Z]*:* | //*) continue ;; esac
			[ -n "$path" ] || continue
			normpath "$dir/$path"
			target=$REPLY
			[ -e "$1/$target" ] && continue
			if [ -d "$root/$target" ]; then
				mkdir -p "$1/$target"
			elif [ -e "$root/$target" ]; then
				mkdir -p "$1/$(dirname "$target")"
				: >"$1/$target"
			fi
		done < <(links "$root/$f")
	done < <(docs "$root")
	printf '\nSee [the plan](no-such-file.md).\n' >>"$1/docs/api.md"
	printf '\nSee [the API](api.md#no-such-heading).\n' >>"$1/docs/plan.md"
	printf '\n```\n[not a link](nowhere-at-all.md)\n```\n\nBack to [the top](#nowhere).\n' \
		>>"$1/bench/README.md"
	for _ in $(seq "$README_MAX"); do echo "filler" >>"$1/README.md"; done
}
caught() {
	echo '^docs/api.md:[0-9]+: no-such-file.md: no such file'
	echo '^docs/plan.md:[0-9]+: api.md#no-such-heading: no heading'
	echo '^bench/README.md:[0-9]+: #nowhere: no heading'
	echo '^README.md: [0-9]+ lines, more than'
}

# What is a link: the reader must skip code (fenced, a span, a span over two lines) and take
# reference definitions, or the check would pass links it never read.
links_selftest() {
	local f out want='a.md d.md#x f.md '
	f=$(mktemp)
	printf '%s\n' 'A [link](a.md) and `[code](b.md)` and `a span' 'over [lines](c.md)` then [two](d.md#x "t").' \
		'' '```' '[fenced](e.md)' '```' '[ref]: f.md' >"$f"
	out=$(links "$f" | awk '{ printf "%s ", $2 }')
	rm -f "$f"
	if [ "$out" != "$want" ]; then
		echo "self-test failed: the link reader found '$out', not '$want'"
		exit 1
	fi
}
links_selftest

source "$(dirname "$0")/lint_lib.sh"
lint_run "$root" "every relative link of README.md, docs/*.md and bench/README.md resolves, and README.md is at most $README_MAX lines, in $root"
