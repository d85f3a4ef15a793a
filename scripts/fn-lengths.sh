#!/bin/sh
# fn-lengths.sh -- list the C functions of agent/, controller/ and common/ longer than N lines.
# Usage: scripts/fn-lengths.sh [N] [DIR...]   (N defaults to 100; DIRs to the three above)
# A function's length counts its body, from the line of its opening brace to the line of its
# closing brace, both included. Start and end lines come from universal-ctags (scripts/deps.sh
# installs it); the opening brace is the first line at or after the name's line that starts
# with "{". Output, longest first: LINES FUNCTION FILE:LINE RETURNS, where RETURNS counts the
# `return` statements in the body (a function with cleanup on one path has one or two).
set -eu
min=${1:-100}
[ $# -gt 0 ] && shift
# DIRs are taken from the current directory; without them, the three folders of this tree.
[ $# -eq 0 ] && { cd "$(dirname "$0")/.." && set -- agent controller common; }
if ! ctags --version 2>/dev/null | grep -q 'Universal Ctags'; then
	echo "fn-lengths.sh: needs universal-ctags (scripts/deps.sh)" >&2
	exit 1
fi
# One ctags and one awk per file: awk reads the file's function ranges (NAME START END) first,
# then the file itself.
find "$@" -name '*.c' | sort | while read -r f; do
	ctags --c-kinds=f --fields=+ne --sort=no -f - "$f" |
		awk -F'\t' '
		{
			start = ""; end = ""
			for (i = 4; i <= NF; i++) {
				if ($i ~ /^line:/) start = substr($i, 6)
				if ($i ~ /^end:/) end = substr($i, 5)
			}
			if (start != "" && end != "") print $1, start, end
		}' |
		awk -v file="$f" '
		FNR == NR { name[++n] = $1; lo[n] = $2; hi[n] = $3; next }
		{
			for (i = 1; i <= n; i++) {
				if (FNR < lo[i] || FNR > hi[i]) continue
				if (!open[i] && $0 ~ /^\{/) open[i] = FNR
				if (open[i] && $0 ~ /(^|[^A-Za-z0-9_])return([^A-Za-z0-9_]|$)/) rets[i]++
			}
		}
		END {
			for (i = 1; i <= n; i++)
				if (open[i]) printf "%d %s %s:%d %d\n", hi[i] - open[i] + 1, name[i], file, lo[i], rets[i] + 0
		}' - "$f"
done | awk -v min="$min" '$1 > min' | sort -k1,1nr -k2,2
