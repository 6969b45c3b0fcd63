#!/usr/bin/env bash
# packaging/check-docs.sh FILE... checks documents that ship in the package
# and the tarballs (the released README, docs/*.md, the changelog): their
# commands must work where they ship, with the installed bankmirror and
# without the source. It fails, naming each line, where one tells users to
# `go run` or `go test`, or names systemd/bankmirror.service (a path of the
# source tree), outside a part marked as being for the source: a section
# whose heading says "source" or "development", or the rest of a section from
# the paragraph that says "from source", "source tree", "in the source" or
# "checkout" on. check-release.sh runs it on what it extracts.
set -euo pipefail

[ $# -gt 0 ] || {
	echo "usage: $0 FILE..." >&2
	exit 2
}
bad=$(awk '
	function flush() {
		if (tolower(blk) ~ /from source|from the source|source tree|in the source|checkout/) marked = 1
		if (found != "" && !marked) printf "%s", found
		blk = ""; found = ""
	}
	FNR == 1 { flush(); marked = 0; fence = 0 }
	/^[ \t]*(```|~~~)/ { fence = !fence; blk = blk "\n" $0; next }
	!fence && /^#/ { flush(); marked = tolower($0) ~ /source|development/; next }
	!fence && /^[ \t]*$/ { flush(); next }
	{
		blk = blk "\n" $0
		if ($0 ~ /go (run|test) |systemd\/bankmirror\.service/) found = found FILENAME ":" FNR ": " $0 "\n"
	}
	END { flush() }
' "$@")
if [ -n "$bad" ]; then
	echo "check-docs: these lines of shipped documents give commands that need the source, outside a part marked for it:" >&2
	echo "$bad" >&2
	exit 1
fi
